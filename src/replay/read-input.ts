import { statSync, type Stats } from 'node:fs'
import type { BlockInput } from '../core/block.js'
import { readChunks, readSmallFile } from '../ledger/read/file-range.js'
import { parseJsonLine } from '../ledger/read/json-lines.js'
import { readLineRuns, readLines, sourceName, type LineBytes, type LineSource } from '../ledger/read/lines.js'
import { toBlockInput } from '../ledger/read/read-blocks.js'
import { BlockScanner } from '../ledger/read/block-scanner.js'
import type { SourcedBlock } from './backtest.js'
import { readCsvBlocks } from './csv-blocks.js'

/** The data formats a backtest reads. */
export type InputFormat = 'jsonl' | 'csv'

/** `csv` for a `.csv` file, else `jsonl` (also for `-`); `explicit` wins. */
export function detectFormat(path: string, explicit?: InputFormat): InputFormat {
  if (explicit !== undefined) return explicit
  return /\.csv$/i.test(path) ? 'csv' : 'jsonl'
}

/** An opened input: its blocks, and how far through the file reading has got (for a progress bar). */
export interface OpenedInput {
  file: string
  blocks: AsyncGenerator<SourcedBlock>
  /**
   * The same blocks a run at a time, for a consumer that takes many at once: a run holds the
   * lines of one chunk of the file, each read into its block (or its error thrown) as the run's
   * iterator reaches it, so a bad line still throws after the blocks before it. One
   * asynchronous step per chunk instead of one per block. Iterate `runs` or `blocks`, not both.
   */
  runs: AsyncGenerator<Iterable<SourcedBlock>>
  /** Bytes of the file read so far (0 for standard input). */
  bytesRead(): number
  /** The file's size, or `null` for standard input. */
  totalBytes: number | null
}

/**
 * Regular files smaller than this are read through `JSON.parse` (`parseLines`), larger ones
 * through the block scanner (`scanBlocks`). In a fresh process the scanner's code starts cold
 * and reaches its optimised speed only after tens of megabytes, while `JSON.parse` is native
 * code from the first line: below the size where the two whole processes cross, the parser
 * finishes first (bench/replay-cold.ts measures both sides of it).
 */
export const PARSE_BELOW_BYTES = 24 * 1024 * 1024

/**
 * A line's block through the full parser: what `BlockScanner#blockOfLine` gives, value or error,
 * since its own fallback is this same `parseJsonLine` of the line's text with `toBlockInput`.
 */
function parseLine(file: string, line: number, bytes: Buffer): BlockInput {
  return parseJsonLine(file, line, bytes.toString('utf8'), toBlockInput)
}

type LineReader = (file: string, line: number, bytes: Buffer) => BlockInput

/** The blocks of the JSON Lines of `source` in runs (`readLineRuns`), each line read by `read` (as `scanBlocks` does in its calling thread). */
async function* runsOf(source: LineSource, file: string, read: LineReader): AsyncGenerator<Iterable<SourcedBlock>> {
  for await (const lines of readLineRuns(source, { file })) yield blocksOfRun(lines, file, read)
}

/** A run's blocks, each line read when it is reached. */
function* blocksOfRun(lines: LineBytes[], file: string, read: LineReader): Generator<SourcedBlock> {
  for (let i = 0; i < lines.length; i++) {
    const { number, bytes } = lines[i] as LineBytes
    yield { file, line: number, block: read(file, number, bytes) }
  }
}

/** The blocks of `runs`, one at a time. */
async function* blocksOfRuns(runs: AsyncIterable<Iterable<SourcedBlock>>): AsyncGenerator<SourcedBlock> {
  for await (const run of runs) for (const block of run) yield block
}

/** Blocks read one at a time (CSV) as runs of one. */
async function* runsOfOne(blocks: AsyncIterable<SourcedBlock>): AsyncGenerator<Iterable<SourcedBlock>> {
  for await (const block of blocks) yield [block]
}

/** An opened input whose blocks come in runs. */
function ofRuns(file: string, runs: AsyncGenerator<Iterable<SourcedBlock>>, bytesRead: () => number, totalBytes: number | null): OpenedInput {
  return { file, blocks: blocksOfRuns(runs), runs, bytesRead, totalBytes }
}

/** An opened input whose blocks come one at a time. */
function ofBlocks(file: string, blocks: AsyncGenerator<SourcedBlock>, bytesRead: () => number, totalBytes: number | null): OpenedInput {
  return { file, blocks, runs: runsOfOne(blocks), bytesRead, totalBytes }
}

/** `chunks`, adding the bytes of each to `counted.bytes` as it is yielded. */
async function* counting(chunks: AsyncIterable<Buffer>, counted: { bytes: number }): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    counted.bytes += chunk.length
    yield chunk
  }
}

/** The file's status, or `null` when it cannot be had (the line splitter then reports the file). Synchronous: one call before any reading, without a round trip through the thread pool. */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path)
  } catch {
    return null
  }
}

/** How `openInput` reads. */
export interface OpenOptions {
  /** Regular files below this size go through `JSON.parse` (default `PARSE_BELOW_BYTES`); a test sets it to reach either path. */
  parseBelowBytes?: number | undefined
}

/**
 * Opens a chain file (`-` = standard input) as a stream of blocks: JSON Lines of the node's block
 * JSON or compact summaries (the values and errors of `readBlocks`), or per-transaction CSV
 * (`readCsvBlocks`), both split by the one line splitter (line limit, BOM). Constant memory. A
 * bad line throws `InvalidDataError` naming file, line and field; a file that cannot be read,
 * one naming the file with field `(file)`.
 *
 * How JSON Lines are read is chosen here, for speed only (the blocks and errors are the same):
 * - a file is read into two buffers refilled in turn (`readChunks`), not through a read
 *   stream, which takes a fresh buffer per chunk: faulting in that fresh memory cost a cold
 *   process more than splitting and scanning the lines;
 * - a regular file below `parseBelowBytes` (default `PARSE_BELOW_BYTES`) goes through
 *   `JSON.parse`, read synchronously into one smaller buffer (`readSmallFile`); a larger one (or
 *   a pipe, whose size is unknown) through the block scanner.
 */
export async function openInput(path: string, format: InputFormat, stdin?: NodeJS.ReadableStream, options: OpenOptions = {}): Promise<OpenedInput> {
  const file = sourceName(path)
  if (path === '-') {
    const stream = stdin ?? process.stdin
    if (format === 'csv') return ofBlocks(file, readCsvBlocks(readLines(stream, { file }), file), () => 0, null)
    const scanner = new BlockScanner()
    return ofRuns(file, runsOf(stream, file, (f, l, b) => scanner.blockOfLine(f, l, b)), () => 0, null)
  }
  // A file that cannot be read is reported by the line splitter when the blocks are first asked for.
  const info = statOrNull(path)
  const regular = info?.isFile() === true
  const totalBytes = info?.size ?? null
  const small = regular && (totalBytes as number) < (options.parseBelowBytes ?? PARSE_BELOW_BYTES)
  const counted = { bytes: 0 }
  const chunks = counting(small ? readSmallFile(path) : readChunks(path), counted)
  if (format === 'csv') return ofBlocks(file, readCsvBlocks(readLines(chunks, { file }), file), () => counted.bytes, totalBytes)
  const scanner = small ? null : new BlockScanner()
  return ofRuns(file, runsOf(chunks, file, scanner === null ? parseLine : (f, l, b) => scanner.blockOfLine(f, l, b)), () => counted.bytes, totalBytes)
}
