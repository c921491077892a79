import { once } from 'node:events'
import { open } from 'node:fs/promises'
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
 * the file now, so an unwritable path fails before the command reads its input. A write error, which a stream
 * reports between writes when nothing awaits it, is kept and thrown by the next `write` or `end`:
 * it never escapes as an unhandled 'error' event.
 *
 * @throws UsageError `cannot write --output PATH: it is a directory` and the like.
 */
export async function openOutput(path: string, flag: string, io: Pick<CliIo, 'stdout'>): Promise<Output> {
  const cannotWrite = (error: unknown) => new UsageError(`cannot write --${flag} ${path}: ${describeFsError(error)}`)
  const toFile = path !== '-'
  let stream: NodeJS.WritableStream
  if (!toFile) stream = io.stdout
  else {
    await checkOutput(path, flag)
    try {
      stream = (await open(path, 'w')).createWriteStream()
    } catch (error) {
      throw cannotWrite(error)
    }
  }
  let failure: unknown
  let gone = false
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!toFile && error.code === 'EPIPE') gone = true
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
      check()
      if (!toFile) return
      // A file stream always emits 'close', after 'finish' or after an error.
      const closed = once(stream, 'close').catch(() => undefined)
      stream.end()
      await closed
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
