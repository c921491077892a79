import { isUtf8 } from 'node:buffer'
import type { BlockInput } from '../../core/block.js'
import { CanonicalReader } from './canonical-json.js'
import { parseJsonLine } from './json-lines.js'
import { JsonReader, scanLiteral, scanNumber, skipWs } from './json-bytes.js'
import { KeyPredictor, KeySet, TextValues } from './json-keys.js'
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
  /**
   * Per transaction (`ledger` mode; empty in `engine` mode): `true` when its bytes are known to
   * be what `JSON.stringify` writes of them (read in the same pass that validates them);
   * `false` when not known, for `isCanonicalJson` to decide.
   */
  txnCanonical: boolean[]
}

const ROOT = new KeySet(['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions', 'gas_unit_prices'])
const [BLOCK_HASH, BLOCK_TIMESTAMP, TRANSACTIONS, GAS_UNIT_PRICES] = [1, 2, 5, 6]
/**
 * The keys of the node's transaction objects: first the 10 a scan keeps (ids 0-9, `KEPT`), then
 * those it skips, named so that the key predictor can follow them too.
 */
const TXN_KEYS = [
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
]
const [TYPE, GAS_UNIT_PRICE, GAS_USED, EPOCH, PAYLOAD, BLOCK_END_INFO, VERSION, SENDER, SEQUENCE_NUMBER, REPLAY_PROTECTION_NONCE] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
const KEPT = 10
/** A payload's keys: `type` and `function` are kept (ids 0-1), the others predicted and skipped. */
const PAYLOAD_KEYS = ['type', 'function', 'type_arguments', 'arguments']
const END_INFO = new KeySet(['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size'])
/** Fields only `checkBlock` reads: skipped in `engine` mode. */
const LEDGER_ONLY = (1 << VERSION) | (1 << SENDER) | (1 << SEQUENCE_NUMBER) | (1 << REPLAY_PROTECTION_NONCE)

/**
 * The block scanner: reads the node's block JSON from the UTF-8 bytes of one line without
 * building it. One scanner reads one stream of lines: it keeps its byte reader, the key
 * predictors it learns from the lines and its cache of recent values, so its owner (a stream,
 * a worker) makes one and passes every line to it.
 */
export class BlockScanner {
  /** The reader over the line being scanned; `ingestBlockOfLine` checks transactions through it too. */
  readonly reader = new JsonReader()
  /** Reads the values the scanner skips in `ledger` mode in `JSON.stringify`'s form; `ingestBlockOfLine` checks through it too. */
  readonly canonical = new CanonicalReader()
  readonly #txnKeys = new KeyPredictor(TXN_KEYS, KEPT)
  readonly #payloadKeys = new KeyPredictor(PAYLOAD_KEYS, 2)
  readonly #values = new TextValues()
  /** Whether the object `#transaction`, `#payload` or `#endInfo` read last is known to be canonical. */
  #canonical = false

  /**
   * Validates the whole line as JSON and keeps only the fields the engine (`engine`) or the
   * ledger (`ledger`) reads, with where each transaction lies. Returns `undefined` for anything
   * it does not recognise — not JSON, a compact summary, an escape or a non-string where a field
   * is read, a repeated field, a transaction that is not an object — so that the caller hands
   * the line to `JSON.parse` and the full parser, which accept it or word the error exactly as
   * for any line.
   *
   * Law (test/ledger/scan-blocks.prop.test.ts): when it returns a skeleton, `JSON.parse` accepts
   * the line, and `parseBlockJson`/`checkBlock` give the same value or error on the skeleton as
   * on the parsed line.
   *
   * O(bytes); allocates only the skeleton (a few strings per user transaction).
   */
  scan(b: Buffer, mode: ScanMode): ScannedBlock | undefined {
    const ledger = mode === 'ledger'
    const skeleton: Record<string, unknown> = {}
    const txns: TxnFields[] = []
    const txnStarts: number[] = []
    const txnEnds: number[] = []
    const txnCanonical: boolean[] = []
    const r = this.reader.at(b)
    const read = r.readRoot(ROOT, (id, p) => {
      if (id === TRANSACTIONS) {
        skeleton.transactions = txns
        return this.#transactions(p, ledger, txns, txnStarts, txnEnds, txnCanonical)
      }
      if (id === GAS_UNIT_PRICES) return -1 // a compact summary: the full reader takes it
      if (id < 0 || (!ledger && (id === BLOCK_HASH || id === BLOCK_TIMESTAMP))) return r.skipValue(p)
      p = r.scanText(p)
      if (p >= 0) skeleton[ROOT.names[id] as string] = this.#values.of(r)
      return p
    })
    if (!read) return undefined
    // Canonical form was read without UTF-8: one check of the line covers each transaction in
    // it (each starts and ends on an ASCII byte, which no multi-byte sequence holds).
    if (txnCanonical.includes(true) && !isUtf8(b)) txnCanonical.fill(false)
    return { skeleton: skeleton as unknown as BlockJson, txnStarts, txnEnds, txnCanonical }
  }

  /**
   * The block of one line for the engine, as `toBlockInput(JSON.parse(line))` gives it, value or
   * error: from the scanner when it recognises the line and `parseBlockJson` takes its skeleton,
   * else from the full parser, which words every error (`file:line: field: …`).
   */
  blockOfLine(file: string, line: number, bytes: Buffer): BlockInput {
    const scanned = this.scan(bytes, 'engine')
    if (scanned !== undefined) {
      try {
        return parseBlockJson(scanned.skeleton)
      } catch {
        // The full parser below throws the same error, with the line's wording.
      }
    }
    return parseJsonLine(file, line, bytes.toString('utf8'), toBlockInput)
  }

  /** The `transactions` array at `p`; returns the position past it, or -1. */
  #transactions(p: number, ledger: boolean, txns: TxnFields[], starts: number[], ends: number[], canonical: boolean[]): number {
    const b = this.reader.bytes
    if (b[p] !== 91) return -1
    p = skipWs(b, p + 1)
    if (b[p] === 93) return p + 1
    for (;;) {
      const txn = emptyTxnFields()
      const start = p
      p = this.#transaction(p, ledger, txn)
      if (p < 0) return -1
      if (ledger) {
        starts.push(start)
        ends.push(p)
        canonical.push(this.#canonical)
      }
      txns.push(txn)
      p = skipWs(b, p)
      if (b[p] === 44) p = skipWs(b, p + 1)
      else return b[p] === 93 ? p + 1 : -1
    }
  }

  /**
   * One transaction object at `p` into `txn`; returns the position past it, or -1. In `ledger`
   * mode it also finds whether the object is canonical (`#canonical`): no whitespace, each key
   * one of `TXN_KEYS` and once, the values it skips read by `CanonicalReader` (a value that is
   * not canonical there is skipped again as any JSON), the ones it keeps strings without escapes,
   * `null` or `#endInfo`'s plain literals and integers.
   */
  #transaction(p: number, ledger: boolean, txn: TxnFields): number {
    const r = this.reader
    const b = r.bytes
    if (b[p] !== 123) return -1
    let q = skipWs(b, p + 1)
    let canonical = ledger && q === p + 1
    p = q
    if (b[p] === 125) {
      this.#canonical = canonical
      return p + 1
    }
    const keys = this.#txnKeys
    keys.begin()
    let seen = 0
    for (;;) {
      q = keys.readKey(r, p)
      if (q < 0) return -1
      const id = keys.id
      const key = keys.key
      // A canonical key is a known one, not seen before in this object, its colon right after its quote.
      if (key < 0 || (seen & (1 << key)) !== 0 || b[q - 2] !== 34) canonical = false
      else seen |= 1 << key
      p = skipWs(b, q)
      if (p !== q) canonical = false
      if (id < 0 || (!ledger && ((1 << id) & LEDGER_ONLY) !== 0)) {
        q = canonical ? this.canonical.end(r, p) : -1
        if (q < 0) {
          canonical = false
          q = b[p] === 34 ? r.scanString(p) : r.skipValue(p)
        }
        p = q
      } else if (id === PAYLOAD) {
        p = this.#payload(p, txn, canonical)
        canonical = this.#canonical
      } else if (id === BLOCK_END_INFO) {
        p = this.#endInfo(p, txn, canonical)
        canonical = this.#canonical
      } else if (id === REPLAY_PROTECTION_NONCE && b[p] === 110) {
        txn.replay_protection_nonce = null
        p = scanLiteral(b, p)
      } else {
        p = r.scanText(p)
        if (p < 0) return -1
        const value = this.#values.of(r)
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
      q = skipWs(b, p)
      if (q !== p) canonical = false
      p = q
      if (b[p] === 125) {
        this.#canonical = canonical
        return p + 1
      }
      if (b[p] !== 44) return -1
      q = skipWs(b, p + 1)
      if (q !== p + 1) canonical = false
      p = q
    }
  }

  /**
   * A payload object at `p`: its `type` and `function` strings. Sets `#canonical` as
   * `#transaction` does, starting from `canonical` (the transaction's so far).
   */
  #payload(p: number, txn: TxnFields, canonical: boolean): number {
    const r = this.reader
    const b = r.bytes
    const payload: { type: string | undefined; function: string | undefined } = { type: undefined, function: undefined }
    txn.payload = payload
    if (b[p] !== 123) return -1
    let q = skipWs(b, p + 1)
    if (q !== p + 1) canonical = false
    p = q
    if (b[p] === 125) {
      this.#canonical = canonical
      return p + 1
    }
    const keys = this.#payloadKeys
    keys.begin()
    let seen = 0
    for (;;) {
      q = keys.readKey(r, p)
      if (q < 0) return -1
      const id = keys.id
      const key = keys.key
      if (key < 0 || (seen & (1 << key)) !== 0 || b[q - 2] !== 34) canonical = false
      else seen |= 1 << key
      p = skipWs(b, q)
      if (p !== q) canonical = false
      if (id < 0) {
        q = canonical ? this.canonical.end(r, p) : -1
        if (q < 0) {
          canonical = false
          q = r.skipValue(p)
        }
        p = q
      } else {
        p = r.scanText(p)
        if (p < 0) return -1
        if (id === 0) payload.type = this.#values.of(r)
        else payload.function = this.#values.of(r)
      }
      if (p < 0) return -1
      q = skipWs(b, p)
      if (q !== p) canonical = false
      p = q
      if (b[p] === 125) {
        this.#canonical = canonical
        return p + 1
      }
      if (b[p] !== 44) return -1
      q = skipWs(b, p + 1)
      if (q !== p + 1) canonical = false
      p = q
    }
  }

  /**
   * A `block_end_info` at `p`: `null`, or an object whose four known members are kept when they
   * are `true`/`false` or plain integers of up to 15 digits (exact as doubles, the value
   * `JSON.parse` gives); any other value of theirs is refused. Sets `#canonical` as
   * `#transaction` does, starting from `canonical`.
   */
  #endInfo(p: number, txn: TxnFields, canonical: boolean): number {
    const r = this.reader
    const b = r.bytes
    this.#canonical = canonical
    if (b[p] === 110) {
      txn.block_end_info = null
      return scanLiteral(b, p)
    }
    const info: Record<string, boolean | number> = {}
    txn.block_end_info = info
    let unknown = false
    const past = r.readObject(p, END_INFO, (id, q) => {
      if (id < 0) {
        unknown = true
        return r.skipValue(q)
      }
      const name = END_INFO.names[id] as string
      const c = b[q]
      if (c === 116 || c === 102) {
        info[name] = c === 116
        return scanLiteral(b, q)
      }
      const end = scanNumber(b, q)
      if (end < 0 || end - q > 15) return -1
      let n = 0
      for (let i = q; i < end; i++) {
        const d = b[i] as number
        if (!(d >= 48 && d <= 57)) return -1
        n = n * 10 + (d - 48)
      }
      info[name] = n
      return end
    })
    // Known keys (each once: readObject refuses a repeat) and these values are canonical as
    // written, so only whitespace between them can make the object not so.
    if (canonical && past >= 0) {
      let spaced = unknown
      for (let i = p; i < past && !spaced; i++) {
        const c = b[i]
        spaced = c === 32 || c === 9 || c === 10 || c === 13
      }
      this.#canonical = !spaced
    }
    return past
  }
}

/** A block read by `scanBlocks`, with the file and line it came from. */
export interface ScannedLine {
  file: string
  line: number
  block: BlockInput
}

/**
 * `scanBlocks` on the calling thread: each line of `source` scanned in turn by one `BlockScanner`,
 * named `options.file` in messages.
 */
export async function* scanBlocksInThread(source: string | NodeJS.ReadableStream, options: LineOptions & { file: string }): AsyncGenerator<ScannedLine> {
  const file = options.file
  const scanner = new BlockScanner()
  for await (const { number, bytes } of readLineBytes(source, options)) yield { file, line: number, block: scanner.blockOfLine(file, number, bytes) }
}
