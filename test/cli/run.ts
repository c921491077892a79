import { PassThrough, Readable } from 'node:stream'
import { main } from '../../src/cli/main.js'

/** Runs the CLI in-process with captured output. */
export async function runCli(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const out = new PassThrough()
  const err = new PassThrough()
  out.on('data', (d) => (stdout += d))
  err.on('data', (d) => (stderr += d))
  const code = await main(args, { stdin: Readable.from([stdin]), stdout: out, stderr: err, signal: new AbortController().signal })
  await new Promise((r) => setImmediate(r))
  return { code, stdout, stderr }
}
