import { availableParallelism } from 'node:os'
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads'

/**
 * Where a `ByteArena` takes its chunks from and tells how far it has written (`ByteArena.source`).
 * `take` returns `undefined` to leave the arena to allocate a chunk itself.
 */
export interface ChunkSource {
  take(bytes: number): Buffer | undefined
  /** The arena has written `chunk` (one `take` returned, or one of its own) up to `offset`. */
  reached(chunk: Buffer, offset: number): void
}

/**
 * Bytes the worker touches ahead of the writer: far enough that it stays ahead while the writer
 * fills pages, near enough that a load ends with little touched and unused.
 */
export const AHEAD_BYTES = 4 << 20
/** The writer publishes its position each time it crosses a multiple of this: an atomic store per record would cost more than it saves. */
const PUBLISH_BYTES = 512 << 10
/**
 * How long the worker sleeps when it is AHEAD_BYTES ahead or has no chunk yet: the writer, which
 * packs a few tens of MB a second, moves far less than AHEAD_BYTES in that time.
 */
const WAIT_MS = 2
/** The smallest page of the platforms Node runs on; a larger page is touched more than once, which costs nothing more. */
const PAGE = 4096

/**
 * The worker. It takes chunks from its port in the order the arena fills them and writes one byte
 * of each page up to `AHEAD_BYTES` past the writer, as an atomic add of 0: a write access, so the
 * page is mapped writable, that keeps whatever byte the writer may have put there meanwhile. Then
 * it sleeps `WAIT_MS` and looks again. Cell 0: the writer's position, cell 1: the worker's, both in pages
 * of the chunks taken so far, end to end.
 */
const WORKER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads')
const { port, cells, ahead, page, wait } = workerData
const chunks = []
let chunk = 0, at = 0, base = 0
touch: for (;;) {
  let m
  while ((m = receiveMessageOnPort(port)) !== undefined) {
    if (m.message === null) break touch
    chunks.push(m.message)
  }
  const writer = Atomics.load(cells, 0)
  const c = chunks[chunk]
  if (c !== undefined && base + at < writer * page + ahead) {
    const end = Math.min(c.length, writer * page + ahead - base)
    let i = at
    for (; i < end; i += page) Atomics.add(c, i, 0)
    at = i
    if (at >= c.length) { base += c.length; chunks[chunk++] = undefined; at = 0 }
    Atomics.store(cells, 1, (base + at) / page)
    continue
  }
  Atomics.wait(cells, 0, writer, wait)
}
`

/**
 * Touches a memory store's arena pages on a second thread, ahead of the load writing them.
 *
 * The first write to a fresh page costs a page fault, and on some virtual machines a fault costs
 * tens of microseconds; a large chain file's arena is thousands of pages, a large part of what a
 * `serve --data` start waits for. The worker takes those faults on another core while the main
 * thread reads the file. The chunks it hands the arena are shared memory, so the pages it touched
 * are the arena's. It keeps at most `AHEAD_BYTES` ahead of the writer, so a load ends with at most
 * that touched and unused (a taken chunk's untouched tail costs nothing).
 *
 * @example
 * const toucher = PageToucher.start(ByteArena.DEFAULT_CHUNK_BYTES)
 * arena.source = toucher; … load …; arena.source = undefined; toucher?.stop()
 */
export class PageToucher implements ChunkSource {
  readonly #worker: Worker
  readonly #port: MessagePort
  readonly #cells = new Int32Array(new SharedArrayBuffer(8))
  readonly #chunkBytes: number
  /** The chunk `take` hands out next: allocated (untouched, so free) one chunk early, so the worker can run ahead into it. */
  #spare: Buffer
  /**
   * The chunk handed out last (empty before the first), and the pages of those before it. Never
   * undefined, so every `take` runs the same code as the first.
   */
  #current: Buffer = Buffer.alloc(0)
  #pagesBefore = 0
  #published = -1
  #stopped = false

  private constructor(chunkBytes: number) {
    this.#chunkBytes = chunkBytes
    const { port1, port2 } = new MessageChannel()
    this.#port = port1
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, cells: this.#cells, ahead: AHEAD_BYTES, page: PAGE, wait: WAIT_MS }, transferList: [port2] })
    // The worker never keeps the process alive, and one that fails leaves the arena to fault its own pages.
    this.#worker.unref()
    this.#worker.on('error', () => this.stop())
    this.#spare = this.#shared(chunkBytes)
  }

  /**
   * A toucher for an arena of `chunkBytes` chunks; `undefined` on one core, where the worker
   * would only take turns with the writer, or where a worker cannot start.
   */
  static start(chunkBytes: number): PageToucher | undefined {
    if (availableParallelism() < 2) return undefined
    try {
      return new PageToucher(chunkBytes)
    } catch {
      return undefined
    }
  }

  /** Bytes from the start of the first chunk taken up to where the worker has touched (chunks end to end), for tests. */
  get touchedBytes(): number {
    return Atomics.load(this.#cells, 1) * PAGE
  }

  /** Bytes from the start of the first chunk taken up to the writer's last published position. */
  get writtenBytes(): number {
    return Atomics.load(this.#cells, 0) * PAGE
  }

  #shared(bytes: number): Buffer {
    const buffer = new SharedArrayBuffer(bytes)
    this.#port.postMessage(new Uint8Array(buffer))
    return Buffer.from(buffer)
  }

  take(bytes: number): Buffer | undefined {
    if (this.#stopped || bytes !== this.#chunkBytes) return undefined
    this.#pagesBefore += this.#current.length / PAGE
    this.#current = this.#spare
    this.#spare = this.#shared(bytes)
    this.#publish(0)
    return this.#current
  }

  reached(chunk: Buffer, offset: number): void {
    if (chunk !== this.#current || Math.floor(offset / PUBLISH_BYTES) === this.#published) return
    this.#publish(offset)
  }

  #publish(offset: number): void {
    this.#published = Math.floor(offset / PUBLISH_BYTES)
    // No notify: waking the worker is a system call on the writer's thread each time, and the
    // worker polls often enough (WAIT_MS) that the writer never gets near the pages it touches.
    Atomics.store(this.#cells, 0, this.#pagesBefore + Math.floor(offset / PAGE))
  }

  /** Ends the worker; chunks taken after this are the arena's own. */
  stop(): void {
    if (this.#stopped) return
    this.#stopped = true
    this.#port.postMessage(null)
    void this.#worker.terminate()
  }
}
