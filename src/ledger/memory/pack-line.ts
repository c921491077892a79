import { isUtf8 } from 'node:buffer'
import { skipValue, skipWs } from '../read/json-scan.js'
import { emptyTxnFields, type TxnFields } from '../read/txn-fields.js'
import { packedEnd, packTransaction } from './txn-pack.js'
import type { BlockJson } from '../store/types.js'

/** A line of a chain file read by `packBlockLine`: what the ledger checks, and the transactions packed. */
export interface PackedLine {
  /**
   * The block cut down to the fields `checkBlock` reads, each exactly as `JSON.parse` of the
   * line has it (a missing field is `undefined`), so both accept or refuse alike.
   */
  skeleton: BlockJson
  /** The packed transactions back to back (`packTransaction` records): the `out` given, else a scratch buffer valid until the next call. */
  packed: Buffer
  /** Where each transaction's record ends in `packed`; the first starts at `start`. */
  ends: number[]
  /** Where the first record starts in `packed`: the `at` given, else 0. */
  start: number
}

/** Root keys the ledger reads, as they appear with their quotes. */
const ROOT_KEYS = ['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions']
const ROOT_BYTES = ROOT_KEYS.map((k) => Buffer.from(`"${k}"`, 'latin1'))
const TRANSACTIONS = 5

/** Scratch for the packed transactions of a line: grows to the longest line and stays. */
let scratch = Buffer.allocUnsafe(1 << 20)

/** The id of the root key at `b[p]` (its opening quote), or -1 for another or an escaped one. */
function rootKey(b: Buffer, p: number): number {
  for (let id = 0; id < ROOT_BYTES.length; id++) {
    const k = ROOT_BYTES[id] as Buffer
    if (b[p + 1] !== k[1] || b[p + k.length - 1] !== 34) continue
    if (b.compare(k, 0, k.length, p, p + k.length) === 0) return id
  }
  return -1
}

/**
 * Reads one line of a chain file (the node's block JSON) for the memory store without parsing
 * it: checks that it is JSON, keeps the fields the ledger checks, and packs each transaction
 * (`packTransaction`) straight from its bytes. Returns `undefined` for anything it does not
 * take — not valid UTF-8 or not JSON, a root field the ledger reads that is not a string
 * without escapes, a repeated one, a transaction that is not an object or whose text
 * `JSON.stringify` would not write back as it is (apart from whitespace) — so that the caller
 * parses the line and appends it as any block, which keeps every value and error as they are.
 *
 * Law (test/ledger/pack-line.prop.test.ts): when it returns, `JSON.parse` accepts the line,
 * `checkBlock` gives the same answer on the skeleton as on the parsed block, and each record
 * unpacks to `JSON.stringify` of the parsed transaction.
 *
 * With `out`, the records are written there from `at`, which needs `b.length` bytes of room
 * (the records together are never longer than the line); bytes of `out` from `at` on may be
 * written even when it returns `undefined`. Without it, into a scratch buffer. The memory store
 * packs straight into its arena this way, so a block is not copied a second time.
 *
 * O(bytes); allocates the skeleton (one small object per transaction and a few strings).
 */
export function packBlockLine(b: Buffer, out?: Buffer, at = 0): PackedLine | undefined {
  if (!isUtf8(b)) return undefined
  if (out === undefined) {
    if (scratch.length < b.length) scratch = Buffer.allocUnsafe(Math.max(scratch.length * 2, b.length))
    out = scratch
    at = 0
  } else if (out.length - at < b.length) throw new RangeError(`packBlockLine: ${out.length - at} bytes of room for a line of ${b.length}`)
  const skeleton: Record<string, unknown> = {}
  const ends: number[] = []
  let p = skipWs(b, 0)
  if (b[p] !== 123) return undefined
  p = skipWs(b, p + 1)
  let seen = 0
  if (b[p] === 125) p++
  else
    for (;;) {
      if (b[p] !== 34) return undefined
      const id = rootKey(b, p)
      if (id >= 0) {
        // JSON.parse keeps the last of repeated keys; the full parser handles such a line.
        if ((seen & (1 << id)) !== 0) return undefined
        seen |= 1 << id
        p += (ROOT_BYTES[id] as Buffer).length
      } else {
        p = skipValue(b, p)
        if (p < 0) return undefined
      }
      p = skipWs(b, p)
      if (b[p] !== 58) return undefined
      p = skipWs(b, p + 1)
      if (id === TRANSACTIONS) {
        p = packTransactions(b, p, out, at, ends, (skeleton.transactions = []) as TxnFields[])
      } else if (id >= 0) {
        // A string without escapes or control characters.
        if (b[p] !== 34) return undefined
        const s = p + 1
        let i = s
        for (;;) {
          const c = b[i] as number
          if (c === 34) break
          if (c === 92 || !(c >= 32)) return undefined
          i++
        }
        skeleton[ROOT_KEYS[id] as string] = b.toString('utf8', s, i)
        p = i + 1
      } else p = skipValue(b, p)
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
  return { skeleton: skeleton as unknown as BlockJson, packed: out, ends, start: at }
}

/** The `transactions` array at `p`, each packed into `out` from `o` on after the one before; returns the position past it, or -1. */
function packTransactions(b: Buffer, p: number, out: Buffer, o: number, ends: number[], txns: TxnFields[]): number {
  if (b[p] !== 91) return -1
  p = skipWs(b, p + 1)
  if (b[p] === 93) return p + 1
  for (;;) {
    const fields = emptyTxnFields()
    p = packTransaction(b, p, out, o, fields)
    if (p < 0) return -1
    o = packedEnd
    ends.push(o)
    txns.push(fields)
    p = skipWs(b, p)
    if (b[p] === 44) p = skipWs(b, p + 1)
    else return b[p] === 93 ? p + 1 : -1
  }
}
