/**
 * The servers the HTTP benchmarks measure, each in its own child process (http-server.ts,
 * memory-store-child.ts) so the load generator does not share its event loop or CPU account.
 * The protocol: the child sends `{ url }` once listening, answers `'cpu'` with `{ cpu_us }`
 * (its CPU time so far) and exits on `'stop'`.
 */
import autocannon from 'autocannon'
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process'

/** A benchmark server in a child process. */
export interface BenchServer {
  url: string
  child: ChildProcess
}

/** Forks `script` with `args` and resolves once it listens; rejects if it exits first. */
export async function startBenchServer(script: string, args: string[], options: ForkOptions = {}): Promise<BenchServer> {
  const child = fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...options })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url))
    child.once('exit', (code) => reject(new Error(`${args[0] ?? script} server exited with ${code}`)))
  })
  return { url, child }
}

/** The server's CPU time so far (µs). */
export async function serverCpu(server: BenchServer): Promise<number> {
  const reply = new Promise<number>((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'cpu_us' in m) {
        server.child.off('message', on)
        resolve((m as { cpu_us: number }).cpu_us)
      }
    }
    server.child.on('message', on)
  })
  server.child.send('cpu')
  return reply
}

/** Asks the server to stop and waits for its exit. */
export async function stopBenchServer(server: BenchServer): Promise<void> {
  const exited = new Promise((r) => server.child.once('exit', r))
  server.child.send('stop')
  await exited
}

/**
 * One bounded autocannon run of `duration` s against `server`, cycling through `paths`, after a
 * 1 s warm-up (JIT, caches, connection setup), with the server's CPU time per request during
 * the measured run (µs).
 */
export async function measureServer(server: BenchServer, paths: readonly string[], connections: number, duration: number): Promise<{ result: autocannon.Result; cpuPerRequestUs: number }> {
  let i = 0
  const run = (d: number) => autocannon({ url: server.url, connections, duration: d, requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] as string }) }] })
  await run(1)
  const cpu0 = await serverCpu(server)
  const result = await run(duration)
  const cpu1 = await serverCpu(server)
  return { result, cpuPerRequestUs: (cpu1 - cpu0) / Math.max(1, result.requests.total) }
}
