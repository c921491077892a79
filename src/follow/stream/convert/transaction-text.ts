import type { TransactionJson } from '../../../ledger/store/types.js'
import type { Transaction } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { hex, micros, shortAddress } from './hex.js'
import { changesText, eventsText, payloadText, signatureText } from './payload-text.js'
import { transactionJson } from './transaction.js'

/** One stream transaction as the writer takes it: its node JSON text and the fields `checkBlock` reads. */
export interface TransactionText {
  /** `JSON.stringify(transactionJson(tx))`, byte for byte. */
  json: string
  /**
   * The transaction cut down to what `checkBlock` reads (`version`, `type`; for a user
   * transaction `sender`, `sequence_number`, `replay_protection_nonce`, `gas_unit_price`,
   * `gas_used`, `payload`; `epoch`; `block_end_info`), as the block scanner's skeleton is.
   */
  skeleton: TransactionJson
}

type Json = Record<string, unknown>

/** `,"key":value` as `JSON.stringify` writes a member, nothing for `undefined` (which it leaves out). */
function member(key: string, value: unknown): string {
  const text = JSON.stringify(value)
  return text === undefined ? '' : `,"${key}":${text}`
}

/**
 * `transactionJson(tx)` written straight as its JSON text, with the few fields the writer's
 * block check reads beside it: the common kinds (user, block-metadata, state-checkpoint,
 * block-epilogue) are written member by member from the message, without the transaction
 * object that `JSON.stringify` would walk again; genesis and validator transactions, and a
 * transaction without its info, are rare and go through `transactionJson`. The text must stay
 * the bytes `JSON.stringify(transactionJson(tx))` writes (test/follow/stream/convert.test.ts
 * holds them equal on the sample chain and the mainnet fixtures), so members come in the
 * node's order, each written by `JSON.stringify` unless it is hex or a u64's decimal (the
 * message's u64 strings are digits whichever decoder made it), which need no escaping.
 *
 * @throws Error for a transaction kind the node's REST API does not serve, as `transactionJson`.
 */
export function transactionText(tx: Transaction): TransactionText {
  const info = tx.info
  const d = tx.txnData
  if (info === undefined || (d.case !== 'user' && d.case !== 'blockMetadata' && d.case !== 'stateCheckpoint' && d.case !== 'blockEpilogue')) {
    const json = transactionJson(tx)
    return { json: JSON.stringify(json), skeleton: json }
  }
  const version = tx.version
  const gasUsed = info.gasUsed
  let text =
    `{"version":"${version}","hash":"${hex(info.hash)}","state_change_hash":"${hex(info.stateChangeHash)}","event_root_hash":"${hex(info.eventRootHash)}"` +
    `,"state_checkpoint_hash":${info.stateCheckpointHash === undefined ? 'null' : `"${hex(info.stateCheckpointHash)}"`}` +
    `,"gas_used":"${gasUsed}","success":${info.success ? 'true' : 'false'}${member('vm_status', info.vmStatus)},"accumulator_root_hash":"${hex(info.accumulatorRootHash)}"` +
    `,"changes":${changesText(info.changes)}`
  const timestamp = micros(tx.timestamp)
  switch (d.case) {
    case 'user': {
      const r = d.value.request
      const payload = r?.payload
      const extra = payload?.extraConfig.case === 'extraConfigV1' ? payload.extraConfig.value : undefined
      const sender = shortAddress(r?.sender ?? '0x0')
      const sequence_number = r?.sequenceNumber ?? '0'
      const gas_unit_price = r?.gasUnitPrice ?? '0'
      const replay_protection_nonce = extra?.replayProtectionNonce === undefined ? null : String(extra.replayProtectionNonce)
      const p = payloadText(payload)
      const signature = signatureText(r?.signature)
      text +=
        `${member('sender', sender)},"sequence_number":"${sequence_number}","max_gas_amount":"${r?.maxGasAmount ?? '0'}","gas_unit_price":"${gas_unit_price}"` +
        `,"expiration_timestamp_secs":"${String(r?.expirationTimestampSecs?.seconds ?? 0n)}","payload":${p.text}${signature === undefined ? '' : `,"signature":${signature}`}` +
        `,"replay_protection_nonce":${replay_protection_nonce === null ? 'null' : `"${replay_protection_nonce}"`},"events":${eventsText(d.value.events)},"timestamp":"${timestamp}","type":"user_transaction"}`
      const skeleton: Json = { version, gas_used: gasUsed, sender, sequence_number, gas_unit_price, payload: p.skeleton, replay_protection_nonce, type: 'user_transaction' }
      return { json: text, skeleton: skeleton as unknown as TransactionJson }
    }
    case 'blockMetadata': {
      const m = d.value
      text +=
        `${member('id', m.id)},"epoch":"${tx.epoch}","round":"${m.round}","events":${eventsText(m.events)}` +
        `,"previous_block_votes_bitvec":${JSON.stringify(Array.from(m.previousBlockVotesBitvec))}${member('proposer', shortAddress(m.proposer))}` +
        `,"failed_proposer_indices":${JSON.stringify(m.failedProposerIndices)},"timestamp":"${timestamp}","type":"block_metadata_transaction"}`
      return { json: text, skeleton: { version, epoch: tx.epoch, type: 'block_metadata_transaction' } as unknown as TransactionJson }
    }
    case 'stateCheckpoint':
      text += `,"timestamp":"${timestamp}","type":"state_checkpoint_transaction"}`
      return { json: text, skeleton: { version, type: 'state_checkpoint_transaction' } as unknown as TransactionJson }
    default: {
      const e = d.value.blockEndInfo
      const block_end_info =
        e === undefined
          ? null
          : { block_gas_limit_reached: e.blockGasLimitReached, block_output_limit_reached: e.blockOutputLimitReached, block_effective_block_gas_units: Number(e.blockEffectiveBlockGasUnits), block_approx_output_size: Number(e.blockApproxOutputSize) }
      text += `,"timestamp":"${timestamp}"${member('block_end_info', block_end_info)},"type":"block_epilogue_transaction"}`
      return { json: text, skeleton: { version, block_end_info, type: 'block_epilogue_transaction' } as unknown as TransactionJson }
    }
  }
}
