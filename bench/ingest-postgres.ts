/**
 * `ledger-gas ingest` into PostgreSQL as a user runs it: the built CLI in a fresh process into a
 * new schema, against its limit: the bare parse (bench/bare/parse.mjs) plus a bare COPY of the
 * same rows (bench/bare/pg-copy.mjs: the rows of a reference ingest, pre-built, into tables made
 * LIKE its own, in as many transactions as ingest's default batches make). The server is
 * `DATABASE_URL`'s, else the tests' embedded PostgreSQL (test/helpers/postgres.ts); when neither
 * starts, the group is written as skipped, with the reason. The three take turns in an order that
 * rotates each round. Target (issue 21): the default within 1.5x parse + COPY.
 *
 *   npx tsx bench/ingest-postgres.ts [--rounds 3] [--quick]   (--quick: the sample chain, one round)
 */
import { statSync } from 'node:fs'
import { ingestBatches } from './ingest-batches.js'
import { bare, bigChain, builtCli, groupFlags, postgresOrSkip, SAMPLE, timed } from './processes.js'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'

const { rounds, quick } = groupFlags(3)
const group = startGroup(
  'ingest-postgres',
  'ingest into PostgreSQL: whole process against bare parse + COPY',
  "`ledger-gas ingest --db URL?schema=NEW --input FILE` (built CLI) against the sum of the bare parse script and a bare `COPY … FROM STDIN` of the rows a reference ingest wrote (tables LIKE its own, as many transactions as ingest makes by default: a batch closes at 4096 blocks or 20,000 transactions); wall time of fresh processes taking turns, on one server (the tests' embedded PostgreSQL: fsync off).",
  'cold',
  rounds,
)
const pgs = await postgresOrSkip(group, 'ingest-postgres')
try {
  const cli = builtCli()
  const file = quick ? SAMPLE : bigChain()
  const mb = statSync(file).size / 1e6
  const { blocks, batches } = ingestBatches(file)
  const url = await pgs.createDatabase()
  const withSchema = (schema: string) => `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`
  const reference = await pgs.createSchema(url)
  await timed(process.execPath, [cli, 'ingest', '--db', withSchema(reference), '--input', file])
  let n = 0
  const sides = {
    ingest: async () => (await timed(process.execPath, [cli, 'ingest', '--db', withSchema(await pgs.createSchema(url)), '--input', file])).wall_s,
    parse: async () => (await timed(process.execPath, [bare('parse'), file])).wall_s,
    copy: async () => (JSON.parse((await timed(process.execPath, [bare('pg-copy'), url, reference, `bare_${n++}`, String(batches)])).stdout) as { copy_s: number }).copy_s,
  }
  const names = Object.keys(sides) as (keyof typeof sides)[]
  const runs = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<keyof typeof sides, number[]>
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const side = names[(k + r) % names.length] as keyof typeof sides
      runs[side].push(await sides[side]())
    }
  }
  const limit = runs.parse.map((p, i) => p + (runs.copy[i] as number))
  const name = `ingest, ${quick ? 'sample' : 'generated'} chain (${mb.toFixed(0)} MB, ${blocks} blocks)`
  const note = `bare parse ${spread(runs.parse).median.toFixed(2)} s + COPY ${spread(runs.copy).median.toFixed(2)} s (medians)`
  const rows: Row[] = []
  {
    const b = [baseline('bare parse + COPY of the same rows', limit, runs.ingest), baseline('bare COPY alone', runs.copy, runs.ingest)]
    const before = '4.40 s vs parse + COPY 4.06 s: 1.08x, read on a worker thread by default then; read in place (--threads 0) 4.36 s: 1.04x (2.0x at the audit)'
    rows.push({ case: `${name}, default`, metric: 'wall s', project: { name: 'ledger-gas ingest --db postgres://…', spread: spread(runs.ingest) }, baselines: b, target: target(1.5, b), note, before })
  }
  console.error(`  ingest-postgres: ${rows.map((r) => `${r.baselines[0]?.ratio.median.toFixed(2)}x`).join(', ')}`)
  console.error(`wrote ${writeResult(group.finish(rows))}`)
} finally {
  await pgs.close()
}
