import { PassThrough, Readable } from 'node:stream'
import { main } from '../../src/cli/main.js'

/** Runs the CLI in-process with captured output; `stdin` is a string or any readable stream. */
export async function runCli(args: string[], stdin: string | NodeJS.ReadableStream = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const out = new PassThrough()
  const err = new PassThrough()
  out.on('data', (d) => (stdout += d))
  err.on('data', (d) => (stderr += d))
  const code = await main(args, { stdin: typeof stdin === 'string' ? Readable.from([stdin]) : stdin, stdout: out, stderr: err, signal: new AbortController().signal })
  await new Promise((r) => setImmediate(r))
  return { code, stdout, stderr }
}

/** A standard input that records whether a command started reading it. */
export function watchedStdin(text = ''): { stream: Readable; read: () => boolean } {
  let read = false
  const stream = new Readable({
    read() {
      read = true
      this.push(text)
      this.push(null)
    },
  })
  return { stream, read: () => read }
}
