import type { BlockBatch } from './block-batch.js'
import type { ErrorFields } from './error-fields.js'

/**
 * What the main thread and the workers of a threaded block scan say to each other
 * (`scan-threads.ts`, `scan-worker.ts`); `file-range.ts` maps a chunk number to bytes of the file.
 */

/** What a worker makes of each line: the engine's block (`blockOfLine`, posted as `BlockBatch`es). */
export type ScanMode = { kind: 'blocks' }

export type ToWorker =
  /**
   * Scan chunks `first`, `first + step`, … below `chunks` of the file, in order, with at most
   * `credit` batches in flight: the main thread grants one back per batch it consumes.
   */
  | { type: 'job'; job: number; mode: ScanMode; credit: number; path: string; file: string; size: number; chunkBytes: number; chunks: number; first: number; step: number; maxLineBytes: number }
  /** The main thread consumed a batch: one more may be sent. */
  | { type: 'credit'; job: number }
  | { type: 'cancel'; job: number }

export type ToMain =
  | { type: 'batch'; job: number; chunk: number; batch: BlockBatch }
  /** Chunk `chunk` is scanned: it holds `lines` lines (blank ones too). */
  | { type: 'chunk-end'; job: number; chunk: number; lines: number }
  /**
   * Scanning stopped at `line` (counted from the chunk's first line; 0 before it) of `chunk`
   * (-1: before any chunk) with `error`, as plain fields: an `InvalidDataError` naming that
   * line, or an unexpected error.
   */
  | { type: 'error'; job: number; chunk: number; line: number; error: ErrorFields }
  | { type: 'done'; job: number }
