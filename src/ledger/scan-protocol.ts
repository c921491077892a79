import type { BlockBatch } from './block-batch.js'

/**
 * What the main thread and the workers of a threaded block scan say to each other
 * (`scan-threads.ts`, `scan-worker.ts`); `file-range.ts` maps a chunk number to bytes of the file.
 */

/** Batches a worker may have in flight before it waits for the main thread to consume one. */
export const CREDIT = 4

export type ToWorker =
  /** Scan chunks `first`, `first + step`, … below `chunks` of the file, in order. */
  | { type: 'job'; job: number; path: string; file: string; size: number; chunkBytes: number; chunks: number; first: number; step: number; maxLineBytes: number }
  /** The main thread consumed a batch: one more may be sent. */
  | { type: 'credit'; job: number }
  | { type: 'cancel'; job: number }

export type ToMain =
  | { type: 'batch'; job: number; chunk: number; batch: BlockBatch }
  /** Chunk `chunk` is scanned: it holds `lines` lines (blank ones too). */
  | { type: 'chunk-end'; job: number; chunk: number; lines: number }
  /**
   * Scanning stopped at `line` (counted from the chunk's first line; 0 before it) of `chunk`:
   * `InvalidDataError(file, line, field, detail)` when `invalidData`, else an unexpected error.
   */
  | { type: 'error'; job: number; chunk: number; line: number; field: string; detail: string; invalidData: boolean }
  | { type: 'done'; job: number }
