import { InvalidDataError } from '../store/errors.js'
import { readChunks } from './file-range.js'
import { parseJsonLine } from './json-lines.js'
import { readLineRuns, sourceName, type LineBytes, type LineOptions } from './lines.js'
import type { LedgerStore } from '../store/store.js'
import type { BlockJson } from '../store/types.js'

/** Where a loader reads from besides a path: `stdin` for `-`, and the longest line accepted. */
export type LoadOptions = Pick<LineOptions, 'stdin' | 'maxLineBytes'>

/**
 * A store that can append a chain file's line from its bytes (the memory store), returning
 * `false` with nothing changed when it leaves the line to `appendBlock` of the parsed block.
 * The bytes hold only during the call: the loader reads the next line into the same buffer.
 */
export interface JsonLineStore {
  appendJsonLine(line: Buffer): boolean
}

function takesJsonLines(store: LedgerStore): store is LedgerStore & JsonLineStore {
  return typeof (store as Partial<JsonLineStore>).appendJsonLine === 'function'
}

/**
 * Streams a JSON Lines chain file (one `BlockJson` per line; `-` is standard input) into `store`,
 * appending each block in order. Memory stays flat apart from what the store keeps; a line over
 * `options.maxLineBytes` is refused before it is buffered.
 *
 * A store that takes lines as bytes (`JsonLineStore`) gets each line first; a line it leaves is
 * parsed and given to `appendBlock`, whose error is the one thrown.
 *
 * @returns the number of blocks appended.
 * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
 *   that the store refuses; the blocks before it stay appended.
 * @example await loadJsonLines('data/chain.jsonl', new MemoryStore())
 */
export async function loadJsonLines(source: string, store: LedgerStore, options: LoadOptions = {}): Promise<number> {
  const file = sourceName(source)
  // A file is read into one buffer refilled per chunk: the lines are copied by the store before the next is read.
  // A run of lines per chunk read: one asynchronous step per chunk, not one per line.
  const runs = readLineRuns(source === '-' ? source : readChunks(source), { stdin: options.stdin, maxLineBytes: options.maxLineBytes, file })
  const packing = takesJsonLines(store) ? store : undefined
  let appended = 0
  for await (const run of runs) {
    for (let i = 0; i < run.length; i++) {
      const { number, bytes } = run[i] as LineBytes
      if (packing === undefined || !packing.appendJsonLine(bytes)) await appendParsed(store, file, number, bytes)
      appended++
    }
  }
  return appended
}

/**
 * The loop of `loadJsonLines` over lines already split (`readLineBytes`), named `file` in
 * messages.
 *
 * @returns the number of blocks appended.
 * @throws InvalidDataError as `loadJsonLines`; the blocks before the bad line stay appended.
 */
export async function appendJsonLines(lines: AsyncIterable<LineBytes>, store: LedgerStore, file: string): Promise<number> {
  const packing = takesJsonLines(store) ? store : undefined
  let appended = 0
  for await (const { number, bytes } of lines) {
    if (packing === undefined || !packing.appendJsonLine(bytes)) await appendParsed(store, file, number, bytes)
    appended++
  }
  return appended
}

/** Appends the block of line `number` parsed, the way every line a store does not take as bytes goes. */
async function appendParsed(store: LedgerStore, file: string, number: number, bytes: Buffer): Promise<void> {
  // The store checks the block as it appends it, so a line is only read as JSON here.
  const block = parseJsonLine(file, number, bytes.toString('utf8'), (json) => json as BlockJson)
  try {
    await store.appendBlock(block)
  } catch (error) {
    throw InvalidDataError.at(file, number, error)
  }
}
