import type {
  ValidatorTransaction,
  ValidatorTransaction_DkgUpdate,
  ValidatorTransaction_DkgUpdate_DkgTranscript,
  ValidatorTransaction_ObservedJwkUpdate,
  ValidatorTransaction_ObservedJwkUpdate_ExportedAggregateSignature,
  ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs,
  ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK,
  ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK_RSA,
  ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK_UnsupportedJWK,
  ValidatorTransaction_ObservedJwkUpdate_QuorumCertifiedUpdate,
} from '../gen/aptos/transaction/v1/transaction_pb.js'
import { other } from './move.js'
import { event } from './payload.js'
import type { WireReader } from './wire-reader.js'

// Decoders of the validator transaction (JWK updates, DKG transcripts), written as in move.ts.

type Jwk = ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK
type Rsa = ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK_RSA
type UnsupportedJwk = ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs_JWK_UnsupportedJWK
type ProviderJwks = ValidatorTransaction_ObservedJwkUpdate_ExportedProviderJWKs
type AggregateSignature = ValidatorTransaction_ObservedJwkUpdate_ExportedAggregateSignature
type QuorumCertifiedUpdate = ValidatorTransaction_ObservedJwkUpdate_QuorumCertifiedUpdate
const JWK = 'aptos.transaction.v1.ValidatorTransaction.ObservedJwkUpdate.ExportedProviderJWKs.JWK'

function rsa(r: WireReader, end: number, m: Rsa = { $typeName: `${JWK}.RSA`, kid: '', kty: '', alg: '', e: '', n: '' }): Rsa {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.kid = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.kty = r.string(end)
    else if (tag === ((3 << 3) | 2)) m.alg = r.string(end)
    else if (tag === ((4 << 3) | 2)) m.e = r.string(end)
    else if (tag === ((5 << 3) | 2)) m.n = r.string(end)
    else other(r, tag, end, 0b111110)
  }
  return m
}

function unsupportedJwk(r: WireReader, end: number, m: UnsupportedJwk = { $typeName: `${JWK}.UnsupportedJWK`, id: new Uint8Array(0), payload: new Uint8Array(0) }): UnsupportedJwk {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.id = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.payload = r.bytes(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function jwk(r: WireReader, end: number): Jwk {
  const m: Jwk = { $typeName: JWK, JwkType: { case: undefined } }
  while (r.pos < end) {
    const tag = r.tag(end)
    const k = m.JwkType
    if (tag === ((1 << 3) | 2)) m.JwkType = { case: 'unsupportedJwk', value: unsupportedJwk(r, r.lengthEnd(end), k.case === 'unsupportedJwk' ? k.value : undefined) }
    else if (tag === ((2 << 3) | 2)) m.JwkType = { case: 'rsa', value: rsa(r, r.lengthEnd(end), k.case === 'rsa' ? k.value : undefined) }
    else other(r, tag, end, 0b110)
  }
  return m
}

function providerJwks(r: WireReader, end: number, m: ProviderJwks = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.ObservedJwkUpdate.ExportedProviderJWKs', issuer: '', version: 0n, jwks: [] }): ProviderJwks {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.issuer = r.string(end)
    else if (tag === ((2 << 3) | 0)) m.version = r.uint64(end)
    else if (tag === ((3 << 3) | 2)) m.jwks.push(jwk(r, r.lengthEnd(end)))
    else other(r, tag, end, 0b1110)
  }
  return m
}

function aggregateSignature(
  r: WireReader,
  end: number,
  m: AggregateSignature = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.ObservedJwkUpdate.ExportedAggregateSignature', signerIndices: [], sig: new Uint8Array(0) },
): AggregateSignature {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag >>> 3 === 1) r.repeatedVarint(tag, end, m.signerIndices, (e) => r.uint64(e))
    else if (tag === ((2 << 3) | 2)) m.sig = r.bytes(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function quorumCertifiedUpdate(r: WireReader, end: number, m: QuorumCertifiedUpdate = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.ObservedJwkUpdate.QuorumCertifiedUpdate' }): QuorumCertifiedUpdate {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.update = providerJwks(r, r.lengthEnd(end), m.update)
    else if (tag === ((2 << 3) | 2)) m.multiSig = aggregateSignature(r, r.lengthEnd(end), m.multiSig)
    else other(r, tag, end, 0b110)
  }
  return m
}

function observedJwkUpdate(r: WireReader, end: number, m: ValidatorTransaction_ObservedJwkUpdate = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.ObservedJwkUpdate' }): ValidatorTransaction_ObservedJwkUpdate {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.quorumCertifiedUpdate = quorumCertifiedUpdate(r, r.lengthEnd(end), m.quorumCertifiedUpdate)
    else other(r, tag, end, 0b10)
  }
  return m
}

function dkgTranscript(
  r: WireReader,
  end: number,
  m: ValidatorTransaction_DkgUpdate_DkgTranscript = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.DkgUpdate.DkgTranscript', epoch: 0n, author: '', payload: new Uint8Array(0) },
): ValidatorTransaction_DkgUpdate_DkgTranscript {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.epoch = r.uint64(end)
    else if (tag === ((2 << 3) | 2)) m.author = r.string(end)
    else if (tag === ((3 << 3) | 2)) m.payload = r.bytes(end)
    else other(r, tag, end, 0b1110)
  }
  return m
}

function dkgUpdate(r: WireReader, end: number, m: ValidatorTransaction_DkgUpdate = { $typeName: 'aptos.transaction.v1.ValidatorTransaction.DkgUpdate' }): ValidatorTransaction_DkgUpdate {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.dkgTranscript = dkgTranscript(r, r.lengthEnd(end), m.dkgTranscript)
    else other(r, tag, end, 0b10)
  }
  return m
}

/** An `aptos.transaction.v1.ValidatorTransaction` from `r.pos` to `end`, merged into `m` when the field repeats. */
export function validator(r: WireReader, end: number, m: ValidatorTransaction = { $typeName: 'aptos.transaction.v1.ValidatorTransaction', ValidatorTransactionType: { case: undefined }, events: [] }): ValidatorTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    const k = m.ValidatorTransactionType
    if (tag === ((1 << 3) | 2)) m.ValidatorTransactionType = { case: 'observedJwkUpdate', value: observedJwkUpdate(r, r.lengthEnd(end), k.case === 'observedJwkUpdate' ? k.value : undefined) }
    else if (tag === ((2 << 3) | 2)) m.ValidatorTransactionType = { case: 'dkgUpdate', value: dkgUpdate(r, r.lengthEnd(end), k.case === 'dkgUpdate' ? k.value : undefined) }
    else if (tag === ((3 << 3) | 2)) m.events.push(event(r, r.lengthEnd(end)))
    else other(r, tag, end, 0b1110)
  }
  return m
}
