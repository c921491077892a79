// The bare insert baseline of `ingest` into SQLite: the rows a ledger-gas ingest wrote (read from
// its ledger FROM before the clock starts: pre-built rows), inserted into a new database TO with
// the same schema (FROM's sqlite_master, in order) and the writer's pragmas, in BATCHES
// transactions with prepared statements. Prints {"insert_s": …}: from opening TO to its close.
//   node bench/bare/sqlite-insert.mjs FROM TO BATCHES
import Database from 'better-sqlite3'
import { performance } from 'node:perf_hooks'
import process from 'node:process'

const [from, to, batches] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 1)]
const src = new Database(from, { readonly: true })
src.defaultSafeIntegers(true)
const ddl = src.prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid").pluck().all()
const tables = src.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid").pluck().all()
const rows = new Map(tables.map((t) => [t, src.prepare(`SELECT * FROM "${t}"`).raw().all()]))
src.close()

const t0 = performance.now()
const db = new Database(to)
db.defaultSafeIntegers(true)
// The pragmas of the project's SQLite writer (src/ledger/sqlite/sqlite-open.ts).
db.pragma('mmap_size = 268435456')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = NORMAL')
db.pragma('cache_size = -32768')
db.pragma('temp_store = MEMORY')
for (const sql of ddl) db.exec(sql)
const inserts = tables.map((t) => {
  const width = rows.get(t)[0]?.length ?? 0
  return [t, db.prepare(`INSERT INTO "${t}" VALUES (${Array(width).fill('?').join(', ')})`)]
})
for (let b = 0; b < batches; b++) {
  db.transaction(() => {
    for (const [t, insert] of inserts) {
      const all = rows.get(t)
      const per = Math.ceil(all.length / batches)
      for (let i = b * per; i < Math.min(all.length, (b + 1) * per); i++) insert.run(all[i])
    }
  })()
}
db.close()
process.stdout.write(`${JSON.stringify({ insert_s: (performance.now() - t0) / 1000 })}\n`)
