/**
 * Child process of bench/stores.ts: one measured ingest in a fresh process, so each figure has
 * its own heap and JIT state. Prints one JSON line.
 *
 *   tsx bench/stores-child.ts sqlite-ingest SRC_DIR FILE        into a new SQLite file, closed
 *   tsx bench/stores-child.ts sqlite-ingest-threads SRC_DIR FILE   the same, lines read on 1 worker thread
 *   tsx bench/stores-child.ts pg-ingest SRC_DIR FILE URL        into an empty PostgreSQL database
 *   tsx bench/stores-child.ts pg-ingest-threads SRC_DIR FILE URL   the same, lines read on 1 worker thread
 *
 * SRC_DIR is the `src` tree to load the stores from: this checkout's, or the baseline commit's
 * (bench/baseline.ts), so both run the same harness.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
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
  ingestJsonLines(path: string, store: Store, options?: { threads?: number }): Promise<{ appended: number }>
}

const bytes = statSync(file).size
const { ingestJsonLines } = await load<IngestModule>('ledger/ingest.ts')
const { SqliteStore } = await loadFirst<{ SqliteStore: { open(path: string): Store } }>('ledger/sqlite/sqlite-store.ts', 'ledger/sqlite-store.ts')

/**
 * A worker thread started under tsx spends 0.3 to 1 s registering the loader and compiling the
 * modules, which the built package's worker does not. The scan workers stay pooled after a
 * scan, so a `-threads` run first ingests the file's first lines into a scratch ledger: the
 * figure is then the overlap of scanning and writing, not tsx's start-up.
 */
async function warmWorkers(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-warm-'))
  try {
    const head = join(dir, 'head.jsonl')
    writeFileSync(head, readFileSync(file).subarray(0, 1 << 20).toString('utf8').split('\n').slice(0, 5).join('\n'))
    const store = SqliteStore.open(join(dir, 'warm.db'))
    await ingestJsonLines(head, store, { threads: 1 })
    store.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
if (task.endsWith('-threads')) await warmWorkers()
if (task === 'sqlite-ingest' || task === 'sqlite-ingest-threads') {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-ingest-'))
  try {
    const c0 = cpuMs()
    const t0 = performance.now()
    const store = SqliteStore.open(join(dir, 'ledger.db'))
    const summary = await ingestJsonLines(file, store, task === 'sqlite-ingest-threads' ? { threads: 1 } : {})
    // Closing checkpoints the WAL into the database: part of the ingest's cost.
    store.close()
    const wall = performance.now() - t0
    const cpu = cpuMs() - c0
    process.stdout.write(`${JSON.stringify({ bytes, blocks: summary.appended, wall_ms: wall, cpu_ms: cpu, db_bytes: statSync(join(dir, 'ledger.db')).size })}\n`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else if ((task === 'pg-ingest' || task === 'pg-ingest-threads') && url !== undefined) {
  const { PgStore } = await loadFirst<{ PgStore: { open(url: string): Promise<Store> } }>('ledger/postgres/pg-store.ts', 'ledger/pg-store.ts')
  const c0 = cpuMs()
  const t0 = performance.now()
  const store = await PgStore.open(url)
  const summary = await ingestJsonLines(file, store, task === 'pg-ingest-threads' ? { threads: 1 } : {})
  await store.close()
  // CPU time of this process only: the server's is not counted.
  process.stdout.write(`${JSON.stringify({ bytes, blocks: summary.appended, wall_ms: performance.now() - t0, cpu_ms: cpuMs() - c0 })}\n`)
} else {
  throw new Error(`unknown task ${task}`)
}
