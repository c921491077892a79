import type { FileHandle } from 'node:fs/promises'
import type { BlockBatch } from './block-batch.js'
import type { IngestBatch } from './ingest-batch.js'

/**
 * What the main thread and the workers of a threaded block scan say to each other
 * (`scan-threads.ts`, `scan-worker.ts`), and how a chunk number maps to bytes of the file.
 */

/**
 * What a worker makes of each line: the engine's block (`blockOfLine`, posted as `BlockBatch`es)
 * or a store's ingest block (`ingestBlockOfLine` with `maxTransactions`, posted as `IngestBatch`es).
 */
export type ScanMode = { kind: 'blocks' } | { kind: 'ingest'; maxTransactions: number }

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
  | { type: 'batch'; job: number; chunk: number; batch: BlockBatch | IngestBatch }
  /** Chunk `chunk` is scanned: it holds `lines` lines (blank ones too). */
  | { type: 'chunk-end'; job: number; chunk: number; lines: number }
  /**
   * Scanning stopped at `line` (counted from the chunk's first line; 0 before it) of `chunk`:
   * `InvalidDataError(file, line, field, detail)` when `invalidData`, else an unexpected error.
   */
  | { type: 'error'; job: number; chunk: number; line: number; field: string; detail: string; invalidData: boolean }
  | { type: 'done'; job: number }

/** The first newline in `[from, to)` of the file, or -1. Reads 64 KiB at a time. */
async function newlineIn(fh: FileHandle, from: number, to: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(1 << 16)
  for (let at = from; at < to; ) {
    const { bytesRead } = await fh.read(buffer, 0, Math.min(buffer.length, to - at), at)
    if (bytesRead === 0) return -1
    const nl = buffer.subarray(0, bytesRead).indexOf(10)
    if (nl !== -1) return at + nl
    at += bytesRead
  }
  return -1
}

/**
 * The bytes `[start, end)` of chunk `chunk`: the lines that start in
 * `[chunk · chunkBytes, (chunk + 1) · chunkBytes)`, whole. A line starts at 0 and after each
 * newline, so neighbouring chunks find the same newline between them and every line belongs to
 * exactly one chunk. A line running on for more than `maxLineBytes` is cut just past the limit:
 * the splitter then refuses it as a sequential read would. Empty (`start === end`) when no line
 * starts in the chunk.
 */
export async function chunkRange(fh: FileHandle, chunk: number, chunkBytes: number, size: number, maxLineBytes: number): Promise<{ start: number; end: number }> {
  const from = chunk * chunkBytes
  const next = from + chunkBytes
  let start = 0
  if (chunk > 0) {
    const nl = await newlineIn(fh, from - 1, Math.min(next - 1, size))
    if (nl === -1) return { start: size, end: size }
    start = nl + 1
  }
  if (next >= size) return { start, end: size }
  const cap = Math.min(size, next - 1 + maxLineBytes + 2)
  const nl = await newlineIn(fh, next - 1, cap)
  return { start, end: nl === -1 ? cap : nl + 1 }
}
