import { readFileSync } from 'node:fs'

/**
 * The number of database transactions `ledger-gas ingest` makes of a chain file by default: as
 * `ingestJsonLines` batches, a batch closes at 4096 blocks or once it holds 20,000 transactions
 * (src/ledger/ingest.ts), and the bare baselines commit as often. Also the file's block count.
 */
export function ingestBatches(file: string): { blocks: number; batches: number } {
  let blocks = 0
  let batches = 0
  let pendingBlocks = 0
  let pendingTxns = 0
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.length === 0) continue
    blocks++
    pendingBlocks++
    pendingTxns += (JSON.parse(line) as { transactions: unknown[] }).transactions.length
    if (pendingBlocks >= 4096 || pendingTxns >= 20_000) {
      batches++
      pendingBlocks = 0
      pendingTxns = 0
    }
  }
  return { blocks, batches: batches + (pendingBlocks > 0 ? 1 : 0) }
}
