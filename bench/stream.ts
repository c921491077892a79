/**
 * Transaction Stream ingest benchmark (`npm run bench -- stream`): wall time of
 * `ingestFromStream` from a local stream server (bench/stream-server.ts, a child process) into a
 * fresh ledger, beside `ingest --input` of the same chain file (`ingestJsonLines`) and, for
 * SQLite, `--from-node` (`ingestFromNode`) against a local `serve` of the same chain
 * (bench/follow-server.ts, a child process), in the same rounds (order rotating each round) so
 * each round's ratios share the machine's load. Then PostgreSQL, stream against file (the tests'
 * embedded server or `DATABASE_URL`'s; skipped with the reason when none starts), and the peak
 * RSS of an ingest whose writer is slower than the stream (bench/stream-rss-child.ts).
 *
 *   npx tsx bench/stream.ts [--rounds 7] [--data data/chain.jsonl]
 *
 * Writes bench/results/stream.json in the shape of bench/results.ts.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openLedger } from '../src/cli/open-store.js'
import { ingestFromNode } from '../src/follow/ingest-node.js'
import { ingestFromStream } from '../src/follow/stream/ingest-stream.js'
import { ingestJsonLines } from '../src/ledger/ingest.js'
import type { BatchAppendStore } from '../src/ledger/store/store.js'
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres.js'
import { SAMPLE } from './processes.js'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, data: { type: 'string', default: SAMPLE } } })
const ROUNDS = Number(values.rounds)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: expected a positive integer, got ${values.rounds}`)
const DATA = values.data as string
const LINES = readFileSync(DATA, 'utf8').split('\n').filter((l) => l.length > 0)
const BLOCKS = LINES.length
/** Transactions in the chain: REST polling pays one request per block, so its cost per transaction falls as blocks grow. */
const TRANSACTIONS = LINES.reduce((n, l) => n + (JSON.parse(l) as { transactions: unknown[] }).transactions.length, 0)
const scratch = mkdtempSync(join(tmpdir(), 'ledger-gas-bench-stream-'))
const group = startGroup(
  'stream',
  'Transaction Stream ingest: stream against file and REST polling',
  `\`ingestFromStream\` from a local stream server (a child process serving the chain's transactions as proto) into a new ledger, against \`ingest --input\` of the same chain file (\`ingestJsonLines\`) and \`--from-node\` (\`ingestFromNode\`) against a local \`serve\` of it (a child process); in-process wall time, each round after a warm-up round, the order rotating each round. Targets (issue 24): the stream at ≥ 0.8x the file's speed (time ratio ≤ 1.25) and ≥ 10x REST polling (time ratio ≤ 0.1).`,
  'warm',
  ROUNDS,
)

function reply<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${key}: child exited with ${code}`)))
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && key in m) {
        child.off('message', on)
        resolve(m as T)
      }
    }
    child.on('message', on)
  })
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.send('stop')
  await exited
}

type Case = (store: BatchAppendStore) => Promise<number>

interface Runs {
  /** Wall seconds per round. */
  wall: number[]
  /** CPU seconds of this process per round (the servers, in their own processes, not counted). */
  cpu: number[]
}

/** `rounds` rounds (after one warm-up) of each case into a fresh ledger from `open`. */
async function measure(cases: Record<string, Case>, open: () => Promise<BatchAppendStore>): Promise<Record<string, Runs>> {
  const names = Object.keys(cases)
  const runs: Record<string, Runs> = Object.fromEntries(names.map((k) => [k, { wall: [], cpu: [] }]))
  for (let r = -1; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(r, 0)) % names.length] as string
      const store = await open()
      try {
        const c0 = process.cpuUsage()
        const t0 = performance.now()
        const blocks = await (cases[name] as Case)(store)
        const wall = (performance.now() - t0) / 1000
        const c = process.cpuUsage(c0)
        if (blocks !== BLOCKS) throw new Error(`${name} appended ${blocks} of ${BLOCKS} blocks`)
        if (r >= 0) {
          runs[name]?.wall.push(wall)
          runs[name]?.cpu.push((c.user + c.system) / 1e6)
        }
      } finally {
        await store.close()
      }
    }
    if (r >= 0) console.error(`  round ${r + 1}/${ROUNDS} done`)
  }
  return runs
}

const streamChild = fork(join(import.meta.dirname, 'stream-server.ts'), [DATA], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const nodeChild = fork(join(import.meta.dirname, 'follow-server.ts'), [DATA, String(BLOCKS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const stream = await reply<{ url: string; last_version: string; bytes: number }>(streamChild, 'url')
const node = await reply<{ url: string; height: number }>(nodeChild, 'url')
const fromStream: Case = (s) => ingestFromStream({ endpoint: stream.url, store: s, startingVersion: 1, toVersion: stream.last_version }).then((r) => r.appended)
const fromFile: Case = (s) => ingestJsonLines(DATA, s).then((r) => r.appended)
const fromNode: Case = (s) => ingestFromNode({ url: node.url, store: s, once: true, startHeight: 1 }).then((r) => r.appended)
const chainNote = `${DATA.endsWith(join('data', 'chain.jsonl')) ? 'the sample chain' : DATA}, ${BLOCKS} blocks, ${TRANSACTIONS} transactions (${(TRANSACTIONS / BLOCKS).toFixed(1)} a block), ${(stream.bytes / 2 ** 20).toFixed(1)} MiB of proto transactions`

const rows: Row[] = []
let n = 0
const sqlite = await measure({ stream: fromStream, file: fromFile, node: fromNode }, async () => (await openLedger(join(scratch, `b${n++}.db`), { readonly: false, chainId: 4 })).store)
const STREAM_SIDE = 'ingestFromStream from a local stream server'
const FILE_SIDE = 'ingestJsonLines of the chain file (ingest --input)'
const NODE_SIDE = 'ingestFromNode against a local serve (--from-node)'
const x = (r: number) => `${r.toFixed(2)}x`
/** The rows of one store: wall time against each baseline (with its target), then this process's CPU time against the file. */
function rowsOf(store: string, runs: Record<string, Runs>, note: string): Row[] {
  const s = runs.stream as Runs
  const out: Row[] = []
  for (const [key, name, max] of [['file', FILE_SIDE, 1.25], ['node', NODE_SIDE, 0.1]] as const) {
    const other = runs[key]
    if (other === undefined) continue
    const b = [baseline(name, other.wall, s.wall)]
    // What even the file ingest reaches against REST polling in the same rounds: the ceiling of the ≥ 10x target on this chain.
    const file = runs.file as Runs
    const fileOverNode = key === 'node' ? `; ingest --input took ${x(spread(file.wall.map((w, i) => w / (other.wall[i] as number))).median)} REST polling's time in the same rounds` : ''
    out.push({ case: `stream → ${store}, against ${key === 'file' ? 'the file' : 'REST polling'}`, metric: 'wall s', project: { name: STREAM_SIDE, spread: spread(s.wall) }, baselines: b, target: target(max, b), note: `${note}${fileOverNode}` })
  }
  const cpu = [baseline(FILE_SIDE, (runs.file as Runs).cpu, s.cpu)]
  out.push({ case: `stream → ${store}, against the file, CPU`, metric: 'CPU s (the ingesting process)', project: { name: STREAM_SIDE, spread: spread(s.cpu) }, baselines: cpu, note: `${note}; the stream server's CPU is not counted, as a hosted stream's is not` })
  return out
}
rows.push(...rowsOf('SQLite', sqlite, chainNote))
await stop(nodeChild)

let pgs: TestPostgres | undefined
let skippedPostgres: string | undefined
try {
  pgs = await startTestPostgres()
} catch (error) {
  skippedPostgres = `no PostgreSQL: DATABASE_URL is not set and the embedded server did not start (${(error as Error).message.split('\n')[0]})`
}
if (pgs !== undefined) {
  try {
    const url = await pgs.createDatabase()
    const server = pgs
    const open = async () => (await openLedger(`${url}${url.includes('?') ? '&' : '?'}schema=${await server.createSchema(url)}`, { readonly: false, chainId: 4 })).store
    const pg = await measure({ stream: fromStream, file: fromFile }, open)
    rows.push(...rowsOf('PostgreSQL', pg, `${chainNote}; the tests' embedded PostgreSQL (fsync off) or DATABASE_URL's`))
  } finally {
    await pgs.close()
  }
}

const rssChild = fork(join(import.meta.dirname, 'stream-rss-child.ts'), [stream.url, stream.last_version, '25'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--import', 'tsx', '--expose-gc'] })
const rss = await reply<{ baseline_rss: number; peak_rss: number; blocks: number }>(rssChild, 'peak_rss')
await stop(streamChild)
rmSync(scratch, { recursive: true, force: true })
const mb = (b: number) => b / 2 ** 20
rows.push({
  case: 'peak RSS, writer slower than the stream (25 ms per commit, 100 transactions per response)',
  metric: 'peak RSS MB',
  project: { name: 'ingestFromStream into SQLite, default flow-control window', spread: spread([mb(rss.peak_rss)]) },
  baselines: [],
  note: `${rss.blocks} blocks; the process held ${mb(rss.baseline_rss).toFixed(1)} MB before the ingest while the stream served ${mb(stream.bytes).toFixed(1)} MiB`,
})
if (skippedPostgres !== undefined) rows.push({ case: 'stream → PostgreSQL, against the file', metric: 'wall s', project: { name: STREAM_SIDE, spread: spread([]) }, baselines: [], note: `skipped: ${skippedPostgres}` })

const result = group.finish(rows)
console.log('\n| case | metric | stream (median, min–max) | baseline | time ratio (median, min–max) | target |\n|---|---|---|---|---|---|')
for (const r of rows) {
  const p = r.project.spread
  const b = r.baselines[0]
  const cell = (s: { median: number; min: number; max: number }, f: (v: number) => string) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`
  console.log(`| ${r.case} | ${r.metric} | ${cell(p, (v) => v.toFixed(3))} | ${b === undefined ? '' : b.spread.median.toFixed(3)} | ${b === undefined ? '' : cell(b.ratio, x)} | ${r.target === undefined ? '' : `≤ ${r.target.max_ratio} ${r.target.met ? 'met' : 'NOT met'}`} |`)
}
console.log(`\nload average ${result.load_average.start.toFixed(2)} → ${result.load_average.end.toFixed(2)}; peak RSS ${mb(rss.peak_rss).toFixed(1)} MB`)
console.error(`wrote ${writeResult(result)}`)
