import { stat } from 'node:fs/promises'
import type { Worker } from 'node:worker_threads'
import { BlockBatchReader, type BlockBatch } from './block-batch.js'
import { InvalidDataError } from '../store/errors.js'
import { causeOptions, fromErrorFields, type ErrorFields } from './error-fields.js'
import { spawnLedgerWorker } from './ledger-worker.js'
import { checkLimitOption, DEFAULT_MAX_LINE_BYTES } from '../store/limits.js'
import type { ScanMode, ToMain, ToWorker } from './scan-protocol.js'
import type { ScannedLine } from '../read/block-scanner.js'

/** How a threaded scan splits its file. */
export interface ThreadedScanOptions {
  /** Worker threads that scan (at least 1). */
  threads: number
  /** The source's name in messages (default: the path). */
  file?: string | undefined
  /** Longest line accepted, in bytes (default `DEFAULT_MAX_LINE_BYTES`). */
  maxLineBytes?: number | undefined
  /** Bytes per chunk, the unit of work handed out round-robin (default: the file over 8 per thread, 1 to 16 MiB). */
  chunkBytes?: number | undefined
}

/**
 * The scan workers of this process: idle ones are kept between scans (unreferenced, so they
 * never keep the process alive), and each scan takes a job number of its own, so that a worker's
 * late messages for an earlier scan are told apart. Every threaded scan shares `pool`, on purpose:
 * a worker's start (and its scanner's warm-up) is paid once per process.
 */
class ScanPool {
  readonly #idle: Worker[] = []
  #nextJob = 1

  /** `n` workers, referenced while they work, and the job number of the scan they serve. */
  take(n: number): { job: number; workers: Worker[] } {
    const workers = this.#idle.splice(0, n)
    while (workers.length < n) {
      const w = spawnLedgerWorker('scan-worker')
      // A worker that dies while idle leaves the pool instead of stalling the next scan.
      w.on('exit', () => {
        const at = this.#idle.indexOf(w)
        if (at !== -1) this.#idle.splice(at, 1)
      })
      workers.push(w)
    }
    for (const w of workers) w.ref()
    return { job: this.#nextJob++, workers }
  }

  /** Gives a worker back after its scan, idle. */
  give(w: Worker): void {
    w.unref()
    this.#idle.push(w)
  }
}

const pool = new ScanPool()

/** One worker's messages for the running job, in order, awaited one at a time. */
class Inbox {
  private readonly queue: ToMain[] = []
  private waiting: ((m: ToMain) => void) | undefined
  private failure: Error | undefined
  private failed: ((e: Error) => void) | undefined

  push(m: ToMain): void {
    if (this.waiting !== undefined) {
      const w = this.waiting
      this.waiting = undefined
      this.failed = undefined
      w(m)
    } else this.queue.push(m)
  }

  fail(error: Error): void {
    this.failure ??= error
    const f = this.failed
    this.waiting = undefined
    this.failed = undefined
    f?.(error)
  }

  next(): Promise<ToMain> {
    const m = this.queue.shift()
    if (m !== undefined) return Promise.resolve(m)
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.waiting = resolve
      this.failed = reject
    })
  }
}

/**
 * Streams the blocks of a JSON Lines file as `scanBlocks` does, with the scanning spread over
 * worker threads: the file is cut into chunks at line boundaries, handed out round-robin, and
 * each worker posts its chunks' blocks as transferred typed arrays (`BlockBatch`), which this
 * generator reads back in file order. So the blocks, their line numbers and the first error
 * (`file:line: field: …`, after the blocks before it) are exactly those of a sequential scan; a
 * test holds them equal. Memory: each worker runs at most a few batches ahead.
 *
 * Pays off on large files and spare cores; a file that is not a regular file (standard input, a
 * pipe) or cannot be read is not for it: `scanBlocks` falls back to a sequential scan then.
 *
 * @example for await (const { block } of scanBlocksThreaded('chain.jsonl', { threads: 2 })) estimator.ingest(block)
 */
export async function* scanBlocksThreaded(path: string, options: ThreadedScanOptions, progress?: { bytes: number }): AsyncGenerator<ScannedLine> {
  const file = options.file ?? path
  for await (const { batch, linesBefore } of threadedBatches(path, options, { kind: 'blocks' }, BLOCK_CREDIT, progress)) {
    const reader = new BlockBatchReader(batch)
    for (let i = 0; i < batch.count; i++) yield { file, line: linesBefore + (batch.lines[i] as number), block: reader.block(i) }
  }
}

/**
 * The error a worker stopped with (as fields), rebuilt on this thread at the file's `line`: an
 * `InvalidDataError` as the one a sequential scan throws there, its cause rebuilt as the same
 * class with the same fields; anything else wrapped, as the cause of an error naming the line.
 */
function errorOnMain(sent: ErrorFields, file: string, line: number): Error {
  if (sent.className === 'InvalidDataError') {
    const { field, detail } = sent.fields as { field: string; detail: string }
    return new InvalidDataError(file, line, field, detail, causeOptions(sent))
  }
  const error = fromErrorFields(sent)
  return new Error(`${file}:${line}: scan worker failed: ${error.message}`, { cause: error })
}

/** Engine batches a worker may have in flight (1,024 blocks each at most). */
const BLOCK_CREDIT = 4
/** The batches of a threaded scan in file order, each with the lines of the chunks before its own. */
async function* threadedBatches(path: string, options: ThreadedScanOptions, mode: ScanMode, credit: number, progress?: { bytes: number }): AsyncGenerator<{ batch: BlockBatch; linesBefore: number }> {
  const file = options.file ?? path
  const maxLineBytes = checkLimitOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
  const threads = Math.max(1, Math.floor(options.threads))
  const { size } = await stat(path)
  const chunkBytes = Math.max(1, Math.floor(options.chunkBytes ?? Math.min(16 << 20, Math.max(1 << 20, Math.ceil(size / (threads * 8))))))
  const chunks = Math.ceil(size / chunkBytes)
  const n = Math.min(threads, Math.max(1, chunks))
  const { job, workers } = pool.take(n)
  const inboxes = workers.map(() => new Inbox())
  const listeners = workers.map((w, i) => {
    const inbox = inboxes[i] as Inbox
    const onMessage = (m: ToMain) => {
      if (m.job === job) inbox.push(m)
    }
    const onError = (e: Error) => inbox.fail(e)
    const onExit = (code: number) => inbox.fail(new Error(`scan worker exited with code ${code}`))
    w.on('message', onMessage)
    w.on('error', onError)
    w.on('exit', onExit)
    return { onMessage, onError, onExit }
  })
  const crashed = new Set<Worker>()
  try {
    workers.forEach((w, i) => w.postMessage({ type: 'job', job, mode, credit, path, file, size, chunkBytes, chunks, first: i, step: n, maxLineBytes } satisfies ToWorker))
    let linesBefore = 0
    for (let chunk = 0; chunk < chunks; chunk++) {
      const w = chunk % n
      const inbox = inboxes[w] as Inbox
      for (;;) {
        let m: ToMain
        try {
          m = await inbox.next()
        } catch (error) {
          crashed.add(workers[w] as Worker)
          throw error
        }
        if (m.type === 'batch') {
          ;(workers[w] as Worker).postMessage({ type: 'credit', job } satisfies ToWorker)
          yield { batch: m.batch, linesBefore }
        } else if (m.type === 'chunk-end') {
          linesBefore += m.lines
          if (progress !== undefined) progress.bytes = Math.min(size, (chunk + 1) * chunkBytes)
          break
        } else if (m.type === 'error') {
          // Line 0 is the chunk's start: the file's line 0 for the first chunk, else the line after the chunks before.
          const line = m.line === 0 ? (linesBefore === 0 ? 0 : linesBefore + 1) : linesBefore + m.line
          throw errorOnMain(m.error, file, line)
        }
      }
    }
  } finally {
    workers.forEach((w, i) => {
      const l = listeners[i] as (typeof listeners)[number]
      w.off('message', l.onMessage)
      w.off('error', l.onError)
      w.off('exit', l.onExit)
    })
    // A worker still busy with this job stops at its next batch or chunk; whatever it still
    // posts carries this job's number, which the next job ignores.
    for (const w of workers) {
      if (crashed.has(w)) void w.terminate()
      else {
        w.postMessage({ type: 'cancel', job } satisfies ToWorker)
        pool.give(w)
      }
    }
  }
}
