import type { ProcessedRange, TransactionsResponse } from '../gen/aptos/indexer/v1/raw_data_pb.js'
import type {
  BlockEndInfo,
  BlockEpilogueTransaction,
  BlockMetadataTransaction,
  GenesisTransaction,
  ScheduledTransaction,
  StateCheckpointTransaction,
  Transaction,
  TransactionInfo,
  UserTransaction,
} from '../gen/aptos/transaction/v1/transaction_pb.js'
import { other } from './move.js'
import { event, timestamp, userTransactionRequest, writeSet } from './payload.js'
import { validator } from './validator.js'
import { writeSetChange } from './write-set.js'
import { WireReader, WireFormatError } from './wire-reader.js'

// Decoders of the transaction and response messages, written as in move.ts.

function transactionInfo(
  r: WireReader,
  end: number,
  m: TransactionInfo = {
    $typeName: 'aptos.transaction.v1.TransactionInfo',
    hash: new Uint8Array(0),
    stateChangeHash: new Uint8Array(0),
    eventRootHash: new Uint8Array(0),
    gasUsed: '0',
    success: false,
    vmStatus: '',
    accumulatorRootHash: new Uint8Array(0),
    changes: [],
  },
): TransactionInfo {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.hash = r.bytes(end)
        break
      case (2 << 3) | 2:
        m.stateChangeHash = r.bytes(end)
        break
      case (3 << 3) | 2:
        m.eventRootHash = r.bytes(end)
        break
      case (4 << 3) | 2:
        m.stateCheckpointHash = r.bytes(end)
        break
      case (5 << 3) | 0:
        m.gasUsed = r.uint64String(end)
        break
      case (6 << 3) | 0:
        m.success = r.varint32(end) !== 0
        break
      case (7 << 3) | 2:
        m.vmStatus = r.string(end)
        break
      case (8 << 3) | 2:
        m.accumulatorRootHash = r.bytes(end)
        break
      case (9 << 3) | 2:
        m.changes.push(writeSetChange(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b1111111110)
    }
  }
  return m
}

function blockMetadata(
  r: WireReader,
  end: number,
  m: BlockMetadataTransaction = { $typeName: 'aptos.transaction.v1.BlockMetadataTransaction', id: '', round: '0', events: [], previousBlockVotesBitvec: new Uint8Array(0), proposer: '', failedProposerIndices: [] },
): BlockMetadataTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.id = r.string(end)
        break
      case (2 << 3) | 0:
        m.round = r.uint64String(end)
        break
      case (3 << 3) | 2:
        m.events.push(event(r, r.lengthEnd(end)))
        break
      case (4 << 3) | 2:
        m.previousBlockVotesBitvec = r.bytes(end)
        break
      case (5 << 3) | 2:
        m.proposer = r.string(end)
        break
      case (6 << 3) | 0:
      case (6 << 3) | 2:
        r.repeatedVarint(tag, end, m.failedProposerIndices, (e) => r.varint32(e))
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  return m
}

function genesis(r: WireReader, end: number, m: GenesisTransaction = { $typeName: 'aptos.transaction.v1.GenesisTransaction', events: [] }): GenesisTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.payload = writeSet(r, r.lengthEnd(end), m.payload)
    else if (tag === ((2 << 3) | 2)) m.events.push(event(r, r.lengthEnd(end)))
    else other(r, tag, end, 0b110)
  }
  return m
}

function stateCheckpoint(r: WireReader, end: number, m: StateCheckpointTransaction = { $typeName: 'aptos.transaction.v1.StateCheckpointTransaction' }): StateCheckpointTransaction {
  while (r.pos < end) other(r, r.tag(end), end, 0)
  return m
}

function userTransaction(r: WireReader, end: number, m: UserTransaction = { $typeName: 'aptos.transaction.v1.UserTransaction', events: [] }): UserTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.request = userTransactionRequest(r, r.lengthEnd(end), m.request)
    else if (tag === ((2 << 3) | 2)) m.events.push(event(r, r.lengthEnd(end)))
    else other(r, tag, end, 0b110)
  }
  return m
}

function blockEndInfo(
  r: WireReader,
  end: number,
  m: BlockEndInfo = { $typeName: 'aptos.transaction.v1.BlockEndInfo', blockGasLimitReached: false, blockOutputLimitReached: false, blockEffectiveBlockGasUnits: 0n, blockApproxOutputSize: 0n },
): BlockEndInfo {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.blockGasLimitReached = r.varint32(end) !== 0
    else if (tag === ((2 << 3) | 0)) m.blockOutputLimitReached = r.varint32(end) !== 0
    else if (tag === ((3 << 3) | 0)) m.blockEffectiveBlockGasUnits = r.uint64(end)
    else if (tag === ((4 << 3) | 0)) m.blockApproxOutputSize = r.uint64(end)
    else other(r, tag, end, 0b11110)
  }
  return m
}

function blockEpilogue(r: WireReader, end: number, m: BlockEpilogueTransaction = { $typeName: 'aptos.transaction.v1.BlockEpilogueTransaction' }): BlockEpilogueTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.blockEndInfo = blockEndInfo(r, r.lengthEnd(end), m.blockEndInfo)
    else other(r, tag, end, 0b10)
  }
  return m
}

function scheduled(
  r: WireReader,
  end: number,
  m: ScheduledTransaction = { $typeName: 'aptos.transaction.v1.ScheduledTransaction', sender: '', maxGasAmount: 0n, gasUnitPrice: 0n, scheduleTime: 0n, txnId: new Uint8Array(0), events: [] },
): ScheduledTransaction {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.sender = r.string(end)
        break
      case (2 << 3) | 0:
        m.maxGasAmount = r.uint64(end)
        break
      case (3 << 3) | 0:
        m.gasUnitPrice = r.uint64(end)
        break
      case (4 << 3) | 0:
        m.scheduleTime = r.uint64(end)
        break
      case (5 << 3) | 2:
        m.txnId = r.bytes(end)
        break
      case (6 << 3) | 2:
        m.events.push(event(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  return m
}

/** Fields of `Transaction` (1–10, 21–24); `size_info` (22) is among them but skipped, since no node JSON field comes from it. */
const TRANSACTION_FIELDS = (0b1111 << 21) | 0b111_1111_1110

export function transaction(r: WireReader, end: number): Transaction {
  const m: Transaction = { $typeName: 'aptos.transaction.v1.Transaction', version: '0', epoch: '0', blockHeight: '0', type: 0, txnData: { case: undefined } }
  while (r.pos < end) {
    const tag = r.tag(end)
    const d = m.txnData
    switch (tag) {
      case (1 << 3) | 2:
        m.timestamp = timestamp(r, r.lengthEnd(end), m.timestamp)
        break
      case (2 << 3) | 0:
        m.version = r.uint64String(end)
        break
      case (3 << 3) | 2:
        m.info = transactionInfo(r, r.lengthEnd(end), m.info)
        break
      case (4 << 3) | 0:
        m.epoch = r.uint64String(end)
        break
      case (5 << 3) | 0:
        m.blockHeight = r.uint64String(end)
        break
      case (6 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (7 << 3) | 2:
        m.txnData = { case: 'blockMetadata', value: blockMetadata(r, r.lengthEnd(end), d.case === 'blockMetadata' ? d.value : undefined) }
        break
      case (8 << 3) | 2:
        m.txnData = { case: 'genesis', value: genesis(r, r.lengthEnd(end), d.case === 'genesis' ? d.value : undefined) }
        break
      case (9 << 3) | 2:
        m.txnData = { case: 'stateCheckpoint', value: stateCheckpoint(r, r.lengthEnd(end), d.case === 'stateCheckpoint' ? d.value : undefined) }
        break
      case (10 << 3) | 2:
        m.txnData = { case: 'user', value: userTransaction(r, r.lengthEnd(end), d.case === 'user' ? d.value : undefined) }
        break
      case (21 << 3) | 2:
        m.txnData = { case: 'validator', value: validator(r, r.lengthEnd(end), d.case === 'validator' ? d.value : undefined) }
        break
      case (23 << 3) | 2:
        m.txnData = { case: 'blockEpilogue', value: blockEpilogue(r, r.lengthEnd(end), d.case === 'blockEpilogue' ? d.value : undefined) }
        break
      case (24 << 3) | 2:
        m.txnData = { case: 'scheduledTransaction', value: scheduled(r, r.lengthEnd(end), d.case === 'scheduledTransaction' ? d.value : undefined) }
        break
      case (22 << 3) | 2:
        r.skip(tag, end)
        break
      default:
        other(r, tag, end, TRANSACTION_FIELDS)
    }
  }
  return m
}

export function processedRange(r: WireReader, end: number, m: ProcessedRange = { $typeName: 'aptos.indexer.v1.ProcessedRange', firstVersion: 0n, lastVersion: 0n }): ProcessedRange {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.firstVersion = r.uint64(end)
    else if (tag === ((2 << 3) | 0)) m.lastVersion = r.uint64(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

/**
 * Decodes an `aptos.transaction.v1.Transaction` from its wire bytes into the message
 * protobuf-es's `fromBinary` builds (same fields, defaults, oneof cases, bigint/string 64-bit
 * forms, byte views into `bytes`), minus what no node JSON field is made of: `size_info`, and
 * unknown fields, which are skipped rather than kept. Hand-written per message (field numbers
 * from proto/aptos/transaction/v1/transaction.proto) so it allocates only the result.
 *
 * @throws WireFormatError on bytes that are not such a message (cut short, a length past its
 *   end, a bad tag, a known field with a wrong wire type, a string that is not UTF-8).
 * @example decodeTransaction(bytes).txnData.case // 'user'
 */
export function decodeTransaction(bytes: Uint8Array): Transaction {
  const r = new WireReader(bytes)
  return transaction(r, r.length)
}

/**
 * Decodes an `aptos.indexer.v1.TransactionsResponse` (one message of `GetTransactions`), as
 * `decodeTransaction` does each of its transactions.
 *
 * @throws WireFormatError naming the transaction (its position in the response) when its bytes are malformed.
 */
export function decodeTransactionsResponse(bytes: Uint8Array): TransactionsResponse {
  const r = new WireReader(bytes)
  const end = r.length
  const m: TransactionsResponse = { $typeName: 'aptos.indexer.v1.TransactionsResponse', transactions: [] }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      const stop = r.lengthEnd(end)
      try {
        m.transactions.push(transaction(r, stop))
      } catch (error) {
        if (error instanceof WireFormatError) throw new WireFormatError(`transaction ${m.transactions.length} of the response: ${error.detail}`, error.offset)
        throw error
      }
    } else if (tag === ((2 << 3) | 0)) m.chainId = r.uint64String(end)
    else if (tag === ((3 << 3) | 2)) m.processedRange = processedRange(r, r.lengthEnd(end), m.processedRange)
    else other(r, tag, end, 0b1110)
  }
  return m
}
