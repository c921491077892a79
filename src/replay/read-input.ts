import { createReadStream, type ReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { readLines, sourceName } from '../ledger/read/lines.js'
import { isRegularFile, scanBlocks } from '../ledger/scan-blocks.js'
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
 * Opens a chain file (`-` = standard input) as a stream of blocks: JSON Lines of the node's block
 * JSON or compact summaries (as `readBlocks`, read by the block scanner `scanBlocks`), or
 * per-transaction CSV (`readCsvBlocks`), both split by the one line splitter (line limit, BOM).
 * Constant memory. A bad line throws `InvalidDataError`
 * naming file, line and field; a file that cannot be read, one naming the file with field `(file)`.
 *
 * `threads` (JSON Lines in a regular file only) scans on that many worker threads
 * (`scanBlocksThreaded`): the same blocks and errors, sooner on a large file with spare cores.
 */
export async function openInput(path: string, format: InputFormat, stdin?: NodeJS.ReadableStream, options: { threads?: number | undefined } = {}): Promise<OpenedInput> {
  const file = sourceName(path)
  const threads = options.threads ?? 0
  if (format === 'jsonl' && threads > 0 && (await isRegularFile(path))) {
    const progress = { bytes: 0 }
    const totalBytes = (await stat(path)).size
    return { file, blocks: scanBlocksThreaded(path, { threads, file }, progress), bytesRead: () => progress.bytes, totalBytes }
  }
  let stream: NodeJS.ReadableStream
  let totalBytes: number | null = null
  if (path === '-') stream = stdin ?? process.stdin
  else {
    // A file that cannot be read is reported by `readLines` when the blocks are first asked for.
    totalBytes = await stat(path).then(
      (s) => s.size,
      () => null,
    )
    stream = createReadStream(path, { highWaterMark: 1 << 20 })
  }
  const blocks = format === 'csv' ? readCsvBlocks(readLines(stream, { file }), file) : scanBlocks(stream, { file })
  return {
    file,
    blocks,
    bytesRead: () => (path === '-' ? 0 : (stream as ReadStream).bytesRead),
    totalBytes,
  }
}
