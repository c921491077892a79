/**
 * Child process of bench/memory-store.ts: one `MemoryStore` in a fresh process, from a given
 * `src` tree (this checkout's, or the baseline commit's extracted by the parent) or a built
 * package's directory (with its `server.js`), so every side runs the same harness. Run with
 * `--expose-gc`.
 *
 *   tsx bench/memory-store-child.ts load SRC_DIR FILE   prints one JSON line: load time and memory
 *   tsx bench/memory-store-child.ts serve SRC_DIR FILE   loads, serves the API as `serve` does and
 *                                                       sends `{ url }` over IPC; answers `cpu`
 *                                                       with `{ cpu_us }`; exits on `stop`
 *
 * Memory is measured as the growth from the same process just before the load (modules
 * imported, an empty store, a full GC: the RSS of an empty server) to after the load and a full
 * GC, so the figure is what the chain costs, not Node's own ~100 MB (with tsx).
 */
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'

const [task, srcDir, file] = process.argv.slice(2) as [string, string, string]
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(srcDir, path)).href)) as T
type Gc = () => void
const gc = (globalThis as { gc?: Gc }).gc
if (gc === undefined) throw new Error('run with --expose-gc')
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

interface Store {
  ledgerInfo(): unknown
  close(): unknown
}
interface MemoryModule {
  MemoryStore: { new (): Store; fromJsonLines(path: string): Promise<Store> }
}
interface ApiModule {
  createServer(options: object): Promise<{ listen(o: object): Promise<string>; close(): Promise<void> }>
}

// A built package serves both from its `ledger-gas/server` entry.
const built = existsSync(join(srcDir, 'server.js'))
const { MemoryStore } = await load<MemoryModule>(built ? 'server.js' : 'ledger/memory-store.ts')
const api = await load<ApiModule>(built ? 'server.js' : 'api/index.ts')

/** Bytes of the young generation (new space) the process has mapped. */
function youngGeneration(): number {
  return getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.physical_space_size ?? 0
}

if (task === 'load') {
  // The same modules as a server, and an empty store: what an empty process holds.
  const empty = new MemoryStore()
  empty.ledgerInfo()
  // The same full GC before and after: a memory-reducing one here would also shrink the young
  // generation that importing the modules grew, and the load would be charged for growing it back.
  gc()
  const before = process.memoryUsage()
  const young0 = youngGeneration()
  const c0 = cpuMs()
  const t0 = performance.now()
  const store = await MemoryStore.fromJsonLines(file)
  const wall = performance.now() - t0
  const cpu = cpuMs() - c0
  gc()
  const after = process.memoryUsage()
  process.stdout.write(
    `${JSON.stringify({
      bytes: statSync(file).size,
      wall_ms: wall,
      cpu_ms: cpu,
      rss_before_bytes: before.rss,
      rss_growth_bytes: after.rss - before.rss,
      // What the store holds: live heap objects, and its packed bytes (else V8's external memory).
      retained_bytes: after.heapUsed - before.heapUsed + ((store as { packedBytes?: number }).packedBytes ?? after.external - before.external),
      new_space_growth_bytes: youngGeneration() - young0,
      ok: store.ledgerInfo() !== null,
    })}\n`,
  )
} else if (task === 'serve') {
  const store = await MemoryStore.fromJsonLines(file)
  process.on('message', (m) => {
    if (m !== 'cpu') return
    const u = process.cpuUsage()
    process.send?.({ cpu_us: u.user + u.system })
  })
  // As `serve` runs it (and bench/http.ts): request logs at info to /dev/null, everything on.
  const server = await api.createServer({ store, logger: { level: 'info', file: '/dev/null' } })
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  process.send?.({ url })
  process.on('message', async (m) => {
    if (m !== 'stop') return
    await server.close()
    await store.close()
    process.exit(0)
  })
} else {
  throw new Error(`unknown task ${task}`)
}
