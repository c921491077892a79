/**
 * `ledger-gas ingest` into SQLite as a user runs it: the built CLI in a fresh process into a new
 * ledger, against its limit: the bare parse (bench/bare/parse.mjs) plus the bare insert of the
 * same rows (bench/bare/sqlite-insert.mjs: the rows of a reference ingest, pre-built, into the same
 * schema with the same pragmas, in as many transactions as ingest's default batch makes). The
 * three take turns in an order that rotates each round. Target (issue 21): the ingest within 1.3x
 * parse + insert.
 *
 *   npx tsx bench/ingest-sqlite.ts [--rounds 3] [--quick]   (--quick: the sample chain, one round)
 */
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ingestBatches } from './ingest-batches.js'
import { bare, bigChain, builtCli, groupFlags, SAMPLE, SCRATCH, timed } from './processes.js'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'

const { rounds, quick } = groupFlags(3)
const group = startGroup(
  'ingest-sqlite',
  'ingest into SQLite: whole process against bare parse + bare insert',
  '`ledger-gas ingest --db NEW.sqlite --input FILE` (built CLI) against the sum of the bare parse script and a bare better-sqlite3 insert of the rows a reference ingest wrote (same schema and pragmas, pre-built rows, as many transactions as ingest makes by default: a batch closes at 4096 blocks or 20,000 transactions); wall time of fresh processes taking turns.',
  'cold',
  rounds,
)
const cli = builtCli()
const file = quick ? SAMPLE : bigChain()
const mb = statSync(file).size / 1e6
const { blocks, batches } = ingestBatches(file)
const db = (name: string) => {
  const path = join(SCRATCH, `ingest-${name}.sqlite`)
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true })
  return path
}
const reference = db('reference')
await timed(process.execPath, [cli, 'ingest', '--db', reference, '--input', file])
const sides = {
  default: async () => (await timed(process.execPath, [cli, 'ingest', '--db', db('default'), '--input', file])).wall_s,
  parse: async () => (await timed(process.execPath, [bare('parse'), file])).wall_s,
  insert: async () => (JSON.parse((await timed(process.execPath, [bare('sqlite-insert'), reference, db('bare'), String(batches)])).stdout) as { insert_s: number }).insert_s,
}
const names = Object.keys(sides) as (keyof typeof sides)[]
const runs = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<keyof typeof sides, number[]>
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < names.length; k++) {
    const n = names[(k + r) % names.length] as keyof typeof sides
    runs[n].push(await sides[n]())
  }
}
const limit = runs.parse.map((p, i) => p + (runs.insert[i] as number))
const name = `ingest, ${quick ? 'sample' : 'generated'} chain (${mb.toFixed(0)} MB, ${blocks} blocks)`
const note = `bare parse ${spread(runs.parse).median.toFixed(2)} s + bare insert ${spread(runs.insert).median.toFixed(2)} s (medians)`
const rows: Row[] = []
{
  const b = [baseline('bare parse + bare insert of the same rows', limit, runs.default), baseline('bare insert alone', runs.insert, runs.default)]
  const before = 'before one-pass canonical check and one arena (this session, 6 rounds, load 4.2-5.6): 5.76 s vs parse + insert 4.64 s: 1.35x (1.12-1.73); last round 1.50x, 1.9x at the audit'
  rows.push({ case: `${name}, default`, metric: 'wall s', project: { name: 'ledger-gas ingest', spread: spread(runs.default) }, baselines: b, target: target(1.3, b), note, before })
}
rmSync(db('default'), { force: true })
console.error(`  ingest-sqlite: ${rows.map((r) => `${r.baselines[0]?.ratio.median.toFixed(2)}x`).join(', ')}`)
console.error(`wrote ${writeResult(group.finish(rows))}`)
