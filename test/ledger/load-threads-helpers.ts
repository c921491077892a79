import { readFileSync } from 'node:fs'
import { parseAddress } from '../../src/ledger/store/address.js'
import { InvalidDataError } from '../../src/ledger/store/errors.js'
import type { RangeRunner } from '../../src/ledger/threads/load-threads.js'
import { loadRange } from '../../src/ledger/threads/load-range.js'
import type { ThreadedLoadOptions } from '../../src/ledger/threads/load-threads.js'
import { loadMemoryStore, type MemoryStore } from '../../src/ledger/memory-store.js'

/**
 * A range runner on the calling thread: `loadRange` as a worker runs it, its answer passed
 * through `structuredClone` with the same transfer list as `postMessage`, so the buffers are
 * moved and detached as between threads. Many cuts can be tried without starting threads.
 */
export const inProcess: RangeRunner = (job) => ({
  answer: loadRange(job).then(({ answer, transfer }) => structuredClone(answer, { transfer })),
  stop: async () => {},
})

/** Every sender named in a chain file, canonical (found by their key, not by parsing: the sample has 12,371 transactions). */
export function sendersOf(path: string): string[] {
  const senders = new Set<string>()
  for (const m of readFileSync(path, 'utf8').matchAll(/"sender":\s*"(0x[0-9a-fA-F]+)"/g)) senders.add(parseAddress(m[1] as string) as string)
  return [...senders].sort()
}

/**
 * Every read of a store, as text: the ledger info, each retained transaction by version, each
 * block by height (with its transactions for every 16th), and for each sender its sequence number, its
 * whole listing and the page of its second-newest transaction. Two stores that answer every read alike
 * give equal observations.
 */
export function observe(store: MemoryStore, senders: readonly string[]) {
  const info = store.ledgerInfo()
  const txns: (string | null)[] = []
  const blocks: string[] = []
  if (info !== null) {
    for (let v = Number(info.oldest_ledger_version) - 1; v <= Number(info.ledger_version) + 1; v++) txns.push(store.transactionJsonByVersion(v))
    // Every header; the transactions of every 16th block (each is also read by version above).
    for (let h = Number(info.oldest_block_height) - 1; h <= Number(info.block_height) + 1; h++) blocks.push(JSON.stringify(store.blockByHeight(h, h % 16 === 0)))
  }
  // The page of the second-newest sequence number finds it from the account's first one, which an adopted account carries over.
  const accounts = senders.map((a) => {
    const next = Number(store.accountSequenceNumber(a))
    return [next, store.accountTransactionsJson(a, 0, 1e9), store.accountTransactionsJson(a, next - 2, 1)]
  })
  return { info, txns, blocks, accounts }
}

/** A load's outcome: the store, or its error as the fields a caller reads. */
export async function outcome(path: string, options: Omit<ThreadedLoadOptions, 'maxBlockTransactions'>): Promise<{ store: MemoryStore } | { error: { type: string; message: string; file: string; line: number; field: string; cause: string } }> {
  try {
    return { store: await loadMemoryStore(path, options) }
  } catch (error) {
    if (!(error instanceof InvalidDataError)) throw error
    const cause = error.cause instanceof Error ? `${error.cause.constructor.name}: ${error.cause.message}` : String(error.cause)
    return { error: { type: error.constructor.name, message: error.message, file: error.file, line: error.line, field: error.field, cause } }
  }
}

/** The 1-based number of the line that starts range `k` of `threads` (the first line starting at or after `k · ceil(size / threads)`). */
export function lineAtCut(text: string, threads: number, k: number): number {
  const bytes = Buffer.from(text)
  const at = k * Math.ceil(bytes.length / threads)
  let line = 1
  for (let p = bytes.indexOf(10); p !== -1 && p < at - 1; p = bytes.indexOf(10, p + 1)) line++
  return line + 1
}
