import { createReadStream } from 'node:fs'
import { Transform } from 'node:stream'
import { InvalidConfigError } from '../core/errors.js'
import { InvalidDataError } from './errors.js'

/**
 * Most transactions a block may carry to be appended. Aptos validators accept at most 10,000
 * user transactions per block (`MAX_RECEIVING_BLOCK_TXNS`, config/src/config/consensus_config.rs)
 * plus a few system ones; twice that leaves room for a raised limit while refusing absurd input.
 */
export const DEFAULT_MAX_BLOCK_TRANSACTIONS = 20_000

/**
 * Longest line (one block as JSON) read from a chain file. Aptos caps a block at 6 MiB of BCS
 * (`max_receiving_block_bytes`); its JSON rendering (hex doubled, field names, events and write
 * sets) runs several times that, so 64 MiB holds any real block and bounds what one line costs.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024

/** Checks a limit option: a positive safe integer. */
export function checkLimitOption(key: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new InvalidConfigError(key, `must be a positive integer, got ${value}`)
  return value
}

/** A chain file's bytes cut short before the first line over the limit, and why they were cut. */
export interface LimitedSource {
  /** The whole lines before the first one over the limit (or the whole source). */
  stream: NodeJS.ReadableStream
  /** The `InvalidDataError` naming the file, the 1-based line and `(line)`, once the stream ended because of it. */
  failure(): InvalidDataError | undefined
}

/**
 * Opens a chain file (`-` = `stdin`) so that no line longer than `maxLineBytes` bytes (newline
 * excluded) is ever buffered: at the first such line the stream ends after the whole lines before
 * it and stops reading the source, so a file without newlines costs at most one chunk past the
 * limit. The caller reads the lines it got, then asks `failure()`. Line numbers count every
 * `\n`, as `readLines` does. O(bytes).
 */
export function openLimitedLines(source: string, file: string, maxLineBytes: number, stdin?: NodeJS.ReadableStream): LimitedSource {
  const input = source === '-' ? (stdin ?? process.stdin) : createReadStream(source, { highWaterMark: 1 << 20 })
  // Invariant: `held` is the start of the current line (`run` bytes, at most the limit); only
  // whole lines go downstream, so a line cut by the limit never reaches the reader.
  let held: Buffer[] = []
  let run = 0
  let line = 1
  let failure: InvalidDataError | undefined
  const limit = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      if (failure !== undefined) return done()
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      let start = 0
      let whole = 0
      for (;;) {
        const nl = bytes.indexOf(10, start)
        run += (nl === -1 ? bytes.length : nl) - start
        if (run > maxLineBytes) {
          failure = new InvalidDataError(file, line, '(line)', `longer than the limit of ${maxLineBytes} bytes per line (max line bytes); one block must fit in one line`)
          if (whole > 0) this.push(Buffer.concat([...held, bytes.subarray(0, whole)]))
          held = []
          this.push(null)
          input.unpipe?.(limit as unknown as NodeJS.WritableStream)
          ;(input as { destroy?: () => void }).destroy?.()
          return done()
        }
        if (nl === -1) break
        run = 0
        line++
        start = nl + 1
        whole = start
      }
      if (whole > 0) {
        this.push(held.length === 0 ? bytes.subarray(0, whole) : Buffer.concat([...held, bytes.subarray(0, whole)]))
        held = []
      }
      if (whole < bytes.length) held.push(bytes.subarray(whole))
      done()
    },
    flush(done) {
      // The last line of a file that does not end with a newline.
      if (held.length > 0) this.push(Buffer.concat(held))
      done()
    },
  })
  ;(input as NodeJS.EventEmitter).on('error', (error: Error) => limit.destroy(error))
  input.pipe(limit)
  return { stream: limit, failure: () => failure }
}
