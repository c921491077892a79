import { createReadStream, type ReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { InvalidDataError } from '../ledger/errors.js'
import { readLines } from '../ledger/lines.js'
import { toBlockInput } from '../ledger/read-blocks.js'
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
 * JSON or compact summaries (as `readBlocks`), or per-transaction CSV (`readCsvBlocks`). Constant
 * memory. A bad line throws `InvalidDataError` naming file, line and field.
 */
export async function openInput(path: string, format: InputFormat, stdin?: NodeJS.ReadableStream): Promise<OpenedInput> {
  const file = path === '-' ? '<stdin>' : path
  let stream: NodeJS.ReadableStream
  let totalBytes: number | null = null
  if (path === '-') stream = stdin ?? process.stdin
  else {
    try {
      totalBytes = (await stat(path)).size
    } catch (error) {
      throw new InvalidDataError(file, 0, '(file)', `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
    stream = createReadStream(path, { highWaterMark: 1 << 20 })
  }
  const lines = readLines(stream)
  const blocks = format === 'csv' ? readCsvBlocks(lines, file) : jsonlBlocks(lines, file)
  return {
    file,
    blocks,
    bytesRead: () => (path === '-' ? 0 : (stream as ReadStream).bytesRead),
    totalBytes,
  }
}

async function* jsonlBlocks(lines: ReturnType<typeof readLines>, file: string): AsyncGenerator<SourcedBlock> {
  for await (const { number, text } of lines) {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw new InvalidDataError(file, number, '(json)', `not valid JSON: ${(error as Error).message}`)
    }
    let block
    try {
      block = toBlockInput(json)
    } catch (error) {
      throw InvalidDataError.at(file, number, error)
    }
    yield { file, line: number, block }
  }
}
