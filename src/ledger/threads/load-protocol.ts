import type { StoreParts } from '../memory/store-parts.js'

/**
 * What the main thread and a worker of a threaded memory store load say to each other
 * (`load-threads.ts`, `load-worker.ts`): one job as the worker's `workerData`, one answer.
 */

/** Load the lines of `[start, end)` of the file at `path` into a memory store of the worker's own. */
export interface LoadJob {
  path: string
  /** The file's name in messages. */
  file: string
  start: number
  end: number
  maxLineBytes: number
  maxBlockTransactions: number
}

export type LoadAnswer =
  /** The range loaded: the store's contents, and the newlines in the range (its lines, blank ones too). */
  | { type: 'parts'; parts: StoreParts; newlines: number }
  /**
   * The range stopped at a bad line, or the worker failed. The main thread does not repeat the
   * message: it loads from the range's start itself, which throws the sequential load's error.
   */
  | { type: 'error'; message: string }
