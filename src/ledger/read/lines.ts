import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { InvalidDataError } from '../store/errors.js'
import { checkLimitOption, DEFAULT_MAX_LINE_BYTES } from '../store/limits.js'

/** One line of a text source with its 1-based number. */
export interface Line {
  number: number
  text: string
}

/** One line of a source as its UTF-8 bytes (no newline, no trailing `\r`, no BOM), with its 1-based number. */
export interface LineBytes {
  number: number
  /** A view of exactly the line's bytes; valid until the next line is asked for. */
  bytes: Buffer
}

/** How `readLines` reads its source. */
export interface LineOptions {
  /** Stream read when the source is `-` (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream | undefined
  /** Longest line accepted, in bytes without the newline (default `DEFAULT_MAX_LINE_BYTES`, 64 MiB). */
  maxLineBytes?: number | undefined
  /** The source's name in messages (default: the path, `<stdin>` for `-`, `<stream>` for a stream). */
  file?: string | undefined
  /**
   * Whether a byte order mark opening the source is dropped (default true). False for a byte
   * range from the middle of a file (a worker's share of a threaded scan), whose first bytes are
   * no file's start.
   */
  bom?: boolean | undefined
  /**
   * The number of the source's first line (default 1). Greater for a byte range from the middle
   * of a file read on its own (a threaded load resuming on the calling thread), so that lines
   * and errors are numbered as in the whole file.
   */
  firstLine?: number | undefined
}

/**
 * What the splitter reads: a path (`-` is standard input), a stream, or any async iterable of
 * byte chunks, which may refill one buffer for every chunk (the splitter copies what it keeps of
 * a chunk once it asks for the next).
 */
export type LineSource = string | NodeJS.ReadableStream | AsyncIterable<Buffer>

/** The name a source goes by in messages: its path, `<stdin>` for `-`, `<stream>` for a stream. */
export function sourceName(source: LineSource): string {
  return typeof source !== 'string' ? '<stream>' : source === '-' ? '<stdin>' : source
}

/**
 * Streams the lines of a file (`-` is standard input, or any byte or string stream) in constant
 * memory: the one splitter every JSON Lines and CSV reader of this project goes through.
 *
 * - Lines end at `\n`; a trailing `\r` is dropped; blank lines are skipped but counted, so
 *   `number` is the line an editor shows.
 * - A UTF-8 byte order mark at the start of the source is dropped (editors on Windows write one).
 * - No line longer than `maxLineBytes` bytes is ever buffered: the lines before it are yielded,
 *   then `InvalidDataError` naming the file, the line and `(line)` is thrown and the source is no
 *   longer read, so a source without newlines costs at most one chunk past the limit.
 * - A source that cannot be read (missing, a directory) throws `InvalidDataError` naming it,
 *   with field `(file)`.
 *
 * Memory: one chunk plus two buffers as long as the longest line that crossed a chunk's end.
 * Time: O(bytes).
 *
 * @example for await (const { number, text } of readLines('chain.jsonl')) …
 */
export function readLines(source: LineSource, options: LineOptions = {}): AsyncGenerator<Line> {
  return splitLines(source, options, (number, bytes) => ({ number, text: bytes.toString('utf8') }))
}

/**
 * `readLines` without decoding: each line as a view of its bytes, for readers that scan UTF-8
 * themselves (the block scanner, `scanBlocks`). Same splitting, numbering, BOM, limit and errors.
 *
 * @example for await (const { number, bytes } of readLineBytes('chain.jsonl')) …
 */
export function readLineBytes(source: LineSource, options: LineOptions = {}): AsyncGenerator<LineBytes> {
  return splitLines(source, options, (number, bytes) => ({ number, bytes }))
}

/**
 * `readLineBytes` a run at a time: the lines that end in each chunk read, in one array, so that
 * a consumer that takes many lines at a time (replay) pays one asynchronous step per chunk
 * instead of one per line. Same splitting, numbering, BOM, limit and errors: the lines before a
 * line over the limit come in a run of their own, then the error is thrown. Each line's bytes
 * hold until the next run is asked for.
 *
 * @example for await (const run of readLineRuns('chain.jsonl')) for (const { number, bytes } of run) …
 */
export async function* readLineRuns(source: LineSource, options: LineOptions = {}): AsyncGenerator<LineBytes[]> {
  const cutter = new LineCutter(source, options, (number, bytes) => ({ number, bytes }))
  let run: LineBytes[] = []
  try {
    for await (const chunk of cutter.stream) {
      const tooLong = cutter.cut(chunk, run)
      if (run.length > 0) {
        yield run
        run = []
      }
      if (tooLong !== null) throw tooLong
    }
  } catch (error) {
    throw cutter.failure(error)
  }
  cutter.end(run)
  if (run.length > 0) yield run
}

/** The one splitter behind `readLines` and `readLineBytes`; `make` turns a non-blank line into what is yielded. */
async function* splitLines<T>(source: LineSource, options: LineOptions, make: (number: number, bytes: Buffer) => T): AsyncGenerator<T> {
  const cutter = new LineCutter(source, options, make)
  const run: T[] = []
  try {
    for await (const chunk of cutter.stream) {
      const tooLong = cutter.cut(chunk, run)
      for (let i = 0; i < run.length; i++) yield run[i] as T
      run.length = 0
      if (tooLong !== null) throw tooLong
    }
  } catch (error) {
    throw cutter.failure(error)
  }
  cutter.end(run)
  if (run.length > 0) yield run[0] as T
}

const EMPTY = Buffer.alloc(0)
/** The smallest buffer of held bytes: larger than most lines, so that it rarely grows. */
const MIN_HELD_BYTES = 64 << 10

/**
 * The splitting itself, synchronous, one chunk at a time: what `splitLines` and `readLineRuns`
 * share. Invariant: `#held[0, #heldLength)` holds the bytes of the current line seen before the
 * chunk being cut (never more than the limit); `number` is the number of the current line.
 */
class LineCutter<T> {
  readonly stream: AsyncIterable<unknown>
  readonly #file: string
  readonly #maxLineBytes: number
  readonly #bom: boolean
  readonly #firstLine: number
  readonly #make: (number: number, bytes: Buffer) => T
  /**
   * The bytes of the current line seen so far when it began in an earlier chunk:
   * `#held[0, #heldLength)`. Two buffers taken in turn and reused line after line (each grows to
   * the longest line it held), not a fresh copy per line that crosses a chunk's end: fresh memory
   * costs a page fault at its first touch, which is dear on some virtual machines. Two, because
   * the line finished in one is still handed out when the chunk's tail is copied into the other.
   */
  #held = EMPTY
  #spare = EMPTY
  #heldLength = 0
  #run = 0
  #number: number

  constructor(source: LineSource, options: LineOptions, make: (number: number, bytes: Buffer) => T) {
    this.#maxLineBytes = checkLimitOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
    this.#file = options.file ?? sourceName(source)
    this.#bom = options.bom ?? true
    this.#firstLine = options.firstLine ?? 1
    this.#number = this.#firstLine
    this.#make = make
    this.stream = typeof source !== 'string' ? source : source === '-' ? (options.stdin ?? process.stdin) : createReadStream(source, { highWaterMark: 1 << 20 })
  }

  /**
   * Appends to `out` the non-blank lines that end in `chunk` and keeps a copy of its unfinished
   * tail (the source may refill the chunk's buffer). Returns the error for a line over the limit,
   * after appending the lines before it (the source is then no longer read), else `null`.
   */
  cut(chunk: unknown, out: T[]): InvalidDataError | null {
    const bytes = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk as Uint8Array)
    let start = 0
    for (;;) {
      const nl = bytes.indexOf(10, start)
      this.#run += (nl === -1 ? bytes.length : nl) - start
      if (this.#run > this.#maxLineBytes) return this.#tooLong()
      if (nl === -1) break
      this.#take(bytes, start, nl, out)
      this.#run = 0
      this.#number++
      start = nl + 1
    }
    if (start < bytes.length) this.#hold(bytes, start, bytes.length)
    return null
  }

  /** Appends `bytes[start, end)` to the current line's held bytes, growing the buffer when they do not fit. */
  #hold(bytes: Buffer, start: number, end: number): void {
    const length = this.#heldLength + end - start
    if (length > this.#held.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.#held.length, MIN_HELD_BYTES))
      this.#held.copy(grown, 0, 0, this.#heldLength)
      this.#held = grown
    }
    bytes.copy(this.#held, this.#heldLength, start, end)
    this.#heldLength = length
  }

  /** Appends the last line, when the source does not end with a newline. */
  end(out: T[]): void {
    this.#take(Buffer.alloc(0), 0, 0, out)
  }

  /** What a failure while reading becomes: the splitter's own errors as they are, a read error as `unreadable`. */
  failure(error: unknown): unknown {
    return error instanceof InvalidDataError ? error : unreadable(this.#file, this.#number, error)
  }

  /** The current line, ending at `end` of `last`, appended to `out` unless it is blank. */
  #take(last: Buffer, start: number, end: number, out: T[]): void {
    let bytes: Buffer
    if (this.#heldLength === 0) bytes = last.subarray(start, end)
    else {
      this.#hold(last, start, end)
      bytes = this.#held.subarray(0, this.#heldLength)
      // The next line's held bytes go to the other buffer: this one's are handed out.
      ;[this.#held, this.#spare] = [this.#spare, this.#held]
      this.#heldLength = 0
    }
    // The first line starts the source, so this is where a byte order mark can be, however it was chunked.
    if (this.#number === this.#firstLine && this.#bom && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3)
    if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, -1)
    if (bytes.length > 0) out.push(this.#make(this.#number, bytes))
  }

  #tooLong(): InvalidDataError {
    return new InvalidDataError(this.#file, this.#number, '(line)', `longer than the limit of ${this.#maxLineBytes} bytes per line (max line bytes); one block must fit in one line`)
  }
}

/** A read error of the source as `InvalidDataError` naming the file (`(file)`) and how far it got. */
function unreadable(file: string, number: number, error: unknown): InvalidDataError {
  const e = error as NodeJS.ErrnoException
  const reason = e.code === 'EISDIR' ? 'EISDIR (it is a directory)' : (e.code ?? (error instanceof Error ? error.message : String(error)))
  return new InvalidDataError(file, number === 1 ? 0 : number, '(file)', `cannot read: ${reason}`, { cause: error })
}

/**
 * The size of `path` when it names a regular file, which can be read in chunks by position;
 * -1 for `-`, pipes and unreadable paths, which are read in place (and so report their errors).
 */
export async function regularFileSize(path: string): Promise<number> {
  if (path === '-') return -1
  return stat(path).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  )
}
