import { createReadStream } from 'node:fs'
import { pipeline, Transform } from 'node:stream'
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

/**
 * Opens a chain file (`-` = `stdin`) as a byte stream that fails with `InvalidDataError` naming
 * the file, the 1-based line and `(line)` as soon as a line passes `maxLineBytes` bytes (the
 * newline excluded), before the line is held in memory: a file without newlines cannot make the
 * reader buffer it whole. Line numbers count every `\n`, as `readLines` does. O(bytes).
 */
export function openLimitedLines(source: string, file: string, maxLineBytes: number, stdin?: NodeJS.ReadableStream): NodeJS.ReadableStream {
  const input = source === '-' ? (stdin ?? process.stdin) : createReadStream(source, { highWaterMark: 1 << 20 })
  let run = 0
  let line = 1
  const limit = new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      let start = 0
      for (;;) {
        const nl = bytes.indexOf(10, start)
        run += (nl === -1 ? bytes.length : nl) - start
        if (run > maxLineBytes) {
          done(new InvalidDataError(file, line, '(line)', `longer than the limit of ${maxLineBytes} bytes per line (max line bytes); one block must fit in one line`))
          return
        }
        if (nl === -1) break
        run = 0
        line++
        start = nl + 1
      }
      done(null, bytes)
    },
  })
  // pipeline forwards the source's errors (a missing file) and stops reading it when the limit trips.
  return pipeline(input, limit, () => {})
}
