import { once } from 'node:events'
import { closeSync, openSync, writeSync } from 'node:fs'
import { UsageError } from './errors.js'
import type { CliIo } from './io.js'
import { checkOutput, describeFsError } from './paths.js'

/** Where a command writes a stream of text: a file, or standard output for `-`. */
export interface Output {
  /**
   * Writes `text`, waiting for 'drain' on backpressure, so a caller's memory stays at one chunk.
   * @throws UsageError naming the flag and the path when the file cannot be written.
   */
  write(text: string): Promise<void>
  /** Flushes and closes a file and reports a late write error; standard output stays open. */
  end(): Promise<void>
  /** True once standard output's reader went away (`… | head`): stop writing quietly, as Unix tools do. */
  readonly gone: boolean
}

/**
 * Opens `--flag PATH` for writing (`-` is `io.stdout`, read only then), creating or truncating
 * the file now, so an unwritable path fails before the command reads its input.
 *
 * A file is written synchronously through its descriptor, not through a write stream: a write
 * to the page cache is a copy, and a stream costs a fresh process the loading of Node's stream
 * modules and a round trip through the thread pool per chunk (replay of a small file is mostly
 * start-up). A write error is thrown by that `write` or `end`. Standard output stays a stream: a
 * write error, which it reports between writes when nothing awaits it, is kept and thrown by the
 * next `write` or `end`, never escaping as an unhandled 'error' event.
 *
 * @throws UsageError `cannot write --output PATH: it is a directory` and the like.
 */
export async function openOutput(path: string, flag: string, io: Pick<CliIo, 'stdout'>): Promise<Output> {
  const cannotWrite = (error: unknown) => new UsageError(`cannot write --${flag} ${path}: ${describeFsError(error)}`)
  if (path === '-') return streamOutput(io.stdout, cannotWrite)
  await checkOutput(path, flag)
  let fd: number
  try {
    fd = openSync(path, 'w')
  } catch (error) {
    throw cannotWrite(error)
  }
  return fileOutput(fd, cannotWrite)
}

/** An open file descriptor as an `Output`, written synchronously; a failed write closes it, and it stays failed. */
function fileOutput(fd: number, cannotWrite: (error: unknown) => UsageError): Output {
  let failure: unknown
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    closeSync(fd)
  }
  return {
    gone: false,
    async write(text) {
      if (failure !== undefined) throw cannotWrite(failure)
      const bytes = Buffer.from(text, 'utf8')
      try {
        // A regular file takes all of a write unless it fails; a device or a pipe may take part.
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at)
      } catch (error) {
        failure = error
        try {
          close()
        } catch {
          // The write's error is the one to report.
        }
        throw cannotWrite(error)
      }
    },
    async end() {
      if (failure !== undefined) throw cannotWrite(failure)
      try {
        close()
      } catch (error) {
        throw cannotWrite(error)
      }
    },
  }
}

/** Standard output as an `Output`: a stream, with its errors kept for the next call and EPIPE as `gone`. */
function streamOutput(stream: NodeJS.WritableStream, cannotWrite: (error: unknown) => UsageError): Output {
  let failure: unknown
  let gone = false
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') gone = true
    else failure ??= error
  })
  const check = () => {
    if (failure !== undefined) throw cannotWrite(failure)
  }
  return {
    get gone() {
      return gone
    },
    async write(text) {
      check()
      if (gone) return
      if (!stream.write(text)) {
        // Rejects on 'error', which the listener above has recorded.
        await once(stream, 'drain').catch(() => undefined)
      }
      check()
    },
    async end() {
      // Standard output stays open: the process flushes it on exit.
      check()
    },
  }
}

/** Writes all of `text` to `--flag PATH` (`-` is `io.stdout`). @throws UsageError as `openOutput`. */
export async function writeOutput(path: string, flag: string, text: string, io: Pick<CliIo, 'stdout'>): Promise<void> {
  const out = await openOutput(path, flag, io)
  await out.write(text)
  await out.end()
}
