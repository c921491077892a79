import { InvalidDataError } from './errors.js'
import { readJsonLines } from './json-lines.js'
import { sourceName, type LineOptions } from './lines.js'
import type { LedgerStore } from './store.js'
import type { BlockJson } from './types.js'

/** Where a loader reads from besides a path: `stdin` for `-`, and the longest line accepted. */
export type LoadOptions = Pick<LineOptions, 'stdin' | 'maxLineBytes'>

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
  // The store checks the block as it appends it, so a line is only read as JSON here.
  for await (const { line, block } of readJsonLines(source, (json, line) => ({ line, block: json as BlockJson }), { stdin: options.stdin, maxLineBytes: options.maxLineBytes, file })) {
    try {
      await store.appendBlock(block)
    } catch (error) {
      throw InvalidDataError.at(file, line, error)
    }
    appended++
  }
  return appended
}
