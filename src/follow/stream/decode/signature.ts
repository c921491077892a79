import type {
  AbstractionSignature,
  AccountSignature,
  AnyPublicKey,
  AnySignature,
  Ed25519,
  Ed25519Signature,
  FeePayerSignature,
  IndexedSignature,
  Keyless,
  MultiAgentSignature,
  MultiEd25519Signature,
  MultiKeySignature,
  Secp256k1Ecdsa,
  Signature,
  SingleKeySignature,
  SingleSender,
  WebAuthn,
} from '../gen/aptos/transaction/v1/transaction_pb.js'
import { other } from './move.js'
import type { WireReader } from './wire-reader.js'

// Decoders of the signature messages, written as in move.ts (merge into `m`, `other` for the rest).

function ed25519Signature(r: WireReader, end: number, m: Ed25519Signature = { $typeName: 'aptos.transaction.v1.Ed25519Signature', publicKey: new Uint8Array(0), signature: new Uint8Array(0) }): Ed25519Signature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.publicKey = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.signature = r.bytes(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function multiEd25519Signature(
  r: WireReader,
  end: number,
  m: MultiEd25519Signature = { $typeName: 'aptos.transaction.v1.MultiEd25519Signature', publicKeys: [], signatures: [], threshold: 0, publicKeyIndices: [] },
): MultiEd25519Signature {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.publicKeys.push(r.bytes(end))
        break
      case (2 << 3) | 2:
        m.signatures.push(r.bytes(end))
        break
      case (3 << 3) | 0:
        m.threshold = r.varint32(end)
        break
      case (4 << 3) | 0:
      case (4 << 3) | 2:
        r.repeatedVarint(tag, end, m.publicKeyIndices, (e) => r.varint32(e))
        break
      default:
        other(r, tag, end, 0b11110)
    }
  }
  return m
}

type SignatureBytes = Ed25519 | Secp256k1Ecdsa | WebAuthn | Keyless

/** The one-field `{ bytes signature = 1; }` messages of `AnySignature.signature_variant`. */
function signatureBytes<T extends SignatureBytes>(r: WireReader, end: number, m: T): T {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.signature = r.bytes(end)
    else other(r, tag, end, 0b10)
  }
  return m
}

function anySignature(r: WireReader, end: number, m: AnySignature = { $typeName: 'aptos.transaction.v1.AnySignature', type: 0, signature: new Uint8Array(0), signatureVariant: { case: undefined } }): AnySignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    const v = m.signatureVariant
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (2 << 3) | 2:
        m.signature = r.bytes(end)
        break
      case (3 << 3) | 2:
        m.signatureVariant = { case: 'ed25519', value: signatureBytes(r, r.lengthEnd(end), v.case === 'ed25519' ? v.value : { $typeName: 'aptos.transaction.v1.Ed25519', signature: new Uint8Array(0) }) }
        break
      case (4 << 3) | 2:
        m.signatureVariant = { case: 'secp256k1Ecdsa', value: signatureBytes(r, r.lengthEnd(end), v.case === 'secp256k1Ecdsa' ? v.value : { $typeName: 'aptos.transaction.v1.Secp256k1Ecdsa', signature: new Uint8Array(0) }) }
        break
      case (5 << 3) | 2:
        m.signatureVariant = { case: 'webauthn', value: signatureBytes(r, r.lengthEnd(end), v.case === 'webauthn' ? v.value : { $typeName: 'aptos.transaction.v1.WebAuthn', signature: new Uint8Array(0) }) }
        break
      case (6 << 3) | 2:
        m.signatureVariant = { case: 'keyless', value: signatureBytes(r, r.lengthEnd(end), v.case === 'keyless' ? v.value : { $typeName: 'aptos.transaction.v1.Keyless', signature: new Uint8Array(0) }) }
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  return m
}

function anyPublicKey(r: WireReader, end: number, m: AnyPublicKey = { $typeName: 'aptos.transaction.v1.AnyPublicKey', type: 0, publicKey: new Uint8Array(0) }): AnyPublicKey {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.type = r.varint32(end) | 0
    else if (tag === ((2 << 3) | 2)) m.publicKey = r.bytes(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function singleKeySignature(r: WireReader, end: number, m: SingleKeySignature = { $typeName: 'aptos.transaction.v1.SingleKeySignature' }): SingleKeySignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.publicKey = anyPublicKey(r, r.lengthEnd(end), m.publicKey)
    else if (tag === ((2 << 3) | 2)) m.signature = anySignature(r, r.lengthEnd(end), m.signature)
    else other(r, tag, end, 0b110)
  }
  return m
}

function indexedSignature(r: WireReader, end: number): IndexedSignature {
  const m: IndexedSignature = { $typeName: 'aptos.transaction.v1.IndexedSignature', index: 0 }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.index = r.varint32(end)
    else if (tag === ((2 << 3) | 2)) m.signature = anySignature(r, r.lengthEnd(end), m.signature)
    else other(r, tag, end, 0b110)
  }
  return m
}

function multiKeySignature(r: WireReader, end: number, m: MultiKeySignature = { $typeName: 'aptos.transaction.v1.MultiKeySignature', publicKeys: [], signatures: [], signaturesRequired: 0 }): MultiKeySignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.publicKeys.push(anyPublicKey(r, r.lengthEnd(end)))
    else if (tag === ((2 << 3) | 2)) m.signatures.push(indexedSignature(r, r.lengthEnd(end)))
    else if (tag === ((3 << 3) | 0)) m.signaturesRequired = r.varint32(end)
    else other(r, tag, end, 0b1110)
  }
  return m
}

function abstractionSignature(r: WireReader, end: number, m: AbstractionSignature = { $typeName: 'aptos.transaction.v1.AbstractionSignature', functionInfo: '', signature: new Uint8Array(0) }): AbstractionSignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.functionInfo = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.signature = r.bytes(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function accountSignature(r: WireReader, end: number, m: AccountSignature = { $typeName: 'aptos.transaction.v1.AccountSignature', type: 0, signature: { case: undefined } }): AccountSignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    const s = m.signature
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (2 << 3) | 2:
        m.signature = { case: 'ed25519', value: ed25519Signature(r, r.lengthEnd(end), s.case === 'ed25519' ? s.value : undefined) }
        break
      case (3 << 3) | 2:
        m.signature = { case: 'multiEd25519', value: multiEd25519Signature(r, r.lengthEnd(end), s.case === 'multiEd25519' ? s.value : undefined) }
        break
      case (5 << 3) | 2:
        m.signature = { case: 'singleKeySignature', value: singleKeySignature(r, r.lengthEnd(end), s.case === 'singleKeySignature' ? s.value : undefined) }
        break
      case (6 << 3) | 2:
        m.signature = { case: 'multiKeySignature', value: multiKeySignature(r, r.lengthEnd(end), s.case === 'multiKeySignature' ? s.value : undefined) }
        break
      case (7 << 3) | 2:
        m.signature = { case: 'abstraction', value: abstractionSignature(r, r.lengthEnd(end), s.case === 'abstraction' ? s.value : undefined) }
        break
      default:
        other(r, tag, end, 0b11101110)
    }
  }
  return m
}

function signers(r: WireReader, tag: number, end: number, m: MultiAgentSignature | FeePayerSignature): boolean {
  if (tag === ((1 << 3) | 2)) m.sender = accountSignature(r, r.lengthEnd(end), m.sender)
  else if (tag === ((2 << 3) | 2)) m.secondarySignerAddresses.push(r.string(end))
  else if (tag === ((3 << 3) | 2)) m.secondarySigners.push(accountSignature(r, r.lengthEnd(end)))
  else return false
  return true
}

function multiAgentSignature(r: WireReader, end: number, m: MultiAgentSignature = { $typeName: 'aptos.transaction.v1.MultiAgentSignature', secondarySignerAddresses: [], secondarySigners: [] }): MultiAgentSignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (!signers(r, tag, end, m)) other(r, tag, end, 0b1110)
  }
  return m
}

function feePayerSignature(
  r: WireReader,
  end: number,
  m: FeePayerSignature = { $typeName: 'aptos.transaction.v1.FeePayerSignature', secondarySignerAddresses: [], secondarySigners: [], feePayerAddress: '' },
): FeePayerSignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (signers(r, tag, end, m)) continue
    if (tag === ((4 << 3) | 2)) m.feePayerAddress = r.string(end)
    else if (tag === ((5 << 3) | 2)) m.feePayerSigner = accountSignature(r, r.lengthEnd(end), m.feePayerSigner)
    else other(r, tag, end, 0b111110)
  }
  return m
}

function singleSender(r: WireReader, end: number, m: SingleSender = { $typeName: 'aptos.transaction.v1.SingleSender' }): SingleSender {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.sender = accountSignature(r, r.lengthEnd(end), m.sender)
    else other(r, tag, end, 0b10)
  }
  return m
}

/** `aptos.transaction.v1.Signature` (a user transaction's authenticator). */
export function signature(r: WireReader, end: number, m: Signature = { $typeName: 'aptos.transaction.v1.Signature', type: 0, signature: { case: undefined } }): Signature {
  while (r.pos < end) {
    const tag = r.tag(end)
    const s = m.signature
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (2 << 3) | 2:
        m.signature = { case: 'ed25519', value: ed25519Signature(r, r.lengthEnd(end), s.case === 'ed25519' ? s.value : undefined) }
        break
      case (3 << 3) | 2:
        m.signature = { case: 'multiEd25519', value: multiEd25519Signature(r, r.lengthEnd(end), s.case === 'multiEd25519' ? s.value : undefined) }
        break
      case (4 << 3) | 2:
        m.signature = { case: 'multiAgent', value: multiAgentSignature(r, r.lengthEnd(end), s.case === 'multiAgent' ? s.value : undefined) }
        break
      case (5 << 3) | 2:
        m.signature = { case: 'feePayer', value: feePayerSignature(r, r.lengthEnd(end), s.case === 'feePayer' ? s.value : undefined) }
        break
      case (7 << 3) | 2:
        m.signature = { case: 'singleSender', value: singleSender(r, r.lengthEnd(end), s.case === 'singleSender' ? s.value : undefined) }
        break
      default:
        other(r, tag, end, 0b10111110)
    }
  }
  return m
}
