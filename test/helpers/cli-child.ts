import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { join } from 'node:path'

/** The repository root, where `src/cli/main.ts` runs under tsx. */
export const ROOT = join(import.meta.dirname, '../..')

/** A `ledger-gas` CLI child process (the real entry point, so SIGTERM takes the real path). */
export interface CliChild {
  child: ChildProcess
  /** Everything written to stderr so far. */
  stderr(): string
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** Spawns `ledger-gas <args>` with tsx; `stdin: 'pipe'` gives the test the child's standard input to write. */
export function spawnCli(args: string[], options: { stdin?: 'ignore' | 'pipe' } = {}): CliChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: ROOT, stdio: [options.stdin ?? 'ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  return { child, stderr: () => err, exited }
}

/**
 * Resolves once `test` matches the child's stderr (checked on each chunk it writes); rejects,
 * quoting stderr, if the child exits first. No clock: the test's own time limit bounds the wait.
 */
export function waitForStderr(c: CliChild, test: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = test.exec(c.stderr())
      if (m === null) return false
      c.child.stderr?.off('data', onData)
      resolve(m)
      return true
    }
    // Listeners run in order: spawnCli's, which appends the chunk, ran before this one.
    const onData = () => void check()
    if (check()) return
    c.child.stderr?.on('data', onData)
    void c.exited.then(() => {
      if (!check()) reject(new Error(`exited without ${test} on stderr: ${c.stderr()}`))
    })
  })
}

/** Starts `ledger-gas serve <args> --port 0` and returns its base URL (`http://127.0.0.1:N`). */
export async function startServe(args: string[]): Promise<CliChild & { url: string; port: number }> {
  const c = spawnCli(['serve', ...args, '--port', '0'])
  const m = await waitForStderr(c, /listening on (http:\/\/127\.0\.0\.1:(\d+))\/v1/)
  return { ...c, url: m[1] as string, port: Number(m[2]) }
}

/** A raw HTTP/1.1 exchange whose reading can be paused, to hold a response in flight. */
export interface RawExchange {
  /** Resolves once the status line and headers have arrived. */
  head: Promise<{ status: number; contentLength: number }>
  /** Body bytes received so far. */
  received(): number
  /** Resolves with the whole response once `content-length` bytes of body have arrived. */
  done: Promise<{ status: number; headers: string; body: Buffer }>
  pause(): void
  resume(): void
}

/** Sends `GET path` on a fresh connection to 127.0.0.1:`port` and parses the answer by hand. */
export function rawGet(port: number, path: string, options: { pauseAfterHead?: boolean } = {}): RawExchange {
  const socket = connect(port, '127.0.0.1')
  socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`)
  const chunks: Buffer[] = []
  let headEnd = -1
  let status = 0
  let contentLength = -1
  let headers = ''
  let bodyBytes = 0
  let onHead: (h: { status: number; contentLength: number }) => void = () => {}
  let onDone: (r: { status: number; headers: string; body: Buffer }) => void = () => {}
  let onError: (e: Error) => void = () => {}
  const head = new Promise<{ status: number; contentLength: number }>((resolve, reject) => ((onHead = resolve), (onError = reject)))
  const done = new Promise<{ status: number; headers: string; body: Buffer }>((resolve, reject) => {
    onDone = resolve
    socket.once('error', reject)
    socket.once('close', () => reject(new Error(`connection closed after ${bodyBytes} of ${contentLength} body bytes`)))
  })
  socket.once('error', (e) => onError(e))
  // Awaited by the caller; these only keep an unawaited failure from being reported twice.
  head.catch(() => {})
  done.catch(() => {})
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk)
    if (headEnd === -1) {
      const all = Buffer.concat(chunks)
      headEnd = all.indexOf('\r\n\r\n')
      if (headEnd === -1) return
      headers = all.subarray(0, headEnd).toString('latin1')
      status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1])
      contentLength = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? -1)
      chunks.length = 0
      chunks.push(all.subarray(headEnd + 4))
      bodyBytes = all.length - headEnd - 4
      onHead({ status, contentLength })
      if (options.pauseAfterHead) socket.pause()
    } else {
      bodyBytes += chunk.length
    }
    if (bodyBytes >= contentLength) {
      onDone({ status, headers, body: Buffer.concat(chunks) })
      socket.end()
    }
  })
  return { head, received: () => bodyBytes, done, pause: () => socket.pause(), resume: () => socket.resume() }
}

/** Resolves `true` when a TCP connection to 127.0.0.1:`port` is refused, `false` when accepted. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(false)
    })
    s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'))
  })
}
