import { shortAddress } from '../convert/hex.js'
import { signatureText } from '../convert/payload-text.js'
import { fallbacks } from './fallbacks.js'
import { account, accountMembers, ed25519, multiEd25519, soleMember } from './account-text.js'
import { other } from './move.js'
import { signature } from './signature.js'
import { ascii, type TextWriter } from './text-writer.js'
import type { Ranges } from './user-text.js'
import type { WireReader } from './wire-reader.js'

// A user transaction's signature written straight from its wire bytes, as user-text.ts writes
// the other parts: every kind the stream sends (ed25519, multi-ed25519, multi-agent, fee payer,
// single sender) over the account signatures mainnet holds (ed25519, multi-ed25519, single key
// and multi key of any key and signature type, abstraction). A shape protobuf would merge (a
// singular message sent twice, two members of a oneof), an unknown field, or a signer without
// its signature is written by the decoder and `signatureText`, from the start of the signature:
// its bytes are `JSON.stringify(signatureJson(sig))` either way.

const COMMA = ascii(',')
const SENDER = ascii('{"sender":')
const SECONDARY_ADDRESSES = ascii(',"secondary_signer_addresses":[')
const SECONDARY_SIGNERS = ascii('],"secondary_signers":[')
const FEE_PAYER_ADDRESS = ascii('],"fee_payer_address":')
const FEE_PAYER_SIGNER = ascii(',"fee_payer_signer":')
const ED25519_END = ascii(',"type":"ed25519_signature"}')
const MULTI_ED25519_END = ascii(',"type":"multi_ed25519_signature"}')
const MULTI_AGENT_END = ascii('],"type":"multi_agent_signature"}')
const FEE_PAYER_END = ascii(',"type":"fee_payer_signature"}')
const SINGLE_SENDER_END = ascii(',"type":"single_sender"}')

/** `signatureText` of the signature at `[at, end)`; false when the signature member is left out. */
export function signatureText1(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const mark = w.mark()
  if (signatureWire(r, at, end, w)) return true
  w.reset(mark)
  fallbacks.signature++
  r.pos = at
  const text = signatureText(signature(r, end))
  if (text === undefined) return false
  w.utf8(text)
  return true
}

/** A `Signature` (fields 2 ed25519, 3 multi-ed25519, 4 multi-agent, 5 fee payer, 7 single sender) written member by member; false for a shape left to the decoder. */
function signatureWire(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const m = soleMember(r, at, end, 0b10111100)
  if (m === undefined) return false
  switch (m.field) {
    case 2:
      ed25519(r, m.at, m.end, w)
      w.lit(ED25519_END)
      return true
    case 3:
      multiEd25519(r, m.at, m.end, w)
      w.lit(MULTI_ED25519_END)
      return true
    case 4:
    case 5:
      return signers(r, m.at, m.end, w, m.field === 5)
    default: {
      // SingleSender: its account signature's members, its type replaced (`{ ...accountSignatureJson(sender), type: 'single_sender' }`).
      const sender = soleMember(r, m.at, m.end, 0b10)
      if (sender === undefined || accountMembers(r, sender.at, sender.end, w) === undefined) return false
      w.lit(SINGLE_SENDER_END)
      return true
    }
  }
}

/**
 * Multi-agent (`feePayer` false) or fee-payer signature: the sender, the secondary signers'
 * addresses and signatures, and the fee payer's; false when the sender or fee payer is missing
 * or sent twice, or a signer's shape is left to the decoder.
 */
function signers(r: WireReader, at: number, end: number, w: TextWriter, feePayer: boolean): boolean {
  let sender = -1
  let senderEnd = -1
  const addresses: string[] = []
  const secondary: Ranges = []
  let payerAddress = ''
  let payer = -1
  let payerEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      if (sender >= 0) return false
      senderEnd = r.lengthEnd(end)
      sender = r.pos
      r.pos = senderEnd
    } else if (tag === ((2 << 3) | 2)) addresses.push(r.string(end))
    else if (tag === ((3 << 3) | 2)) {
      const stop = r.lengthEnd(end)
      secondary.push(r.pos, stop)
      r.pos = stop
    } else if (feePayer && tag === ((4 << 3) | 2)) payerAddress = r.string(end)
    else if (feePayer && tag === ((5 << 3) | 2)) {
      if (payer >= 0) return false
      payerEnd = r.lengthEnd(end)
      payer = r.pos
      r.pos = payerEnd
    } else other(r, tag, end, feePayer ? 0b111110 : 0b1110)
  }
  if (sender < 0 || (feePayer && payer < 0)) return false
  w.lit(SENDER)
  if (!account(r, sender, senderEnd, w)) return false
  w.lit(SECONDARY_ADDRESSES)
  for (let i = 0; i < addresses.length; i++) {
    if (i > 0) w.lit(COMMA)
    w.quoted(shortAddress(addresses[i] as string))
  }
  w.lit(SECONDARY_SIGNERS)
  for (let i = 0; i < secondary.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    if (!account(r, secondary[i] as number, secondary[i + 1] as number, w)) return false
  }
  if (!feePayer) {
    w.lit(MULTI_AGENT_END)
    return true
  }
  w.lit(FEE_PAYER_ADDRESS)
  w.quoted(shortAddress(payerAddress))
  w.lit(FEE_PAYER_SIGNER)
  if (!account(r, payer, payerEnd, w)) return false
  w.lit(FEE_PAYER_END)
  return true
}
