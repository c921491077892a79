import { open } from 'node:fs/promises'
import { chunkRange, readChunks } from '../read/file-range.js'
import { spawnLedgerWorker } from './ledger-worker.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS, DEFAULT_MAX_LINE_BYTES } from '../store/limits.js'
import { readLineBytes, regularFileSize, sourceName } from '../read/lines.js'
import { appendJsonLines, type LoadOptions } from '../read/load.js'
import type { LoadAnswer, LoadJob } from './load-protocol.js'
import type { LedgerStore } from '../store/store.js'
import type { StoreParts } from '../memory/store-parts.js'

/** How `loadJsonLinesThreaded` reads a chain file. */
export interface ThreadedLoadOptions extends LoadOptions {
  /**
   * Worker threads that pack the file, each its own byte range; 0 (the default) loads it on the
   * calling thread.
   */
  threads?: number | undefined
  /** Smallest file loaded by worker threads (default `THREADS_FROM_BYTES`, 64 MiB); a smaller one loads on the calling thread. */
  threadsFromBytes?: number | undefined
  /** The store's limit of transactions per block, which the workers' stores apply too. */
  maxBlockTransactions?: number | undefined
  /**
   * How a range is loaded (default `workerRunner`: on a worker thread of its own). Tests pass one
   * that runs `loadRange` on the calling thread (through `loadMemoryStore`), to try many cuts
   * without starting threads.
   */
  runner?: RangeRunner | undefined
}

/**
 * Starts loading one range (`loadRange` somewhere): its answer as `postMessage` delivers it, and
 * `stop`, which ends the work (if still running) and resolves once its memory is given back.
 */
export type RangeRunner = (job: LoadJob) => { answer: Promise<LoadAnswer>; stop(): Promise<void> }

/**
 * Loads a range on a worker thread of its own (`load-worker.ts`), which ends after it answers.
 * A worker that fails or exits without answering answers an error.
 *
 * @throws Error when the worker module is missing (`spawnLedgerWorker`).
 */
export const workerRunner: RangeRunner = (job) => {
  const worker = spawnLedgerWorker('load-worker', job)
  const answer = new Promise<LoadAnswer>((resolve) => {
    worker.once('message', resolve)
    worker.once('error', (error) => resolve({ type: 'error', message: error.message }))
    worker.once('exit', (code) => resolve({ type: 'error', message: `load worker exited with code ${code}` }))
  })
  // The worker ends by itself after answering; terminating waits for its thread, and heap, to be gone.
  return { answer, stop: async () => void (await worker.terminate()) }
}

/**
 * Below this size a file loads on the calling thread: each worker starts cold (V8 compiles the
 * packer in each thread anew, and under tsx the loader too), which only a large file repays.
 * The measured figures behind the threshold are in docs/benchmarks.md (bench/memory-store.ts).
 */
export const THREADS_FROM_BYTES = 64 << 20

/**
 * Load workers when `threads` is not given: none, so the calling thread loads the file. On 2
 * cores two workers reached the first answer later than the calling thread alone and peaked
 * higher in RSS (bench/serve-startup.ts, docs/benchmarks.md): each starts cold, and the parts
 * they hand over are adopted on the calling thread after them. Threads are for a machine where
 * `--load-threads` measures faster.
 */
const DEFAULT_THREADS = 0

/**
 * Loads a JSON Lines chain file into `store` as `loadJsonLines` does, with the packing done by
 * worker threads: the file is cut at line boundaries into one byte range per worker, each
 * worker loads its range into a memory store of its own (`load-worker.ts`) and posts that
 * store's parts (`StoreParts`: the packed chunks are transferred, not copied), and `adopt`
 * appends them to `store` in file order if the rules that join a range to the one before hold
 * (continuity across the cut, each sender's sequence numbers across the cut). So the calling
 * thread's heap, and its young generation, never hold the load's short-lived objects.
 *
 * The result is what `loadJsonLines` gives, error included: when a worker stops at a bad line,
 * or a joining rule fails, the ranges before it are adopted and this thread loads the rest of
 * the file from that range's start with `loadJsonLines`' own loop (`appendJsonLines`), which
 * throws its error for the first bad line. Returns false, with nothing appended, when the file
 * is for the calling thread to load: `threads` is 0, the source is standard input (`-`) or
 * anything but a regular file, the file is under `threadsFromBytes`, or the first range
 * could not be adopted (the sequential load then words its error).
 *
 * `adopt(parts)` returns false, with `store` unchanged, when a joining rule fails.
 *
 * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
 *   that the store refuses; the blocks before it stay appended.
 */
export async function loadJsonLinesThreaded(source: string, store: LedgerStore, adopt: (parts: StoreParts) => boolean, options: ThreadedLoadOptions = {}): Promise<boolean> {
  const threads = Math.floor(options.threads ?? DEFAULT_THREADS)
  if (!(threads >= 1)) return false
  const maxLineBytes = checkLimitOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
  // -1 for `-`, a pipe or a path that cannot be read: the sequential load words its error.
  const size = await regularFileSize(source)
  if (size < (options.threadsFromBytes ?? THREADS_FROM_BYTES) || size <= 0) return false

  const file = sourceName(source)
  const ranges: { start: number; end: number }[] = []
  const fh = await open(source, 'r')
  try {
    const rangeBytes = Math.ceil(size / threads)
    for (let i = 0; i < threads; i++) {
      const range = await chunkRange(fh, i, rangeBytes, size, maxLineBytes)
      if (range.end > range.start) ranges.push(range)
    }
  } finally {
    await fh.close()
  }

  const runner = options.runner ?? workerRunner
  const running: ReturnType<RangeRunner>[] = []
  const maxBlockTransactions = options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS
  // Before returning, or loading on this thread, the workers are gone: the caller measures, or needs the cores.
  const stopAll = async () => void (await Promise.all(running.map((r) => r.stop())))
  try {
    for (const { start, end } of ranges) {
      try {
        running.push(runner({ path: source, file, start, end, maxLineBytes, maxBlockTransactions }))
      } catch {
        // No worker module (a bundle without it): the ranges from here on load on this thread.
        break
      }
    }
    let linesBefore = 0
    for (const [i, range] of ranges.entries()) {
      const answer = await running[i]?.answer
      if (answer?.type === 'parts' && adopt(answer.parts)) {
        linesBefore += answer.newlines
        continue
      }
      await stopAll()
      // Nothing is adopted before the first range: the calling thread loads the whole file.
      if (i === 0) return false
      const rest = readLineBytes(readChunks(source, range.start), { file, maxLineBytes, bom: false, firstLine: linesBefore + 1 })
      await appendJsonLines(rest, store, file)
      return true
    }
    return true
  } finally {
    await stopAll()
  }
}
