import type { TransactionJson } from '../../../ledger/store/types.js'
import { hex, micros } from '../convert/hex.js'
import { transactionText } from '../convert/transaction-text.js'
import type { Transaction } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { fallbacks } from './fallbacks.js'
import { other } from './move.js'
import { ascii, type TextWriter } from './text-writer.js'
import { processedRange, transaction } from './transaction.js'
import { endInfo, endInfoText, metadata, NULL, TIMESTAMP, user, type Parts } from './kind-text.js'
import { changesText } from './change-text.js'
import { microsText, range, type Ranges } from './user-text.js'
import { WireFormatError, WireReader } from './wire-reader.js'

/**
 * One stream transaction as the ingest holds it: its node JSON text as UTF-8 (`bytes`, a view
 * of a TextWriter's chunk), the fields `checkBlock` reads (`skeleton`), and what assembling
 * blocks and checking overlaps read.
 */
export interface TextTransaction {
  version: string
  blockHeight: string
  kind: Transaction['txnData']['case']
  /** A block start's (block metadata, genesis) block hash and timestamp; '' otherwise. */
  blockHash: string
  blockTimestamp: string
  /** The transaction hash (`0x` hex) of a transaction without text (`error`); the others' is in their text (`textHash`). */
  hash: string | undefined
  skeleton: TransactionJson
  bytes: Buffer
  /** Set when the node's REST API serves no such transaction: thrown when its block is assembled, as the converter throws. */
  error?: Error | undefined
}

/** The transaction hash of a `TextTransaction`: the second member of its text (`{"version":"…","hash":"0x…"`), or its own. */
export function textHash(t: TextTransaction): string {
  if (t.hash !== undefined) return t.hash
  const at = t.bytes.indexOf('"hash":"') + 8
  return t.bytes.toString('latin1', at, t.bytes.indexOf(34, at))
}

/** A `TransactionsResponse` with its transactions as `TextTransaction`s. */
export interface TextResponse {
  chainId?: string | undefined
  transactions: TextTransaction[]
}

/** Fields of `Transaction` (1–10, 21–24), as decode/transaction.ts knows them. */
const TRANSACTION_FIELDS = (0b1111 << 21) | 0b111_1111_1110

const CHECKPOINT_END = ascii('","type":"state_checkpoint_transaction"}')
const END_INFO = ascii('","block_end_info":')
const EPILOGUE_END = ascii(',"type":"block_epilogue_transaction"}')
const VERSION = ascii('{"version":"')
const HASH = ascii('","hash":')
const STATE_CHANGE_HASH = ascii(',"state_change_hash":')
const EVENT_ROOT_HASH = ascii(',"event_root_hash":')
const CHECKPOINT_HASH = ascii(',"state_checkpoint_hash":')
const GAS_USED = ascii(',"gas_used":"')
const SUCCESS_TRUE = ascii('","success":true,"vm_status":')
const SUCCESS_FALSE = ascii('","success":false,"vm_status":')
const EMPTY = ascii('""')
const ACCUMULATOR = ascii(',"accumulator_root_hash":')
const CHANGES = ascii(',"changes":')
/** The changes' ranges of the transaction `fast` writes: one array reused, as `fast` never runs inside itself. */
const CHANGE_RANGES: Ranges = []

/**
 * The common kinds (user, block metadata, state checkpoint, block epilogue) written straight
 * from the wire; `undefined` (nothing written) for any other, or for a singular message field
 * sent twice, which protobuf merges and only the decoder does.
 */
function fast(r: WireReader, at: number, end: number, w: TextWriter): TextTransaction | undefined {
  const p = parts(r, at, end)
  if (p === undefined) return undefined
  // TransactionInfo's fields.
  let hash = at
  let hashEnd = at
  let changeHash = at
  let changeHashEnd = at
  let eventRoot = at
  let eventRootEnd = at
  let checkpoint = -1
  let checkpointEnd = -1
  let gasUsed = '0'
  let success = false
  let vm = -1
  let vmEnd = -1
  let accumulator = at
  let accumulatorEnd = at
  const changes = CHANGE_RANGES
  changes.length = 0
  r.pos = p.info
  const infoEnd = p.infoEnd
  while (r.pos < infoEnd) {
    const tag = r.tag(infoEnd)
    switch (tag) {
      case (1 << 3) | 2:
        hashEnd = r.lengthEnd(infoEnd)
        hash = r.pos
        r.pos = hashEnd
        break
      case (2 << 3) | 2:
        changeHashEnd = r.lengthEnd(infoEnd)
        changeHash = r.pos
        r.pos = changeHashEnd
        break
      case (3 << 3) | 2:
        eventRootEnd = r.lengthEnd(infoEnd)
        eventRoot = r.pos
        r.pos = eventRootEnd
        break
      case (4 << 3) | 2:
        checkpointEnd = r.lengthEnd(infoEnd)
        checkpoint = r.pos
        r.pos = checkpointEnd
        break
      case (5 << 3) | 0:
        gasUsed = r.uint64String(infoEnd)
        break
      case (6 << 3) | 0:
        success = r.varint32(infoEnd) !== 0
        break
      case (7 << 3) | 2:
        // A string sent twice: the decoder checks each occurrence's UTF-8, the last one wins.
        if (vm >= 0) return undefined
        vmEnd = r.lengthEnd(infoEnd)
        vm = r.pos
        r.pos = vmEnd
        break
      case (8 << 3) | 2:
        accumulatorEnd = r.lengthEnd(infoEnd)
        accumulator = r.pos
        r.pos = accumulatorEnd
        break
      case (9 << 3) | 2:
        range(r, infoEnd, changes)
        break
      default:
        other(r, tag, infoEnd, 0b1111111110)
    }
  }
  const src = r.input
  w.lit(VERSION)
  w.ascii(p.version)
  w.lit(HASH)
  w.hex(src, hash, hashEnd)
  w.lit(STATE_CHANGE_HASH)
  w.hex(src, changeHash, changeHashEnd)
  w.lit(EVENT_ROOT_HASH)
  w.hex(src, eventRoot, eventRootEnd)
  w.lit(CHECKPOINT_HASH)
  if (checkpoint < 0) w.lit(NULL)
  else w.hex(src, checkpoint, checkpointEnd)
  w.lit(GAS_USED)
  w.ascii(gasUsed)
  w.lit(success ? SUCCESS_TRUE : SUCCESS_FALSE)
  if (vm < 0) w.lit(EMPTY)
  else w.string(r, vm, vmEnd)
  w.lit(ACCUMULATOR)
  w.hex(src, accumulator, accumulatorEnd)
  w.lit(CHANGES)
  changesText(r, changes, w)
  let blockHash = ''
  let blockTimestamp = ''
  let skeleton: Record<string, unknown>
  switch (p.kind) {
    case 'user': {
      const s = user(r, p, gasUsed, w)
      if (s === undefined) return undefined
      skeleton = s
      break
    }
    case 'blockMetadata': {
      const block = metadata(r, p, w)
      if (block === undefined) return undefined
      blockHash = block.id
      blockTimestamp = block.micros
      skeleton = { version: p.version, epoch: p.epoch, type: 'block_metadata_transaction' }
      break
    }
    case 'stateCheckpoint':
      r.pos = p.data
      while (r.pos < p.dataEnd) other(r, r.tag(p.dataEnd), p.dataEnd, 0)
      w.lit(TIMESTAMP)
      microsText(r, p.time, p.timeEnd, w)
      w.lit(CHECKPOINT_END)
      skeleton = { version: p.version, type: 'state_checkpoint_transaction' }
      break
    default: {
      const info = endInfo(r, p.data, p.dataEnd)
      if (info === false) return undefined
      w.lit(TIMESTAMP)
      microsText(r, p.time, p.timeEnd, w)
      w.lit(END_INFO)
      endInfoText(info, w)
      w.lit(EPILOGUE_END)
      skeleton = { version: p.version, block_end_info: info, type: 'block_epilogue_transaction' }
    }
  }
  return { version: p.version, blockHeight: p.blockHeight, kind: p.kind, blockHash, blockTimestamp, hash: undefined, skeleton: skeleton as unknown as TransactionJson, bytes: w.finish(), error: undefined }
}

/** The transaction's own fields, and where its info and kind's message lie; `undefined` for a kind or shape left to the decoder. */
function parts(r: WireReader, at: number, end: number): Parts | undefined {
  let version = '0'
  let epoch = '0'
  let blockHeight = '0'
  let time = -1
  let timeEnd = -1
  let info = -1
  let infoEnd = -1
  let data = -1
  let dataEnd = -1
  let kind: Parts['kind'] = 'user'
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        if (time >= 0) return undefined
        timeEnd = r.lengthEnd(end)
        time = r.pos
        r.pos = timeEnd
        break
      case (2 << 3) | 0:
        version = r.uint64String(end)
        break
      case (3 << 3) | 2:
        if (info >= 0) return undefined
        infoEnd = r.lengthEnd(end)
        info = r.pos
        r.pos = infoEnd
        break
      case (4 << 3) | 0:
        epoch = r.uint64String(end)
        break
      case (5 << 3) | 0:
        blockHeight = r.uint64String(end)
        break
      case (6 << 3) | 0:
        r.varint32(end)
        break
      case (7 << 3) | 2:
      case (9 << 3) | 2:
      case (10 << 3) | 2:
      case (23 << 3) | 2:
        if (data >= 0) return undefined
        kind = tag === ((7 << 3) | 2) ? 'blockMetadata' : tag === ((9 << 3) | 2) ? 'stateCheckpoint' : tag === ((10 << 3) | 2) ? 'user' : 'blockEpilogue'
        dataEnd = r.lengthEnd(end)
        data = r.pos
        r.pos = dataEnd
        break
      case (8 << 3) | 2:
      case (21 << 3) | 2:
      case (24 << 3) | 2:
        return undefined
      case (22 << 3) | 2:
        r.skip(tag, end)
        break
      default:
        other(r, tag, end, TRANSACTION_FIELDS)
    }
  }
  if (info < 0 || data < 0) return undefined
  return { version, epoch, blockHeight, kind, time, timeEnd, info, infoEnd, data, dataEnd }
}

/** One transaction by the message decoder and `transactionText`: every kind and shape. */
function slow(r: WireReader, at: number, end: number, w: TextWriter): TextTransaction {
  r.pos = at
  const tx = transaction(r, end)
  const d = tx.txnData
  const hash = hex(tx.info?.hash ?? new Uint8Array())
  const version = tx.version
  const blockHeight = tx.blockHeight
  const blockHash = d.case === 'blockMetadata' ? d.value.id : d.case === 'genesis' ? hash : ''
  const blockTimestamp = d.case === 'blockMetadata' ? micros(tx.timestamp) : d.case === 'genesis' ? '0' : ''
  let text
  try {
    text = transactionText(tx)
  } catch (error) {
    return { version, blockHeight, kind: d.case, blockHash, blockTimestamp, hash, skeleton: {} as TransactionJson, bytes: Buffer.alloc(0), error: error as Error }
  }
  w.utf8(text.json)
  return { version, blockHeight, kind: d.case, blockHash, blockTimestamp, hash: undefined, skeleton: text.skeleton, bytes: w.finish(), error: undefined }
}

/**
 * Decodes an `aptos.indexer.v1.TransactionsResponse` with each transaction turned into its node
 * JSON text in `w` at once: the common kinds straight from the wire bytes, the rest (and any
 * transaction whose bytes the fast path doubts) by the message decoder and `transactionText`,
 * so the text is `transactionText`'s byte for byte and malformed bytes are refused with the
 * decoder's own error.
 *
 * @throws WireFormatError naming the transaction (its position in the response) when its bytes are malformed.
 */
export function decodeTextResponse(bytes: Uint8Array, w: TextWriter): TextResponse {
  const r = new WireReader(bytes)
  const end = r.length
  const m: TextResponse = { transactions: [] }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      const stop = r.lengthEnd(end)
      const at = r.pos
      let t: TextTransaction | undefined
      try {
        t = fast(r, at, stop, w)
      } catch (error) {
        if (!(error instanceof WireFormatError)) throw error
      }
      if (t === undefined) {
        fallbacks.transaction++
        w.abandon()
        try {
          t = slow(r, at, stop, w)
        } catch (error) {
          if (error instanceof WireFormatError) throw new WireFormatError(`transaction ${m.transactions.length} of the response: ${error.detail}`, error.offset)
          throw error
        }
      }
      m.transactions.push(t)
      r.pos = stop
    } else if (tag === ((2 << 3) | 0)) m.chainId = r.uint64String(end)
    else if (tag === ((3 << 3) | 2)) processedRange(r, r.lengthEnd(end))
    else other(r, tag, end, 0b1110)
  }
  return m
}
