import { isUtf8 } from 'node:buffer'
import { JsonReader, skipWs } from '../read/json-bytes.js'
import { KeySet } from '../read/json-keys.js'
import { ReadTxnFields, type TxnFields } from '../read/txn-fields.js'
import { TxnPacker } from './txn-pack.js'
import { utf8 } from './txn-code.js'
import type { BlockJson } from '../store/types.js'

/** A line of a chain file read by `LinePacker.pack`: what the ledger checks, and the transactions packed. */
export interface PackedLine {
  /**
   * The block cut down to the fields `checkBlock` reads, each exactly as `JSON.parse` of the
   * line has it (a missing field is `undefined`), so both accept or refuse alike.
   */
  skeleton: BlockJson
  /** The packed transactions back to back (`TxnPacker` records): the `out` given, else the packer's scratch buffer, valid until its next call. */
  packed: Buffer
  /** Where each transaction's record ends in `packed`; the first starts at `start`. */
  ends: number[]
  /** Where the first record starts in `packed`: the `at` given, else 0. */
  start: number
}

/** Root keys the ledger reads. */
const ROOT = new KeySet(['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions'])
const TRANSACTIONS = 5

/**
 * Reads lines of a chain file (the node's block JSON) for the memory store without parsing
 * them. Its reader, transaction packer and scratch buffer are its own: the store that owns it
 * packs every line through it.
 */
export class LinePacker {
  /** The transaction packer, which the owner may also use for single texts (`packText`). */
  readonly txn = new TxnPacker()
  readonly #reader = new JsonReader()
  /** Scratch for the packed transactions of a line: grows to the longest line and stays. */
  #scratch = Buffer.alloc(0)
  /**
   * The skeleton's transaction fields, reused line after line (`ReadTxnFields.clear`): the
   * ledger reads them only while it appends the line, and a load would otherwise make one
   * object per transaction for the collector. Grows to the most transactions of a line.
   */
  readonly #fields: ReadTxnFields[] = []

  /**
   * Checks that the line is JSON, keeps the fields the ledger checks, and packs each
   * transaction (`TxnPacker.pack`) straight from its bytes. Returns `undefined` for anything it
   * does not take — not valid UTF-8 or not JSON, a root key with an escape, a root field the
   * ledger reads that is not a string without escapes, a repeated one, a transaction that is not
   * an object or whose text `JSON.stringify` would not write back as it is (apart from
   * whitespace) — so that the caller parses the line and appends it as any block, which keeps
   * every value and error as they are.
   *
   * Law (test/ledger/pack-line.prop.test.ts): when it returns, `JSON.parse` accepts the line,
   * `checkBlock` gives the same answer on the skeleton as on the parsed block, and each record
   * unpacks to `JSON.stringify` of the parsed transaction.
   *
   * With `out`, the records are written there from `at`, which needs `b.length` bytes of room
   * (the records together are never longer than the line); bytes of `out` from `at` on may be
   * written even when it returns `undefined`. Without it, into the packer's scratch buffer. The
   * memory store packs straight into its arena this way, so a block is not copied a second time.
   *
   * The skeleton's transaction objects are the packer's own and are read again for its next
   * line: read them before the next call.
   *
   * O(bytes); allocates the skeleton's root and arrays and a few strings.
   */
  pack(b: Buffer, out?: Buffer, at = 0): PackedLine | undefined {
    if (!isUtf8(b)) return undefined
    if (out === undefined) {
      if (this.#scratch.length < b.length) this.#scratch = Buffer.allocUnsafe(Math.max(this.#scratch.length * 2, b.length))
      out = this.#scratch
      at = 0
    } else if (out.length - at < b.length) throw new RangeError(`LinePacker.pack: ${out.length - at} bytes of room for a line of ${b.length}`)
    const records = out
    const skeleton: Record<string, unknown> = {}
    const ends: number[] = []
    const r = this.#reader.at(b)
    const read = r.readRoot(ROOT, (id, p) => {
      if (id === TRANSACTIONS) return this.#transactions(b, p, records, at, ends, (skeleton.transactions = []) as TxnFields[])
      if (id < 0) return r.skipValue(p)
      // A string without escapes or control characters.
      p = r.scanText(p)
      if (p >= 0) skeleton[ROOT.names[id] as string] = utf8(b, r.textStart, r.textStart + r.textLength)
      return p
    })
    return read ? { skeleton: skeleton as unknown as BlockJson, packed: out, ends, start: at } : undefined
  }

  /** The `transactions` array at `p`, each packed into `out` from `o` on after the one before; returns the position past it, or -1. */
  #transactions(b: Buffer, p: number, out: Buffer, o: number, ends: number[], txns: TxnFields[]): number {
    const packer = this.txn
    if (b[p] !== 91) return -1
    p = skipWs(b, p + 1)
    if (b[p] === 93) return p + 1
    const pool = this.#fields
    for (;;) {
      let fields = pool[txns.length]
      if (fields === undefined) pool.push((fields = new ReadTxnFields()))
      else fields.clear()
      p = packer.pack(b, p, out, o, fields)
      if (p < 0) return -1
      o = packer.end
      ends.push(o)
      txns.push(fields)
      p = skipWs(b, p)
      if (b[p] === 44) p = skipWs(b, p + 1)
      else return b[p] === 93 ? p + 1 : -1
    }
  }
}
