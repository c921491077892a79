/**
 * Worker thread of a threaded block scan (`scan-threads.ts`): scans the chunks of a file it is
 * given, in order, with the same line splitter and block scanner as a sequential scan, and posts
 * each chunk's blocks as transferred batches (`BlockBatch`es of engine blocks), then the chunk's
 * line count. At most the job's `credit` batches are in flight: the main thread grants one back
 * per batch it consumes, so a worker ahead of the reader waits instead of filling memory.
 */
import { open } from 'node:fs/promises'
import { parentPort, type MessagePort } from 'node:worker_threads'
import { BlockBatchWriter, type BlockBatch } from './block-batch.js'
import { InvalidDataError } from '../store/errors.js'
import { toErrorFields } from './error-fields.js'
import { readLineBytes } from '../read/lines.js'
import { BlockScanner } from '../read/block-scanner.js'
import { chunkRange, readRange } from '../read/file-range.js'
import type { ScanMode, ToMain, ToWorker } from './scan-protocol.js'

/** An engine batch is sent at this many blocks or user transactions, whichever comes first. */
const BATCH_BLOCKS = 1024
const BATCH_TXNS = 1 << 16

/** One line into the batch being built; `full()` once it should be sent. */
interface Batcher {
  add(line: number, bytes: Buffer): void
  readonly count: number
  full(): boolean
  take(): { batch: BlockBatch; transfer: ArrayBuffer[] }
}

/** The batch of engine blocks being built (`mode` is the job's, `{ kind: 'blocks' }`). */
function batcher(_mode: ScanMode, file: string, scanner: BlockScanner): Batcher {
  const w = new BlockBatchWriter()
  return {
    add: (line, bytes) => w.add(line, scanner.blockOfLine(file, line, bytes)),
    get count() {
      return w.count
    },
    full: () => w.count >= BATCH_BLOCKS || w.txns >= BATCH_TXNS,
    take: () => w.take(),
  }
}

/**
 * One worker's state: the job it runs (-1 for none), the batches it may still send, and the
 * wait for a credit. A worker runs one job at a time; a new job replaces a cancelled one.
 */
class ScanWorker {
  readonly #port: MessagePort
  /** One scanner for every line this worker reads: it learns the keys of the node's JSON. */
  readonly #scanner = new BlockScanner()
  #job = -1
  #credit = 0
  #granted: (() => void) | undefined

  constructor(port: MessagePort) {
    this.#port = port
    port.on('message', (m: ToWorker) => this.#receive(m))
  }

  #post(message: ToMain, transfer: ArrayBuffer[] = []): void {
    this.#port.postMessage(message, transfer)
  }

  #receive(m: ToWorker): void {
    if (m.type === 'credit') {
      if (m.job !== this.#job) return
      this.#credit++
      this.#granted?.()
      this.#granted = undefined
    } else if (m.type === 'cancel') {
      if (m.job === this.#job) this.#job = -1
      this.#granted?.()
      this.#granted = undefined
    } else {
      this.#job = m.job
      this.#credit = m.credit
      void this.#run(m).catch((error: unknown) => {
        if (this.#job === m.job) this.#post({ type: 'error', job: m.job, chunk: -1, line: 0, error: toErrorFields(error) })
      })
    }
  }

  /** Waits until a batch may be sent; false when the job was cancelled meanwhile. */
  async #mayPost(id: number): Promise<boolean> {
    while (this.#job === id && this.#credit === 0) await new Promise<void>((resolve) => (this.#granted = resolve))
    if (this.#job !== id) return false
    this.#credit--
    return true
  }

  async #run(m: Extract<ToWorker, { type: 'job' }>): Promise<void> {
    const fh = await open(m.path, 'r')
    try {
      for (let chunk = m.first; chunk < m.chunks; chunk += m.step) {
        if (this.#job !== m.job) return
        const { start, end } = await chunkRange(fh, chunk, m.chunkBytes, m.size, m.maxLineBytes)
        const counted = { newlines: 0, last: 10 }
        const writer = batcher(m.mode, m.file, this.#scanner)
        let line = 0
        try {
          const lines = readLineBytes(readRange(fh, start, end, counted), { file: m.file, maxLineBytes: m.maxLineBytes, bom: start === 0 })
          for await (const { number, bytes } of lines) {
            line = number
            writer.add(number, bytes)
            if (writer.full()) {
              if (!(await this.#mayPost(m.job))) return
              const { batch, transfer } = writer.take()
              this.#post({ type: 'batch', job: m.job, chunk, batch }, transfer)
            }
          }
        } catch (error) {
          // The blocks before the bad line come first, as in a sequential scan.
          if (writer.count > 0) {
            if (!(await this.#mayPost(m.job))) return
            const { batch, transfer } = writer.take()
            this.#post({ type: 'batch', job: m.job, chunk, batch }, transfer)
          }
          this.#post({ type: 'error', job: m.job, chunk, line: error instanceof InvalidDataError ? error.line : line, error: toErrorFields(error) })
          // Only this job stops: after a cancel, the main thread may already have handed this
          // worker its next job, which an unconditional reset would stall for good.
          if (this.#job === m.job) this.#job = -1
          return
        }
        if (writer.count > 0) {
          if (!(await this.#mayPost(m.job))) return
          const { batch, transfer } = writer.take()
          this.#post({ type: 'batch', job: m.job, chunk, batch }, transfer)
        }
        // Lines start after each newline, and at the range's end when the file ends without one.
        const lines = counted.newlines + (end === m.size && end > start && counted.last !== 10 ? 1 : 0)
        this.#post({ type: 'chunk-end', job: m.job, chunk, lines })
      }
      if (this.#job === m.job) this.#post({ type: 'done', job: m.job })
    } finally {
      await fh.close()
    }
  }
}

const port = parentPort
if (port === null) throw new Error('scan-worker.ts runs as a worker thread')
new ScanWorker(port)
