import type { BlockInput } from '../../core/block.js'
import { parseJsonLine } from './json-lines.js'
import { scanLiteral, scanNumber, scanString, skipValue, skipWs, stringStop } from './json-scan.js'
import { readLineBytes, type LineOptions } from './lines.js'
import { parseBlockJson } from '../store/parse-block.js'
import { toBlockInput } from './read-blocks.js'
import type { BlockJson } from '../store/types.js'
import { emptyTxnFields, type TxnFields } from './txn-fields.js'

/** Which fields a scan keeps: the engine's (`parseBlockJson`) or also the ledger's (`checkBlock`). */
export type ScanMode = 'engine' | 'ledger'

/** A line of the node's block JSON as the scanner read it. */
export interface ScannedBlock {
  /**
   * The block cut down to the fields `parseBlockJson` (and in `ledger` mode `checkBlock`) reads,
   * each exactly as `JSON.parse` of the line has it, so both give the same answer on it as on the
   * whole block. Every other field is absent.
   */
  skeleton: BlockJson
  /** Byte offset in the line where each transaction's JSON starts (`ledger` mode; empty in `engine` mode). */
  txnStarts: number[]
  /** Byte offset just past each transaction's JSON (`ledger` mode; empty in `engine` mode). */
  txnEnds: number[]
}

/**
 * A few key names, found by their length and first byte (one table load), then checked byte by
 * byte. The names of one set differ in that pair, which the constructor checks.
 */
class KeySet {
  readonly names: readonly string[]
  readonly bytes: readonly Uint8Array[]
  /** id + 1 by `length << 8 | first byte`, 0 for none; lengths from 64 up are never known. */
  readonly table = new Uint8Array(64 << 8)

  constructor(names: string[]) {
    this.names = names
    this.bytes = names.map((n) => new Uint8Array(Buffer.from(n, 'latin1')))
    this.bytes.forEach((k, id) => {
      const slot = (k.length << 8) | (k[0] as number)
      if (k.length >= 64 || this.table[slot] !== 0) throw new Error(`KeySet: ${names[id]} clashes or is too long`)
      this.table[slot] = id + 1
    })
  }

  /** The id of the name in `b[s, s + n)`, or -1. O(1) apart from checking a candidate. */
  find(b: Uint8Array, s: number, n: number): number {
    if (n >= 64) return -1
    const id = (this.table[(n << 8) | (b[s] as number)] as number) - 1
    if (id < 0) return -1
    const k = this.bytes[id] as Uint8Array
    for (let i = 1; i < n; i++) if (k[i] !== b[s + i]) return -1
    return id
  }
}

const ROOT = new KeySet(['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions', 'gas_unit_prices'])
const [BLOCK_HASH, BLOCK_TIMESTAMP, TRANSACTIONS, GAS_UNIT_PRICES] = [1, 2, 5, 6]
/**
 * The keys of the node's transaction objects: first the 10 a scan keeps (ids 0-9, `KEPT`), then
 * those it skips, named so that the key predictor (`scanTransaction`) can follow them too.
 */
const TXN = new KeySet([
  'type',
  'gas_unit_price',
  'gas_used',
  'epoch',
  'payload',
  'block_end_info',
  'version',
  'sender',
  'sequence_number',
  'replay_protection_nonce',
  'hash',
  'state_change_hash',
  'event_root_hash',
  'state_checkpoint_hash',
  'success',
  'vm_status',
  'accumulator_root_hash',
  'changes',
  'max_gas_amount',
  'expiration_timestamp_secs',
  'signature',
  'events',
  'timestamp',
  'id',
  'round',
  'previous_block_votes_bitvec',
  'proposer',
  'failed_proposer_indices',
])
const [TYPE, GAS_UNIT_PRICE, GAS_USED, EPOCH, PAYLOAD, BLOCK_END_INFO, VERSION, SENDER, SEQUENCE_NUMBER, REPLAY_PROTECTION_NONCE] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
/** Ids below this are kept (and checked for repeats); the others are only skipped, as unknown keys are. */
const KEPT = 10
/** Each `TXN` key as the node writes it: quoted and followed by its colon (`"version":`). */
const TXN_TOKENS = TXN.names.map((n) => new Uint8Array(Buffer.from(`"${n}":`, 'latin1')))
/** The tokens as little-endian 32-bit words (a token's last `length % 4` bytes are compared one by one). */
const TXN_WORDS = TXN_TOKENS.map(tokenWords)

/** The whole little-endian 32-bit words of a token. */
function tokenWords(k: Uint8Array): Int32Array {
  const w = new Int32Array(k.length >> 2)
  const v = new DataView(k.buffer, k.byteOffset, k.length)
  for (let i = 0; i < w.length; i++) w[i] = v.getInt32(i * 4, true)
  return w
}

/** Whether the line holds token `k` (with words `w`) at `p`: four bytes at a time through `lineView`. */
function tokenAt(b: Uint8Array, p: number, k: Uint8Array, w: Int32Array): boolean {
  const n = k.length
  if (p + n > b.length) return false
  const v = lineView
  const m = w.length
  let i = 0
  while (i < m && v.getInt32(p + 4 * i, true) === w[i]) i++
  if (i < m) return false
  i <<= 2
  while (i < n && b[p + i] === k[i]) i++
  return i === n
}
/** A view of the line being scanned, for comparing a predicted token four bytes at a time. */
let lineView: DataView = new DataView(new ArrayBuffer(0))
/**
 * The key predictor: by the slot of the previous key (0 at the start of an object, id + 1 after
 * a known key, `TXN_UNKNOWN` after any other), the id of the key that followed it last time, or
 * -1. The node writes a transaction's keys in a fixed order per type, so one comparison of the
 * token's bytes usually replaces reading, looking up and checking the key.
 */
const TXN_UNKNOWN = TXN.names.length + 1
const txnNext = new Int8Array(TXN_UNKNOWN + 1).fill(-1)
/** A payload's keys: `type` and `function` are kept (ids 0-1), the others predicted and skipped. */
const PAYLOAD_KEYS = new KeySet(['type', 'function', 'type_arguments', 'arguments'])
const PAYLOAD_KEPT = 2
const PAYLOAD_TOKENS = PAYLOAD_KEYS.names.map((n) => new Uint8Array(Buffer.from(`"${n}":`, 'latin1')))
const PAYLOAD_WORDS = PAYLOAD_TOKENS.map(tokenWords)
/** The key predictor of payloads, as `txnNext`. */
const PAYLOAD_UNKNOWN = PAYLOAD_KEYS.names.length + 1
const payloadNext = new Int8Array(PAYLOAD_UNKNOWN + 1).fill(-1)
const END_INFO = new KeySet(['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size'])
/** Fields only `checkBlock` reads: skipped in `engine` mode. */
const LEDGER_ONLY = (1 << VERSION) | (1 << SENDER) | (1 << SEQUENCE_NUMBER) | (1 << REPLAY_PROTECTION_NONCE)

// Results of `scanText` (module state: the scanner is synchronous and never re-entered).
let textStart = 0
let textLength = 0

/**
 * A string without escapes at `p` (its opening quote): returns the position past it, or -1 for
 * anything else (an escape, a raw control character, not a string). Sets `textStart` and
 * `textLength`.
 */
function scanText(b: Uint8Array, p: number): number {
  if (b[p] !== 34) return -1
  const s = p + 1
  const i = stringStop(b, s)
  // An escape is left to the full parser: it may spell a known key (`block\u005fheight`).
  if (b[i] !== 34) return -1
  textStart = s
  textLength = i - s
  return i + 1
}

/** Strings cached by content: types and function names repeat on every line. Bounded: a slot is overwritten. */
const INTERN_SLOTS = 256
const INTERN_MAX = 96
const internBytes: (Uint8Array | undefined)[] = new Array<Uint8Array | undefined>(INTERN_SLOTS)
/** The cached bytes' whole 32-bit words (little-endian), compared four bytes at a time through `lineView`. */
const internWords: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(INTERN_SLOTS)
const internText: string[] = new Array<string>(INTERN_SLOTS).fill('')

/**
 * The value of the string `scanText` just read, as `JSON.parse` of the UTF-8 line gives it:
 * canonical decimals of up to 15 digits from `String(n)` (exact below 10^15, and V8 caches
 * small ones), short strings from a cache, others decoded.
 */
function textValue(b: Buffer): string {
  const s = textStart
  const n = textLength
  const e = s + n
  const first = b[s] as number
  if (n > 0 && n < 16 && first >= 49 && first <= 57) {
    let v = 0
    let i = s
    for (; i < e; i++) {
      const c = b[i] as number
      if (!(c >= 48 && c <= 57)) break
      v = v * 10 + (c - 48)
    }
    if (i === e) return String(v)
  }
  if (n > INTERN_MAX) return b.toString('utf8', s, e)
  const slot = (n * 7 + first * 5 + (b[e - 1] as number) * 3 + (b[s + (n >> 1)] as number) + (b[s + (n >> 2)] as number) * 11) & (INTERN_SLOTS - 1)
  const cached = internBytes[slot]
  if (cached !== undefined && cached.length === n) {
    const w = internWords[slot] as Int32Array
    const m = w.length
    const v = lineView
    let i = 0
    while (i < m && v.getInt32(s + 4 * i, true) === w[i]) i++
    if (i === m) {
      i <<= 2
      while (i < n && cached[i] === b[s + i]) i++
      if (i === n) return internText[slot] as string
    }
  }
  const value = b.toString('utf8', s, e)
  // A copy: Buffer's slice() is a view, which would keep the whole read chunk alive in the cache.
  const copy = Uint8Array.prototype.slice.call(b, s, e)
  const words = new Int32Array(n >> 2)
  const cv = new DataView(copy.buffer, copy.byteOffset, n)
  for (let i = 0; i < words.length; i++) words[i] = cv.getInt32(4 * i, true)
  internBytes[slot] = copy
  internWords[slot] = words
  internText[slot] = value
  return value
}

/**
 * Reads the node's block JSON from the UTF-8 bytes of one line without building it: validates
 * the whole line as JSON and keeps only the fields the engine (`engine`) or the ledger
 * (`ledger`) reads, with where each transaction lies. Returns `undefined` for anything it does
 * not recognise — not JSON, a compact summary, an escape or a non-string where a field is read,
 * a repeated field, a transaction that is not an object — so that the caller hands the line to
 * `JSON.parse` and the full parser, which accept it or word the error exactly as for any line.
 *
 * Law (test/ledger/scan-blocks.prop.test.ts): when it returns a skeleton, `JSON.parse` accepts
 * the line, and `parseBlockJson`/`checkBlock` give the same value or error on the skeleton as on
 * the parsed line.
 *
 * O(bytes); allocates only the skeleton (a few strings per user transaction).
 */
export function scanBlockJson(b: Buffer, mode: ScanMode): ScannedBlock | undefined {
  const ledger = mode === 'ledger'
  const skeleton: Record<string, unknown> = {}
  const txns: TxnFields[] = []
  const txnStarts: number[] = []
  const txnEnds: number[] = []
  lineView = new DataView(b.buffer, b.byteOffset, b.length)
  let p = skipWs(b, 0)
  if (b[p] !== 123) return undefined
  p = skipWs(b, p + 1)
  let seen = 0
  if (b[p] === 125) p++
  else
    for (;;) {
      p = scanText(b, p)
      if (p < 0) return undefined
      const id = ROOT.find(b, textStart, textLength)
      if (id >= 0) {
        // JSON.parse keeps the last of repeated keys; the full parser handles such a line.
        if ((seen & (1 << id)) !== 0) return undefined
        seen |= 1 << id
      }
      p = skipWs(b, p)
      if (b[p] !== 58) return undefined
      p = skipWs(b, p + 1)
      if (id === TRANSACTIONS) {
        skeleton.transactions = txns
        p = scanTransactions(b, p, ledger, txns, txnStarts, txnEnds)
      } else if (id === GAS_UNIT_PRICES) {
        return undefined // a compact summary: the full reader takes it
      } else if (id < 0 || (!ledger && (id === BLOCK_HASH || id === BLOCK_TIMESTAMP))) {
        p = skipValue(b, p)
      } else {
        p = scanText(b, p)
        if (p < 0) return undefined
        skeleton[ROOT.names[id] as string] = textValue(b)
      }
      if (p < 0) return undefined
      p = skipWs(b, p)
      if (b[p] === 125) {
        p++
        break
      }
      if (b[p] !== 44) return undefined
      p = skipWs(b, p + 1)
    }
  if (skipWs(b, p) !== b.length) return undefined
  return { skeleton: skeleton as unknown as BlockJson, txnStarts, txnEnds }
}

/** The `transactions` array at `p`; returns the position past it, or -1. */
function scanTransactions(b: Buffer, p: number, ledger: boolean, txns: TxnFields[], starts: number[], ends: number[]): number {
  if (b[p] !== 91) return -1
  p = skipWs(b, p + 1)
  if (b[p] === 93) return p + 1
  for (;;) {
    const txn = emptyTxnFields()
    const start = p
    p = scanTransaction(b, p, ledger, txn)
    if (p < 0) return -1
    if (ledger) {
      starts.push(start)
      ends.push(p)
    }
    txns.push(txn)
    p = skipWs(b, p)
    if (b[p] === 44) p = skipWs(b, p + 1)
    else return b[p] === 93 ? p + 1 : -1
  }
}

/** One transaction object at `p` into `txn`; returns the position past it, or -1. */
function scanTransaction(b: Buffer, p: number, ledger: boolean, txn: TxnFields): number {
  if (b[p] !== 123) return -1
  p = skipWs(b, p + 1)
  if (b[p] === 125) return p + 1
  let seen = 0
  let slot = 0
  for (;;) {
    let id = txnNext[slot] as number
    if (id >= 0) {
      // The predicted key: its token's bytes are a valid key and colon, so a match is one.
      const k = TXN_TOKENS[id] as Uint8Array
      if (tokenAt(b, p, k, TXN_WORDS[id] as Int32Array)) p += k.length
      else id = -1
    }
    if (id < 0) {
      p = scanText(b, p)
      if (p < 0) return -1
      id = TXN.find(b, textStart, textLength)
      p = skipWs(b, p)
      if (b[p] !== 58) return -1
      p++
      if (id >= 0) txnNext[slot] = id
    }
    slot = id + 1 || TXN_UNKNOWN
    if (id >= KEPT) id = -1
    else if (id >= 0) {
      if ((seen & (1 << id)) !== 0) return -1
      seen |= 1 << id
    }
    p = skipWs(b, p)
    if (id < 0 || (!ledger && ((1 << id) & LEDGER_ONLY) !== 0)) p = b[p] === 34 ? scanString(b, p) : skipValue(b, p)
    else if (id === PAYLOAD) p = scanPayload(b, p, txn)
    else if (id === BLOCK_END_INFO) p = scanEndInfo(b, p, txn)
    else if (id === REPLAY_PROTECTION_NONCE && b[p] === 110) {
      txn.replay_protection_nonce = null
      p = scanLiteral(b, p)
    } else {
      p = scanText(b, p)
      if (p < 0) return -1
      const value = textValue(b)
      if (id === TYPE) txn.type = value
      else if (id === GAS_UNIT_PRICE) txn.gas_unit_price = value
      else if (id === GAS_USED) txn.gas_used = value
      else if (id === EPOCH) txn.epoch = value
      else if (id === VERSION) txn.version = value
      else if (id === SENDER) txn.sender = value
      else if (id === SEQUENCE_NUMBER) txn.sequence_number = value
      else txn.replay_protection_nonce = value
    }
    if (p < 0) return -1
    p = skipWs(b, p)
    if (b[p] === 125) return p + 1
    if (b[p] !== 44) return -1
    p = skipWs(b, p + 1)
  }
}

/** A payload object at `p`: its `type` and `function` strings. */
function scanPayload(b: Buffer, p: number, txn: TxnFields): number {
  const payload: { type: string | undefined; function: string | undefined } = { type: undefined, function: undefined }
  txn.payload = payload
  if (b[p] !== 123) return -1
  p = skipWs(b, p + 1)
  if (b[p] === 125) return p + 1
  let seen = 0
  let slot = 0
  for (;;) {
    let id = payloadNext[slot] as number
    if (id >= 0) {
      const k = PAYLOAD_TOKENS[id] as Uint8Array
      if (tokenAt(b, p, k, PAYLOAD_WORDS[id] as Int32Array)) p += k.length
      else id = -1
    }
    if (id < 0) {
      p = scanText(b, p)
      if (p < 0) return -1
      id = PAYLOAD_KEYS.find(b, textStart, textLength)
      p = skipWs(b, p)
      if (b[p] !== 58) return -1
      p++
      if (id >= 0) payloadNext[slot] = id
    }
    slot = id + 1 || PAYLOAD_UNKNOWN
    if (id >= PAYLOAD_KEPT) id = -1
    else if (id >= 0) {
      if ((seen & (1 << id)) !== 0) return -1
      seen |= 1 << id
    }
    p = skipWs(b, p)
    if (id < 0) p = skipValue(b, p)
    else {
      p = scanText(b, p)
      if (p < 0) return -1
      if (id === 0) payload.type = textValue(b)
      else payload.function = textValue(b)
    }
    if (p < 0) return -1
    p = skipWs(b, p)
    if (b[p] === 125) return p + 1
    if (b[p] !== 44) return -1
    p = skipWs(b, p + 1)
  }
}

/**
 * A `block_end_info` at `p`: `null`, or an object whose four known members are kept when they
 * are `true`/`false` or plain integers of up to 15 digits (exact as doubles, the value
 * `JSON.parse` gives); any other value of theirs is refused.
 */
function scanEndInfo(b: Buffer, p: number, txn: TxnFields): number {
  if (b[p] === 110) {
    txn.block_end_info = null
    return scanLiteral(b, p)
  }
  const info: Record<string, boolean | number> = {}
  txn.block_end_info = info
  if (b[p] !== 123) return -1
  p = skipWs(b, p + 1)
  if (b[p] === 125) return p + 1
  let seen = 0
  for (;;) {
    p = scanText(b, p)
    if (p < 0) return -1
    const id = END_INFO.find(b, textStart, textLength)
    if (id >= 0) {
      if ((seen & (1 << id)) !== 0) return -1
      seen |= 1 << id
    }
    p = skipWs(b, p)
    if (b[p] !== 58) return -1
    p = skipWs(b, p + 1)
    if (id < 0) p = skipValue(b, p)
    else {
      const name = END_INFO.names[id] as string
      const c = b[p]
      if (c === 116 || c === 102) {
        info[name] = c === 116
        p = scanLiteral(b, p)
      } else {
        const end = scanNumber(b, p)
        if (end < 0 || end - p > 15) return -1
        let n = 0
        for (let i = p; i < end; i++) {
          const d = b[i] as number
          if (!(d >= 48 && d <= 57)) return -1
          n = n * 10 + (d - 48)
        }
        info[name] = n
        p = end
      }
    }
    if (p < 0) return -1
    p = skipWs(b, p)
    if (b[p] === 125) return p + 1
    if (b[p] !== 44) return -1
    p = skipWs(b, p + 1)
  }
}

/**
 * The block of one line for the engine, as `toBlockInput(JSON.parse(line))` gives it, value or
 * error: from the scanner when it recognises the line and `parseBlockJson` takes its skeleton,
 * else from the full parser, which words every error (`file:line: field: …`).
 */
export function blockOfLine(file: string, line: number, bytes: Buffer): BlockInput {
  const scanned = scanBlockJson(bytes, 'engine')
  if (scanned !== undefined) {
    try {
      return parseBlockJson(scanned.skeleton)
    } catch {
      // The full parser below throws the same error, with the line's wording.
    }
  }
  return parseJsonLine(file, line, bytes.toString('utf8'), toBlockInput)
}

/** A block read by `scanBlocks`, with the file and line it came from. */
export interface ScannedLine {
  file: string
  line: number
  block: BlockInput
}

/**
 * `scanBlocks` on the calling thread: each line of `source` scanned in turn (`blockOfLine`),
 * named `options.file` in messages.
 */
export async function* scanBlocksInThread(source: string | NodeJS.ReadableStream, options: LineOptions & { file: string }): AsyncGenerator<ScannedLine> {
  const file = options.file
  for await (const { number, bytes } of readLineBytes(source, options)) yield { file, line: number, block: blockOfLine(file, number, bytes) }
}
