import type { IngestBlock } from '../store/store.js'
import { toKey, type LedgerStatements } from './sqlite-schema.js'

/**
 * Inside an append transaction, writes the first `count` of `blocks` (checked, in order): a row
 * each, and their transactions `INSERT_ROWS` rows per statement. `rows` holds the parameters of
 * one multi-row insert (`4 * INSERT_ROWS` of them), reused; it is left empty.
 */
export function writeBlocks(s: LedgerStatements, rows: unknown[], blocks: readonly IngestBlock[], count: number): void {
  let k = 0
  for (let b = 0; b < count; b++) {
    const { checked, transactionJson } = blocks[b] as IngestBlock
    const { parsed, entries } = checked
    s.insertBlock.run(toKey(parsed.block_height), checked.block_hash, String(checked.block_timestamp), toKey(parsed.first_version), toKey(parsed.last_version), String(parsed.epoch))
    // Versions are first_version + i (checkBlock holds each transaction to it).
    const first = toKey(parsed.first_version)
    let e = 0
    for (let i = 0; i < transactionJson.length; i++) {
      const entry = entries[e]
      rows[k] = first + BigInt(i)
      if (entry !== undefined && entry.index === i) {
        rows[k + 1] = entry.address
        rows[k + 2] = toKey(entry.sequence_number)
        e++
      } else {
        rows[k + 1] = null
        rows[k + 2] = null
      }
      rows[k + 3] = transactionJson[i]
      k += 4
      if (k === rows.length) {
        s.insertTxns.run(...rows)
        k = 0
      }
    }
  }
  for (let j = 0; j < k; j += 4) s.insertTxn.run(rows[j] as bigint, rows[j + 1] as string | null, rows[j + 2] as bigint | null, rows[j + 3] as Uint8Array)
  rows.fill(undefined)
}
