import type { TransactionJson } from '../../../ledger/store/types.js'
import type { Transaction, TransactionInfo, ValidatorTransaction } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { hex, micros, shortAddress } from './hex.js'
import { changeJson, eventJson, payloadJson, writeSetJson } from './payload.js'
import { signatureJson } from './signature.js'

type Json = Record<string, unknown>

/** `TransactionInfo` fields in the node's order; proto3 leaves defaults out (`gas_used` 0, `success` false). */
function infoJson(version: string, info: TransactionInfo | undefined): Json {
  if (info === undefined) {
    return { version, hash: '0x', state_change_hash: '0x', event_root_hash: '0x', state_checkpoint_hash: null, gas_used: '0', success: false, vm_status: '', accumulator_root_hash: '0x', changes: [] }
  }
  return {
    version,
    hash: hex(info.hash),
    state_change_hash: hex(info.stateChangeHash),
    event_root_hash: hex(info.eventRootHash),
    state_checkpoint_hash: info.stateCheckpointHash === undefined ? null : hex(info.stateCheckpointHash),
    gas_used: info.gasUsed,
    success: info.success,
    vm_status: info.vmStatus,
    accumulator_root_hash: hex(info.accumulatorRootHash),
    changes: info.changes.map(changeJson),
  }
}

function validatorJson(v: ValidatorTransaction): Json {
  const events = v.events.map(eventJson)
  const kind = v.ValidatorTransactionType
  if (kind.case === 'dkgUpdate') {
    const t = kind.value.dkgTranscript
    return { events, dkg_transcript: { epoch: String(t?.epoch ?? 0n), author: shortAddress(t?.author ?? '0x0'), payload: hex(t?.payload ?? new Uint8Array()) }, validator_transaction_type: 'dkg_result' }
  }
  const out: Json = { events }
  if (kind.case === 'observedJwkUpdate') {
    const q = kind.value.quorumCertifiedUpdate
    const u = q?.update
    out.quorum_certified_update = {
      update: {
        issuer: u?.issuer ?? '',
        version: Number(u?.version ?? 0n),
        jwks: (u?.jwks ?? []).map((j) =>
          j.JwkType.case === 'rsa'
            ? { kid: j.JwkType.value.kid, kty: j.JwkType.value.kty, alg: j.JwkType.value.alg, e: j.JwkType.value.e, n: j.JwkType.value.n }
            : { id: [...(j.JwkType.value?.id ?? [])], payload: [...(j.JwkType.value?.payload ?? [])] },
        ),
      },
      multi_sig: { signer_indices: (q?.multiSig?.signerIndices ?? []).map(Number), sig: hex(q?.multiSig?.sig ?? new Uint8Array()) },
    }
  }
  // A validator transaction whose kind the stream left out has no kind field to write.
  return kind.case === undefined ? out : { ...out, validator_transaction_type: 'observed_jwk_update' }
}

/**
 * One stream transaction (`aptos.transaction.v1.Transaction`) as the node's REST API serves it
 * (`GET /v1/transactions/by_version/{v}`): the same fields in the same order, hashes and bytes
 * as `0x` hex, addresses in the short form, event data, resources and arguments parsed from the
 * JSON text the stream sends, proto3's omitted defaults written out (`sequence_number` "0",
 * `gas_used` "0", `success` false). `block_height` and `epoch` are not part of the node's
 * transaction JSON (the block metadata carries `epoch`); `size_info` has no place in it.
 *
 * @example transactionJson(tx).type // 'user_transaction'
 */
export function transactionJson(tx: Transaction): TransactionJson {
  const info = infoJson(tx.version, tx.info)
  const timestamp = micros(tx.timestamp)
  const d = tx.txnData
  switch (d.case) {
    case 'user': {
      const r = d.value.request
      const payload = r?.payload
      const extra = payload?.extraConfig.case === 'extraConfigV1' ? payload.extraConfig.value : undefined
      // Fields are added to the info object in the node's order rather than spread into a new
      // one: an object spread of this size costs more than the rest of the conversion.
      const out = info
      out.sender = shortAddress(r?.sender ?? '0x0')
      out.sequence_number = r?.sequenceNumber ?? '0'
      out.max_gas_amount = r?.maxGasAmount ?? '0'
      out.gas_unit_price = r?.gasUnitPrice ?? '0'
      out.expiration_timestamp_secs = String(r?.expirationTimestampSecs?.seconds ?? 0n)
      out.payload = payloadJson(payload)
      const signature = signatureJson(r?.signature)
      if (signature !== null) out.signature = signature
      out.replay_protection_nonce = extra?.replayProtectionNonce === undefined ? null : String(extra.replayProtectionNonce)
      out.events = d.value.events.map(eventJson)
      out.timestamp = timestamp
      out.type = 'user_transaction'
      return out as unknown as TransactionJson
    }
    case 'blockMetadata': {
      const m = d.value
      const out = info
      out.id = m.id
      out.epoch = tx.epoch
      out.round = m.round
      out.events = m.events.map(eventJson)
      out.previous_block_votes_bitvec = Array.from(m.previousBlockVotesBitvec)
      out.proposer = shortAddress(m.proposer)
      out.failed_proposer_indices = m.failedProposerIndices.slice()
      out.timestamp = timestamp
      out.type = 'block_metadata_transaction'
      return out as unknown as TransactionJson
    }
    case 'stateCheckpoint':
      info.timestamp = timestamp
      info.type = 'state_checkpoint_transaction'
      return info as unknown as TransactionJson
    case 'blockEpilogue': {
      const e = d.value.blockEndInfo
      const out = info
      out.timestamp = timestamp
      out.block_end_info =
        e === undefined
          ? null
          : { block_gas_limit_reached: e.blockGasLimitReached, block_output_limit_reached: e.blockOutputLimitReached, block_effective_block_gas_units: Number(e.blockEffectiveBlockGasUnits), block_approx_output_size: Number(e.blockApproxOutputSize) }
      out.type = 'block_epilogue_transaction'
      return out as unknown as TransactionJson
    }
    case 'genesis':
      return { ...info, payload: { write_set: writeSetJson(d.value.payload), type: 'write_set_payload' }, events: d.value.events.map(eventJson), type: 'genesis_transaction' } as unknown as TransactionJson
    case 'validator':
      return { ...info, ...validatorJson(d.value), timestamp, type: 'validator_transaction' } as unknown as TransactionJson
    default:
      throw new Error(`transaction ${tx.version}: the stream sent a ${d.case ?? 'empty'} transaction, which the node's REST API does not serve`)
  }
}
