import { anySignatureType, bitmapOf, publicKeyType } from '../convert/signature.js'
import { other } from './move.js'
import { ascii, type TextWriter } from './text-writer.js'
import type { Ranges } from './user-text.js'
import type { WireReader } from './wire-reader.js'

// Account signatures (a signer's part of a user transaction's signature: ed25519,
// multi-ed25519, single key and multi key of any key and signature type, abstraction) written
// straight from their wire bytes for signature-text.ts, which writes the signature around them
// and leaves every shape these refuse (false or `undefined`) to the decoder.

const COMMA = ascii(',')
const CLOSE_OBJECT = ascii('}')
const PUBLIC_KEY = ascii('{"public_key":')
const SIGNATURE = ascii(',"signature":')
const PUBLIC_KEYS = ascii('{"public_keys":[')
const SIGNATURES = ascii('],"signatures":[')
const THRESHOLD = ascii('],"threshold":')
const BITMAP = ascii(',"bitmap":')
const VALUE = ascii('{"value":')
const TYPE = ascii(',"type":')
const INDEX = ascii('{"index":')
const SIGNATURES_REQUIRED = ascii('],"signatures_required":')
const FUNCTION_INFO = ascii('{"function_info":')
const AUTH_DATA = ascii(',"auth_data":')

/** Where the one member of a oneof lies: its field number and `[at, end)`. */
export interface Member {
  field: number
  at: number
  end: number
}

/**
 * The one member of the message at `[at, end)` among the fields in `members` (a bit per field
 * number), beside its kind (field 1, a varint); `undefined` when it has none, more than one, or
 * any other field, which the decoder takes.
 */
export function soleMember(r: WireReader, at: number, end: number, members: number): Member | undefined {
  let field = 0
  let member = -1
  let memberEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    const f = tag >>> 3
    if ((tag & 7) === 2 && f < 32 && ((members >>> f) & 1) === 1) {
      if (member >= 0) return undefined
      field = f
      memberEnd = r.lengthEnd(end)
      member = r.pos
      r.pos = memberEnd
    } else if (tag === ((1 << 3) | 0)) r.varint32(end)
    else return undefined
  }
  return member < 0 ? undefined : { field, at: member, end: memberEnd }
}

/** An `AccountSignature` as the node's JSON; false for a shape left to the decoder. */
export function account(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const type = accountMembers(r, at, end, w)
  if (type === undefined) return false
  w.lit(TYPE)
  w.plain(type)
  w.lit(CLOSE_OBJECT)
  return true
}

/**
 * An `AccountSignature`'s JSON up to its `type` member (`{` and the members before it), and that
 * type's name; `undefined` for no signature (`no_account_signature`) or a shape left to the decoder.
 */
export function accountMembers(r: WireReader, at: number, end: number, w: TextWriter): string | undefined {
  const m = soleMember(r, at, end, 0b11101100)
  if (m === undefined) return undefined
  switch (m.field) {
    case 2:
      ed25519(r, m.at, m.end, w)
      return 'ed25519_signature'
    case 3:
      multiEd25519(r, m.at, m.end, w)
      return 'multi_ed25519_signature'
    case 5:
      return singleKey(r, m.at, m.end, w) ? 'single_key_signature' : undefined
    case 6:
      return multiKey(r, m.at, m.end, w) ? 'multi_key_signature' : undefined
    default:
      return abstraction(r, m.at, m.end, w) ? 'abstract_signature' : undefined
  }
}

/** `{"public_key":"0x…","signature":"0x…"` of an `Ed25519Signature`. */
export function ed25519(r: WireReader, at: number, end: number, w: TextWriter): void {
  let keyAt = at
  let keyEnd = at
  let sigAt = at
  let sigEnd = at
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      keyEnd = r.lengthEnd(end)
      keyAt = r.pos
      r.pos = keyEnd
    } else if (tag === ((2 << 3) | 2)) {
      sigEnd = r.lengthEnd(end)
      sigAt = r.pos
      r.pos = sigEnd
    } else other(r, tag, end, 0b110)
  }
  w.lit(PUBLIC_KEY)
  w.hex(r.input, keyAt, keyEnd)
  w.lit(SIGNATURE)
  w.hex(r.input, sigAt, sigEnd)
}

/** `{"public_keys":[…],"signatures":[…],"threshold":n,"bitmap":"0x…"` of a `MultiEd25519Signature`. */
export function multiEd25519(r: WireReader, at: number, end: number, w: TextWriter): void {
  const keys: Ranges = []
  const sigs: Ranges = []
  const indices: number[] = []
  let threshold = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2) || tag === ((2 << 3) | 2)) {
      const stop = r.lengthEnd(end)
      ;(tag === ((1 << 3) | 2) ? keys : sigs).push(r.pos, stop)
      r.pos = stop
    } else if (tag === ((3 << 3) | 0)) threshold = r.varint32(end)
    else if (tag === ((4 << 3) | 0) || tag === ((4 << 3) | 2)) r.repeatedVarint(tag, end, indices, (e) => r.varint32(e))
    else other(r, tag, end, 0b11110)
  }
  w.lit(PUBLIC_KEYS)
  hexList(r, keys, w)
  w.lit(SIGNATURES)
  hexList(r, sigs, w)
  w.lit(THRESHOLD)
  w.decimal(threshold)
  w.lit(BITMAP)
  w.plain(bitmapOf(indices))
}

function hexList(r: WireReader, ranges: Ranges, w: TextWriter): void {
  for (let i = 0; i < ranges.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    w.hex(r.input, ranges[i] as number, ranges[i + 1] as number)
  }
}

/** `{"public_key":{…},"signature":{…}` of a `SingleKeySignature`; false when a member comes twice. */
function singleKey(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let key = -1
  let keyEnd = -1
  let sig = -1
  let sigEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      if (key >= 0) return false
      keyEnd = r.lengthEnd(end)
      key = r.pos
      r.pos = keyEnd
    } else if (tag === ((2 << 3) | 2)) {
      if (sig >= 0) return false
      sigEnd = r.lengthEnd(end)
      sig = r.pos
      r.pos = sigEnd
    } else other(r, tag, end, 0b110)
  }
  // A member left out is written as the decoder's empty message is: `{"value":"0x","type":"unspecified"}`.
  w.lit(PUBLIC_KEY)
  anyPublicKey(r, key, keyEnd, w)
  w.lit(SIGNATURE)
  return anySignature(r, sig, sigEnd, w)
}

/** `{"public_keys":[…],"signatures":[{"index":i,"signature":{…}},…],"signatures_required":n` of a `MultiKeySignature`; false when an indexed signature's signature comes twice. */
function multiKey(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const keys: Ranges = []
  const sigs: Ranges = []
  let required = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2) || tag === ((2 << 3) | 2)) {
      const stop = r.lengthEnd(end)
      ;(tag === ((1 << 3) | 2) ? keys : sigs).push(r.pos, stop)
      r.pos = stop
    } else if (tag === ((3 << 3) | 0)) required = r.varint32(end)
    else other(r, tag, end, 0b1110)
  }
  w.lit(PUBLIC_KEYS)
  for (let i = 0; i < keys.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    anyPublicKey(r, keys[i] as number, keys[i + 1] as number, w)
  }
  w.lit(SIGNATURES)
  for (let i = 0; i < sigs.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    const stop = sigs[i + 1] as number
    let index = 0
    let sig = -1
    let sigEnd = -1
    r.pos = sigs[i] as number
    while (r.pos < stop) {
      const tag = r.tag(stop)
      if (tag === ((1 << 3) | 0)) index = r.varint32(stop)
      else if (tag === ((2 << 3) | 2)) {
        if (sig >= 0) return false
        sigEnd = r.lengthEnd(stop)
        sig = r.pos
        r.pos = sigEnd
      } else other(r, tag, stop, 0b110)
    }
    w.lit(INDEX)
    w.decimal(index)
    w.lit(SIGNATURE)
    if (!anySignature(r, sig, sigEnd, w)) return false
    w.lit(CLOSE_OBJECT)
  }
  w.lit(SIGNATURES_REQUIRED)
  w.decimal(required)
  return true
}

/** `{"value":"0x…","type":"…"}` of the `AnyPublicKey` at `[at, end)` (`at` < 0: none, written as an empty one). */
function anyPublicKey(r: WireReader, at: number, end: number, w: TextWriter): void {
  let type = 0
  let keyAt = 0
  let keyEnd = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) type = r.varint32(end) | 0
    else if (tag === ((2 << 3) | 2)) {
      keyEnd = r.lengthEnd(end)
      keyAt = r.pos
      r.pos = keyEnd
    } else other(r, tag, end, 0b110)
  }
  w.lit(VALUE)
  w.hex(r.input, keyAt, keyEnd)
  w.lit(TYPE)
  w.plain(publicKeyType(type))
  w.lit(CLOSE_OBJECT)
}

/**
 * `{"value":"0x…","type":"…"}` of the `AnySignature` at `[at, end)` (`at` < 0: none): the bytes
 * of its signature variant (fields 3–6, each `{ bytes signature = 1 }`), else of its deprecated
 * `signature`; false when variants come twice (protobuf merges or replaces them).
 */
function anySignature(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let type = 0
  let sigAt = 0
  let sigEnd = 0
  let variant = -1
  let variantEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    const f = tag >>> 3
    if (tag === ((1 << 3) | 0)) type = r.varint32(end) | 0
    else if (tag === ((2 << 3) | 2)) {
      sigEnd = r.lengthEnd(end)
      sigAt = r.pos
      r.pos = sigEnd
    } else if ((tag & 7) === 2 && f >= 3 && f <= 6) {
      if (variant >= 0) return false
      variantEnd = r.lengthEnd(end)
      variant = r.pos
      r.pos = variantEnd
    } else other(r, tag, end, 0b1111110)
  }
  if (variant >= 0) {
    sigAt = variant
    sigEnd = variant
    r.pos = variant
    while (r.pos < variantEnd) {
      const tag = r.tag(variantEnd)
      if (tag === ((1 << 3) | 2)) {
        sigEnd = r.lengthEnd(variantEnd)
        sigAt = r.pos
        r.pos = sigEnd
      } else other(r, tag, variantEnd, 0b10)
    }
  }
  w.lit(VALUE)
  w.hex(r.input, sigAt, sigEnd)
  w.lit(TYPE)
  w.plain(anySignatureType(type))
  w.lit(CLOSE_OBJECT)
  return true
}

/**
 * `{"function_info":"…","auth_data":"0x…"` of an `AbstractionSignature`; false (nothing written)
 * when `function_info` comes twice, as the decoder checks every occurrence's UTF-8.
 */
function abstraction(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let infoAt = at
  let infoEnd = at
  let dataAt = at
  let dataEnd = at
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      if (infoAt !== at) return false
      infoEnd = r.lengthEnd(end)
      infoAt = r.pos
      r.pos = infoEnd
    } else if (tag === ((2 << 3) | 2)) {
      dataEnd = r.lengthEnd(end)
      dataAt = r.pos
      r.pos = dataEnd
    } else other(r, tag, end, 0b110)
  }
  w.lit(FUNCTION_INFO)
  w.string(r, infoAt, infoEnd)
  w.lit(AUTH_DATA)
  w.hex(r.input, dataAt, dataEnd)
  return true
}
