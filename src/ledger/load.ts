import { BlockContinuityError } from './append-rules.js'
import { InvalidDataError } from './errors.js'
import { checkLimitOption, DEFAULT_MAX_LINE_BYTES, openLimitedLines } from './limits.js'
import { readLines, type Line } from './lines.js'
import type { LedgerStore } from './store.js'
import type { BlockJson } from './types.js'

/** Where a loader reads from besides a path. */
export interface LoadOptions {
  /** Stream read when the source is `-` (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream
  /** Longest line accepted, in bytes (default `DEFAULT_MAX_LINE_BYTES`, 64 MiB). */
  maxLineBytes?: number
}

/**
 * The lines of a chain file; the lines before one longer than `options.maxLineBytes` are yielded,
 * then `InvalidDataError` naming it is thrown (see `openLimitedLines`).
 */
export async function* readChainLines(source: string, options: LoadOptions = {}): AsyncGenerator<Line> {
  const maxLineBytes = checkLimitOption('maxLineBytes', options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
  const limited = openLimitedLines(source, sourceName(source), maxLineBytes, options.stdin)
  yield* readLines(limited.stream)
  const failure = limited.failure()
  if (failure !== undefined) throw failure
}

/** The name a source goes by in messages: its path, or `<stdin>` for `-`. */
export function sourceName(source: string): string {
  return source === '-' ? '<stdin>' : source
}

/** Parses one line of a JSON Lines file. @throws InvalidDataError naming the file and line. */
export function parseJsonLine(file: string, line: Line): unknown {
  try {
    return JSON.parse(line.text)
  } catch (error) {
    throw new InvalidDataError(file, line.number, '(line)', `not valid JSON: ${(error as Error).message}`, { cause: error })
  }
}

/**
 * Turns an error thrown while using one line into an `InvalidDataError` naming file, line and,
 * when the error knows it, the field (`InvalidBlockError`, `BlockContinuityError`).
 */
export function toInvalidData(file: string, line: number, error: unknown): InvalidDataError {
  if (error instanceof BlockContinuityError) return new InvalidDataError(file, line, error.field, `block ${error.block}: ${error.detail}`, { cause: error })
  return InvalidDataError.at(file, line, error)
}

/**
 * Streams a JSON Lines chain file (one `BlockJson` per line; `-` is standard input) into `store`,
 * appending each block in order. Memory stays flat apart from what the store keeps; a line over
 * `options.maxLineBytes` is refused before it is buffered.
 *
 * @returns the number of blocks appended.
 * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
 *   that the store refuses; the blocks before it stay appended.
 * @example await loadJsonLines('data/chain.jsonl', new MemoryStore())
 */
export async function loadJsonLines(source: string, store: LedgerStore, options: LoadOptions = {}): Promise<number> {
  const file = sourceName(source)
  let appended = 0
  for await (const line of readChainLines(source, options)) {
    const block = parseJsonLine(file, line)
    try {
      await store.appendBlock(block as BlockJson)
    } catch (error) {
      throw toInvalidData(file, line.number, error)
    }
    appended++
  }
  return appended
}
