import { stat } from 'node:fs/promises'
import type { BlockInput } from '../core/block.js'
import { readChunks } from '../ledger/read/file-range.js'
import { parseJsonLine } from '../ledger/read/json-lines.js'
import { readLineBytes, readLines, sourceName, type LineSource } from '../ledger/read/lines.js'
import { toBlockInput } from '../ledger/read/read-blocks.js'
import { BlockScanner } from '../ledger/read/block-scanner.js'
import { scanBlocks } from '../ledger/scan-blocks.js'
import { scanBlocksThreaded } from '../ledger/threads/scan-threads.js'
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

/** The blocks of the JSON Lines of `source`, each line read by `read` (as `scanBlocks` does in its calling thread). */
async function* blocksOf(source: LineSource, file: string, read: (file: string, line: number, bytes: Buffer) => BlockInput): AsyncGenerator<SourcedBlock> {
  for await (const { number, bytes } of readLineBytes(source, { file })) yield { file, line: number, block: read(file, number, bytes) }
}

/** `chunks`, adding the bytes of each to `counted.bytes` as it is yielded. */
async function* counting(chunks: AsyncIterable<Buffer>, counted: { bytes: number }): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    counted.bytes += chunk.length
    yield chunk
  }
}

/** How `openInput` reads. */
export interface OpenOptions {
  /** Worker threads that scan a regular JSON Lines file (default 0: the calling thread reads). */
  threads?: number | undefined
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
 * - `threads` (a regular file only) scans on that many worker threads (`scanBlocksThreaded`),
 *   sooner on a large file with spare cores;
 * - else a file is read into two buffers refilled in turn (`readChunks`), not through a read
 *   stream, which takes a fresh buffer per chunk: faulting in that fresh memory cost a cold
 *   process more than splitting and scanning the lines;
 * - and a regular file below `parseBelowBytes` (default `PARSE_BELOW_BYTES`) goes through `JSON.parse`, a larger one (or a
 *   pipe, whose size is unknown) through the block scanner.
 */
export async function openInput(path: string, format: InputFormat, stdin?: NodeJS.ReadableStream, options: OpenOptions = {}): Promise<OpenedInput> {
  const file = sourceName(path)
  const threads = options.threads ?? 0
  if (path === '-') {
    const stream = stdin ?? process.stdin
    return { file, blocks: format === 'csv' ? readCsvBlocks(readLines(stream, { file }), file) : scanBlocks(stream, { file }), bytesRead: () => 0, totalBytes: null }
  }
  // A file that cannot be read is reported by the line splitter when the blocks are first asked for.
  const info = await stat(path).catch(() => null)
  const regular = info?.isFile() === true
  const totalBytes = info?.size ?? null
  if (format === 'jsonl' && threads > 0 && regular) {
    const progress = { bytes: 0 }
    return { file, blocks: scanBlocksThreaded(path, { threads, file }, progress), bytesRead: () => progress.bytes, totalBytes }
  }
  const counted = { bytes: 0 }
  const chunks = counting(readChunks(path), counted)
  const parse = regular && (totalBytes as number) < (options.parseBelowBytes ?? PARSE_BELOW_BYTES)
  const scanner = parse ? null : new BlockScanner()
  const blocks =
    format === 'csv' ? readCsvBlocks(readLines(chunks, { file }), file) : blocksOf(chunks, file, scanner === null ? parseLine : (f, l, b) => scanner.blockOfLine(f, l, b))
  return { file, blocks, bytesRead: () => counted.bytes, totalBytes }
}
