/**
 * Child process of bench/stores.ts: one measured ingest in a fresh process, so each figure has
 * its own heap and JIT state. Prints one JSON line.
 *
 *   tsx bench/stores-child.ts sqlite-ingest SRC_DIR FILE        into a new SQLite file, closed
 *   tsx bench/stores-child.ts pg-ingest SRC_DIR FILE URL        into an empty PostgreSQL database
 *
 * SRC_DIR is the `src` tree to load the stores from: this checkout's, or the baseline commit's
 * (bench/baseline.ts), so both run the same harness.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [task, srcDir, file, url] = process.argv.slice(2) as [string, string, string, string | undefined]
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(srcDir, path)).href)) as T
/** A module of this checkout or the baseline's, which kept the stores at the top of src/ledger: the first path that exists. */
const loadFirst = async <T>(...paths: string[]): Promise<T> => load<T>(paths.find((p) => existsSync(join(srcDir, p))) ?? (paths[0] as string))
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

interface Store {
  close(): unknown
}
interface IngestModule {
  ingestJsonLines(path: string, store: Store): Promise<{ appended: number }>
}

const bytes = statSync(file).size
const { ingestJsonLines } = await load<IngestModule>('ledger/ingest.ts')
const { SqliteStore } = await loadFirst<{ SqliteStore: { open(path: string): Store } }>('ledger/sqlite/sqlite-store.ts', 'ledger/sqlite-store.ts')

if (task === 'sqlite-ingest') {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-ingest-'))
  try {
    const c0 = cpuMs()
    const t0 = performance.now()
    const store = SqliteStore.open(join(dir, 'ledger.db'))
    const summary = await ingestJsonLines(file, store)
    // Closing checkpoints the WAL into the database: part of the ingest's cost.
    store.close()
    const wall = performance.now() - t0
    const cpu = cpuMs() - c0
    process.stdout.write(`${JSON.stringify({ bytes, blocks: summary.appended, wall_ms: wall, cpu_ms: cpu, db_bytes: statSync(join(dir, 'ledger.db')).size })}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else if (task === 'pg-ingest' && url !== undefined) {
  const { PgStore } = await loadFirst<{ PgStore: { open(url: string): Promise<Store> } }>('ledger/postgres/pg-store.ts', 'ledger/pg-store.ts')
  const c0 = cpuMs()
  const t0 = performance.now()
  const store = await PgStore.open(url)
  const summary = await ingestJsonLines(file, store)
  await store.close()
  // CPU time of this process only: the server's is not counted.
  process.stdout.write(`${JSON.stringify({ bytes, blocks: summary.appended, wall_ms: performance.now() - t0, cpu_ms: cpuMs() - c0 })}\n`)
} else {
  throw new Error(`unknown task ${task}`)
}
