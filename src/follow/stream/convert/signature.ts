import type { AccountSignature, AnyPublicKey, AnySignature, MultiEd25519Signature, Signature } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { AnyPublicKey_Type, AnySignature_Type } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { hex, shortAddress } from './hex.js'

type Json = Record<string, unknown>

const PUBLIC_KEY: Record<AnyPublicKey_Type, string> = {
  [AnyPublicKey_Type.UNSPECIFIED]: 'unspecified',
  [AnyPublicKey_Type.ED25519]: 'ed25519',
  [AnyPublicKey_Type.SECP256K1_ECDSA]: 'secp256k1_ecdsa',
  [AnyPublicKey_Type.SECP256R1_ECDSA]: 'secp256r1_ecdsa',
  [AnyPublicKey_Type.KEYLESS]: 'keyless',
  [AnyPublicKey_Type.FEDERATED_KEYLESS]: 'federated_keyless',
}

const ANY_SIGNATURE: Record<AnySignature_Type, string> = {
  [AnySignature_Type.UNSPECIFIED]: 'unspecified',
  [AnySignature_Type.ED25519]: 'ed25519',
  [AnySignature_Type.SECP256K1_ECDSA]: 'secp256k1_ecdsa',
  [AnySignature_Type.WEBAUTHN]: 'web_authn',
  [AnySignature_Type.KEYLESS]: 'keyless',
}

/**
 * Multi-ed25519 `bitmap` of the node (4 bytes, bit i of the key list is bit `7 - i % 8` of byte
 * `i / 8`, aptos-crypto `MultiEd25519Signature::bitmap`) from the stream's `public_key_indices`.
 */
export function bitmapOf(indices: readonly number[]): string {
  const bytes = new Uint8Array(4)
  for (const i of indices) if (i < 32) bytes[i >> 3] = (bytes[i >> 3] as number) | (0x80 >> (i & 7))
  return hex(bytes)
}

function multiEd25519(s: MultiEd25519Signature): Json {
  return { public_keys: s.publicKeys.map(hex), signatures: s.signatures.map(hex), threshold: s.threshold, bitmap: bitmapOf(s.publicKeyIndices) }
}

/** The node's name of an `AnyPublicKey.type` (`unspecified` for a value the schema does not name). */
export function publicKeyType(type: number): string {
  return PUBLIC_KEY[type as AnyPublicKey_Type] ?? 'unspecified'
}

/** The node's name of an `AnySignature.type` (`unspecified` for a value the schema does not name). */
export function anySignatureType(type: number): string {
  return ANY_SIGNATURE[type as AnySignature_Type] ?? 'unspecified'
}

function publicKey(k: AnyPublicKey | undefined): Json {
  return { value: k === undefined ? '0x' : hex(k.publicKey), type: publicKeyType(k?.type ?? AnyPublicKey_Type.UNSPECIFIED) }
}

/** The signature bytes: the variant's (aptos-core ≥ 1.10), else the deprecated `signature` field. */
function anySignature(s: AnySignature | undefined): Json {
  const bytes = s === undefined ? new Uint8Array() : s.signatureVariant.case === undefined ? s.signature : s.signatureVariant.value.signature
  return { value: hex(bytes), type: anySignatureType(s?.type ?? AnySignature_Type.UNSPECIFIED) }
}

/** The node's `AccountSignature` JSON of a stream account signature. */
export function accountSignatureJson(a: AccountSignature | undefined): Json {
  const s = a?.signature
  switch (s?.case) {
    case 'ed25519':
      return { public_key: hex(s.value.publicKey), signature: hex(s.value.signature), type: 'ed25519_signature' }
    case 'multiEd25519':
      return { ...multiEd25519(s.value), type: 'multi_ed25519_signature' }
    case 'singleKeySignature':
      return { public_key: publicKey(s.value.publicKey), signature: anySignature(s.value.signature), type: 'single_key_signature' }
    case 'multiKeySignature':
      return {
        public_keys: s.value.publicKeys.map(publicKey),
        signatures: s.value.signatures.map((x) => ({ index: x.index, signature: anySignature(x.signature) })),
        signatures_required: s.value.signaturesRequired,
        type: 'multi_key_signature',
      }
    case 'abstraction':
      return { function_info: s.value.functionInfo, auth_data: hex(s.value.signature), type: 'abstract_signature' }
    default:
      return { type: 'no_account_signature' }
  }
}

/** The node's `TransactionSignature` JSON of a stream signature; `null` when the stream has none. */
export function signatureJson(sig: Signature | undefined): Json | null {
  const s = sig?.signature
  switch (s?.case) {
    case 'ed25519':
      return { public_key: hex(s.value.publicKey), signature: hex(s.value.signature), type: 'ed25519_signature' }
    case 'multiEd25519':
      return { ...multiEd25519(s.value), type: 'multi_ed25519_signature' }
    case 'multiAgent':
      return { sender: accountSignatureJson(s.value.sender), secondary_signer_addresses: s.value.secondarySignerAddresses.map(shortAddress), secondary_signers: s.value.secondarySigners.map(accountSignatureJson), type: 'multi_agent_signature' }
    case 'feePayer':
      return {
        sender: accountSignatureJson(s.value.sender),
        secondary_signer_addresses: s.value.secondarySignerAddresses.map(shortAddress),
        secondary_signers: s.value.secondarySigners.map(accountSignatureJson),
        fee_payer_address: shortAddress(s.value.feePayerAddress),
        fee_payer_signer: accountSignatureJson(s.value.feePayerSigner),
        type: 'fee_payer_signature',
      }
    case 'singleSender':
      return { ...accountSignatureJson(s.value.sender), type: 'single_sender' }
    default:
      return null
  }
}
