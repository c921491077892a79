import type { U64 } from '../../core/u64.js'
import { LedgerUnavailableError } from '../store/database-error.js'
import { LedgerContinuityError } from '../store/errors.js'
import type { BatchAppendResult, BatchAppendStore } from '../store/store.js'

/** A retry of a ledger operation after the database could not be reached. */
export interface OutageEvent {
  /** 1 for the first retry of this outage. */
  attempt: number
  /** Wait before this retry (ms). */
  delayMs: number
  /** What failed (a `LedgerUnavailableError`). */
  error: LedgerUnavailableError
}

/** How a writer rides out an outage of its database. */
export interface OutageOptions {
  /** First wait after a failure (ms, default 100); each further one doubles, up to `maxDelayMs`. */
  initialDelayMs?: number | undefined
  /** Longest wait between two tries (ms, default 2000): how late the writer notices the database is back. */
  maxDelayMs?: number | undefined
  /** Stops retrying: the last failure is thrown. */
  signal?: AbortSignal | undefined
  /** Called before each wait. */
  onOutage?: ((event: OutageEvent) => void) | undefined
  /** Called once the operation succeeds after at least one failure, with the number of retries. */
  onRecovered?: ((attempts: number) => void) | undefined
  /** Test seam: waits `ms` or rejects when `signal` aborts. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Runs `operation` until it does not fail with `LedgerUnavailableError` (a lost connection,
 * a server restarting or failing over, SQLite's `SQLITE_BUSY`): between tries it waits with
 * doubling backoff, without limit on the number of tries, since an outage ends and a writer
 * that exits needs a supervisor. Any other error is thrown at once: retrying cannot fix bad
 * data, a foreign schema or a refused password. Aborting `options.signal` throws the last
 * failure.
 *
 * @example const info = await retryUnavailable(() => store.ledgerInfo(), { onOutage: log })
 */
export async function retryUnavailable<T>(operation: () => Promise<T> | T, options: OutageOptions = {}): Promise<T> {
  const initial = options.initialDelayMs ?? 100
  const max = options.maxDelayMs ?? 2000
  const sleep = options.sleep ?? wait
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await operation()
      if (attempt > 1) options.onRecovered?.(attempt - 1)
      return result
    } catch (error) {
      if (!(error instanceof LedgerUnavailableError) || options.signal?.aborted) throw error
      const delayMs = Math.min(max, initial * 2 ** Math.min(attempt - 1, 30))
      options.onOutage?.({ attempt, delayMs, error })
      try {
        await sleep(delayMs, options.signal)
      } catch {
        throw error
      }
    }
  }
}

/** What `appendThroughOutages` needs of a block: its height and hash, to tell whether a lost commit took it. */
export interface BlockKey {
  height: U64
  hash: string
}

/**
 * Appends `blocks` with `append` (a store's `appendBlocks` or `appendChecked`), riding out
 * outages (`retryUnavailable`). A failed commit may have committed or not, so before each retry
 * the ledger's tip is read again: blocks at or below it were taken by the lost commit (each
 * checked to be the stored block, by hash) and are counted, not sent again; the rest are
 * appended. So no block is lost or appended twice, however often the connection drops.
 *
 * @returns as `appendBlocks`: the blocks appended (those a lost commit took included) and the refusal, if any.
 * @throws LedgerContinuityError when a block at a height the lost commit should have written is another block (a second writer).
 */
export async function appendThroughOutages<B>(store: BatchAppendStore, blocks: readonly B[], append: (blocks: readonly B[]) => Promise<BatchAppendResult> | BatchAppendResult, keyOf: (block: B) => BlockKey, options: OutageOptions = {}): Promise<BatchAppendResult> {
  let done = 0
  let failed = false
  return retryUnavailable(async () => {
    if (failed) done += await alreadyCommitted(store, blocks.slice(done), keyOf)
    failed = true
    const rest = blocks.slice(done)
    const result = rest.length === 0 ? { appended: 0 } : await append(rest)
    return result.refused === undefined ? { appended: done + result.appended } : { appended: done + result.appended, refused: result.refused }
  }, options)
}

/** How many of `blocks`, from the first, the ledger already holds: those at or below its tip, each checked by hash. */
async function alreadyCommitted<B>(store: BatchAppendStore, blocks: readonly B[], keyOf: (block: B) => BlockKey): Promise<number> {
  const first = blocks[0]
  if (first === undefined) return 0
  const info = await store.ledgerInfo()
  if (info === null) return 0
  const tip = BigInt(info.block_height)
  const from = BigInt(keyOf(first).height)
  if (tip < from) return 0
  const count = Number(tip - from + 1n > BigInt(blocks.length) ? BigInt(blocks.length) : tip - from + 1n)
  const stored = store.blockHeaders !== undefined ? await store.blockHeaders(keyOf(first).height, count) : await Promise.all(blocks.slice(0, count).map(async (b) => store.blockByHeight(keyOf(b).height, false)))
  const hashes = new Map(stored.flatMap((b) => (b === null ? [] : [[b.block_height, b.block_hash] as const])))
  for (const b of blocks.slice(0, count)) {
    const { height, hash } = keyOf(b)
    const have = hashes.get(String(height))
    if (have !== hash) throw new LedgerContinuityError(`${store.path}: block ${height} is ${have ?? 'missing'} in the ledger after a lost commit, not ${hash} as written: another writer appended meanwhile`)
  }
  return count
}
