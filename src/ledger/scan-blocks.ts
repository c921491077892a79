import { scanBlocksInThread, type ScannedLine } from './read/block-scanner.js'
import { sourceName, type LineOptions } from './read/lines.js'

export type { ScannedLine } from './read/block-scanner.js'

/**
 * Streams the blocks of a JSON Lines file (`-` = standard input, or a stream) for the engine:
 * the values and errors of `readBlocks`, without its parsed JSON, and faster on the node's block
 * JSON (bench/replay.ts) because a line is scanned instead of parsed. Compact summaries and
 * anything unusual go through the full parser.
 *
 * @example for await (const { line, block } of scanBlocks('chain.jsonl')) estimator.ingest(block)
 */
export function scanBlocks(source: string | NodeJS.ReadableStream, options: LineOptions = {}): AsyncGenerator<ScannedLine> {
  return scanBlocksInThread(source, { ...options, file: options.file ?? sourceName(source) })
}
