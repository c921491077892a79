import { scanBlocksInThread, type ScannedLine } from './read/block-scanner.js'
import { regularFileSize, sourceName, type LineOptions } from './read/lines.js'
import { scanBlocksThreaded } from './threads/scan-threads.js'

export type { ScannedLine } from './read/block-scanner.js'

/** How `scanBlocks` reads: as `readLines`, and optionally on worker threads. */
export interface ScanOptions extends LineOptions {
  /**
   * Worker threads that scan (default 0: the calling thread scans). From 1 up, a regular file is
   * cut into chunks that the workers scan in parallel (`scanBlocksThreaded`), with the same
   * blocks, lines and errors; standard input and other streams are always scanned in place.
   */
  threads?: number | undefined
}

/**
 * Streams the blocks of a JSON Lines file (`-` = standard input, or a stream) for the engine:
 * the values and errors of `readBlocks`, without its parsed JSON, and faster on the node's block
 * JSON (bench/replay.ts) because a line is scanned instead of parsed. Compact summaries and
 * anything unusual go through the full parser.
 *
 * @example for await (const { line, block } of scanBlocks('chain.jsonl')) estimator.ingest(block)
 */
export async function* scanBlocks(source: string | NodeJS.ReadableStream, options: ScanOptions = {}): AsyncGenerator<ScannedLine> {
  const file = options.file ?? sourceName(source)
  if ((options.threads ?? 0) > 0 && typeof source === 'string' && (await isRegularFile(source))) {
    yield* scanBlocksThreaded(source, { threads: options.threads as number, file, maxLineBytes: options.maxLineBytes })
    return
  }
  yield* scanBlocksInThread(source, { ...options, file })
}

/** Whether `path` names a regular file (`regularFileSize`). */
export async function isRegularFile(path: string): Promise<boolean> {
  return (await regularFileSize(path)) >= 0
}
