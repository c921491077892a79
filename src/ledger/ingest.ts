import { checkContinuity, type LedgerTip } from './store/append-rules.js'
import { InvalidDataError } from './store/errors.js'
import { BatchArena } from './ingest/batch-arena.js'
import { blockOfIngest, ingestBlocksInThread, lineBlockTransactions, type LineBlock } from './ingest/ingest-block.js'
import { sourceName } from './read/lines.js'
import type { LoadOptions } from './read/load.js'
import type { U64 } from '../core/u64.js'
import { appendThroughOutages, retryUnavailable, type BlockKey, type OutageOptions } from './ingest/outage.js'
import type { BatchAppendStore, IngestBlock, LedgerInfo } from './store/store.js'
import type { BlockJson } from './store/types.js'

/** Options of `ingestJsonLines`. */
export interface IngestOptions extends LoadOptions {
  /** Blocks per database transaction at most (default 4096). Each block is still all-or-nothing. */
  batchBlocks?: number
  /**
   * Transactions per database transaction at most (default 20,000), so big blocks batch less.
   * Fewer, bigger commits write each account-index page to the WAL fewer times (bench/stores.ts).
   */
  batchTransactions?: number
  /** Stops reading when aborted; what was read is committed first. */
  signal?: AbortSignal
  /**
   * Commits the blocks read so far once this long (ms) has passed since the first of them was
   * read, even when the batch is not full: a stream paced by its producer (a live feed on
   * standard input) then reaches readers within about this long, while a fast input still
   * fills whole batches. Default: none, commits only when a batch is full (a file).
   */
  commitIntervalMs?: number | undefined
  /**
   * How a database outage is ridden out (`retryUnavailable`): reads and commits that fail with
   * `LedgerUnavailableError` are retried with backoff until they succeed, the pending batch
   * kept; `signal` stops the retries.
   */
  outage?: Omit<OutageOptions, 'signal'> | undefined
}

/** What an ingest did. */
export interface IngestSummary {
  /** Blocks appended to the store. */
  appended: number
  /** Blocks of the input already in the store (same hash and versions) or below its pruned history. */
  skipped: number
  /** True when stopped by the signal before the end of the input. */
  interrupted: boolean
  /** The store's ledger info at the end. */
  ledger: LedgerInfo | null
}

interface Pending {
  block: IngestBlock
  line: number
}

/**
 * Appends a JSON Lines chain file to a persistent ledger (SQLite or PostgreSQL), resumably: input blocks at heights the
 * store already has are skipped when identical to the stored ones (block hash and versions) and
 * refused when they differ, so an interrupted or crashed run is finished by running it again.
 * The input itself must be contiguous (each block's height and first version follow the line
 * before), so a gap or a duplicate line is refused even where it would be skipped.
 *
 * Blocks are appended in batches sharing one database transaction (`appendBlocks`); a refused block rolls back only
 * itself, and the blocks read before any error are committed before it is thrown. The next batch
 * is read while one commits, and is written only once that one has. A crash loses at most the
 * uncommitted batches, never part of a block.
 *
 * @throws InvalidDataError naming file, line and field.
 */
export async function ingestJsonLines(source: string, store: BatchAppendStore, options: IngestOptions = {}): Promise<IngestSummary> {
  const file = sourceName(source)
  const maxBlocks = options.batchBlocks ?? 4096
  const maxTxns = options.batchTransactions ?? 20_000
  const interval = options.commitIntervalMs
  const outage: OutageOptions = { ...options.outage, signal: options.signal }
  const retry = <T>(read: () => Promise<T> | T) => retryUnavailable(read, outage)
  const stored = await retry(() => store.ledgerInfo())
  let appended = 0
  let skipped = 0
  let interrupted = false
  let previous: LedgerTip | null = null
  let pending: Pending[] = []
  let pendingTxns = 0

  // One batch may be committing while the next is read: a database in another process (or
  // another thread's work) then overlaps with reading. `committing` is that batch's commit, its
  // failure held until the next `flush` or `settle`, which keeps batches in order and stops at
  // the first refused one.
  let committing: Promise<void> | undefined
  // A pending batch's transaction bytes, copied out of the read chunks (`BatchArena`): one arena
  // fills while the other's batch commits.
  let filling = new BatchArena()
  let sent = new BatchArena()
  // Set when the batch just sent was written before its append returned (a store that writes
  // synchronously, as SQLite's does): nothing reads its bytes after that, so the arena it
  // filled fills the next batch too, and the memory of one arena is all a run touches.
  let written = false
  let commitFailed = false
  const commit = async (batch: Pending[]) => {
    const blocks = batch.map((p) => p.block)
    const append = (some: readonly IngestBlock[]) => {
      const result = store.appendChecked !== undefined ? store.appendChecked(some) : store.appendBlocks(some.map(blockOfIngest))
      written = typeof (result as Partial<PromiseLike<unknown>>).then !== 'function'
      return result
    }
    try {
      const result = await appendThroughOutages(store, blocks, append, keyOfIngest, outage)
      appended += result.appended
      if (result.appended < batch.length) throw InvalidDataError.at(file, (batch[result.appended] as Pending).line, result.refused)
    } catch (error) {
      commitFailed = true
      throw error
    }
  }
  const settle = async () => {
    const running = committing
    committing = undefined
    await running
  }
  const flush = async () => {
    await settle()
    if (pending.length === 0) return
    const batch = pending
    pending = []
    pendingTxns = 0
    written = false
    committing = commit(batch)
    // Handled here, awaited (and thrown) by the next settle.
    committing.catch(() => {})
    // Otherwise the batch just sent keeps its bytes in its arena until its commit settles, which
    // the next flush awaits before sending another; the next batch fills the other arena, whose
    // batch settled at the top of this flush.
    if (!written) [filling, sent] = [sent, filling]
    filling.reset()
  }

  // Every skipped line is compared with the stored block; a store that offers `blockHeaders`
  // is read a window of `maxBlocks` heights at a time (input heights only rise).
  let window = new Map<string, BlockJson>()
  let windowEnd = -1n
  const storedHeader = async (height: U64): Promise<BlockJson | null> => {
    const headers = store.blockHeaders?.bind(store)
    if (headers === undefined) return retry(() => store.blockByHeight(height, false))
    if (BigInt(height) > windowEnd) {
      window = new Map((await retry(() => headers(height, maxBlocks))).map((b) => [b.block_height, b]))
      windowEnd = BigInt(height) + BigInt(maxBlocks) - 1n
    }
    return window.get(String(height)) ?? null
  }

  const lines = ingestBlocksInThread(source, { stdin: options.stdin, maxLineBytes: options.maxLineBytes, file, maxTransactions: store.maxBlockTransactions })
  /** The read of the next line, kept across a commit that its wait made due. */
  let nextLine: Promise<IteratorResult<{ line: number; block: LineBlock }>> | undefined
  /** When the first pending block was read (`performance.now()`). */
  let firstPendingAt = 0
  try {
    for (;;) {
      nextLine ??= lines.next()
      const deadline = interval !== undefined && pending.length > 0 ? firstPendingAt + interval : undefined
      // A stream (a commit interval) may go quiet, so the signal is watched while waiting; a
      // file's next line is never far, and is checked for the signal below.
      const step = interval === undefined ? await nextLine : await nextOrDue(nextLine, deadline, options.signal)
      if (step === 'due') {
        await flush()
        continue
      }
      if (step === 'aborted') {
        interrupted = true
        break
      }
      nextLine = undefined
      if (step.done === true) break
      const { line, block } = step.value
      if (options.signal?.aborted) {
        interrupted = true
        break
      }
      // Each line is checked on its own and against the line before (`previous`, set below).
      const { checked } = block
      try {
        checkContinuity(checked.parsed, previous, 'previous line')
      } catch (error) {
        throw InvalidDataError.at(file, line, error)
      }
      const { block_height, first_version, last_version } = checked.parsed
      previous = { block_height, last_version }
      if (stored !== null && block_height <= stored.block_height) {
        const have = await storedHeader(block_height)
        // null: below the pruned history, nothing to compare with.
        if (have !== null && (have.block_hash !== checked.block_hash || have.first_version !== String(first_version) || have.last_version !== String(last_version))) {
          throw new InvalidDataError(
            file,
            line,
            have.block_hash !== checked.block_hash ? 'block_hash' : 'first_version',
            `block ${block_height} differs from the one in ${store.path} (stored ${have.block_hash} versions ${have.first_version}..${have.last_version}, input ${checked.block_hash} versions ${first_version}..${last_version})`,
          )
        }
        skipped++
        continue
      }
      if (pending.length === 0) firstPendingAt = performance.now()
      pending.push({ block: filling.holdLine(block), line })
      pendingTxns += lineBlockTransactions(block)
      if (pending.length >= maxBlocks || pendingTxns >= maxTxns) await flush()
    }
  } catch (error) {
    // Keep the good blocks read before the bad line: a rerun then resumes after them. Not past
    // a batch that failed to commit: the blocks after it must not be appended.
    if (!commitFailed) {
      await flush()
      await settle()
    }
    throw error
  } finally {
    // A read still waiting (a stream that went quiet when the signal stopped us) would hold up
    // returning the generator: it is returned once that read settles.
    if (nextLine === undefined) await lines.return(undefined)
    else
      void nextLine.then(
        () => lines.return(undefined),
        () => {},
      )
  }
  await flush()
  await settle()
  return { appended, skipped, interrupted, ledger: await retry(() => store.ledgerInfo()) }
}

/** The key `appendThroughOutages` checks a block by after a lost commit. */
const keyOfIngest = (b: IngestBlock): BlockKey => ({ height: b.checked.parsed.block_height, hash: b.checked.block_hash })

/**
 * The next line, or `'due'` when `deadline` (a `performance.now()` time) comes first, or
 * `'aborted'` when `signal` does; `next` stays pending for the next call.
 */
async function nextOrDue<T>(next: Promise<T>, deadline: number | undefined, signal: AbortSignal | undefined): Promise<T | 'due' | 'aborted'> {
  if (signal?.aborted) return 'aborted'
  if (deadline !== undefined && deadline <= performance.now()) return 'due'
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort: (() => void) | undefined
  try {
    return await Promise.race<T | 'due' | 'aborted'>([
      next,
      new Promise<'due' | 'aborted'>((resolve) => {
        if (deadline !== undefined) timer = setTimeout(() => resolve('due'), Math.max(0, deadline - performance.now()))
        onAbort = () => resolve('aborted')
        signal?.addEventListener('abort', onAbort, { once: true })
      }),
    ])
  } finally {
    clearTimeout(timer)
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
  }
}
