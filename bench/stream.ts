/**
 * Transaction Stream ingest benchmark (`npm run bench -- stream`): blocks/s of
 * `ingestFromStream` from a local stream server (bench/stream-server.ts, a child process) into
 * SQLite, beside `ingest --input` of the same chain file (`ingestJsonLines`) and `--from-node`
 * (`ingestFromNode`) against a local `serve` of the same chain (bench/follow-server.ts), each
 * into a fresh SQLite ledger, in the same rounds so their ratios share the machine's load. Then
 * the peak RSS of an ingest whose writer is slower than the stream (bench/stream-rss-child.ts).
 *
 *   npx tsx bench/stream.ts [--rounds 3] [--data data/chain.jsonl]
 *
 * Prints markdown tables; writes bench/results/stream.json.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ingestFromNode } from '../src/follow/ingest-node.js'
import { ingestFromStream } from '../src/follow/stream/ingest-stream.js'
import { ingestJsonLines } from '../src/ledger/ingest.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import { median } from './median.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, data: { type: 'string', default: join(here, '..', 'data', 'chain.jsonl') } } })
const ROUNDS = Number(values.rounds)
const DATA = values.data as string
const BLOCKS = readFileSync(DATA, 'utf8').split('\n').filter((l) => l.length > 0).length
const scratch = mkdtempSync(join(tmpdir(), 'ledger-gas-bench-stream-'))

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

let n = 0
function freshStore(): SqliteStore {
  return SqliteStore.open(join(scratch, `b${n++}.db`), { chainId: 4 })
}

async function timed(run: (store: SqliteStore) => Promise<number>): Promise<{ ms: number; blocks: number }> {
  const store = freshStore()
  try {
    const t0 = performance.now()
    const blocks = await run(store)
    return { ms: performance.now() - t0, blocks }
  } finally {
    store.close()
  }
}

const streamChild = fork(join(here, 'stream-server.ts'), [DATA], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const nodeChild = fork(join(here, 'follow-server.ts'), [DATA, String(BLOCKS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const stream = await reply<{ url: string; last_version: string; bytes: number }>(streamChild, 'url')
const node = await reply<{ url: string; height: number }>(nodeChild, 'url')

const cases = {
  file: (s: SqliteStore) => ingestJsonLines(DATA, s).then((r) => r.appended),
  stream: (s: SqliteStore) => ingestFromStream({ endpoint: stream.url, store: s, startingVersion: 1, toVersion: stream.last_version }).then((r) => r.appended),
  node: (s: SqliteStore) => ingestFromNode({ url: node.url, store: s, once: true, startHeight: 1 }).then((r) => r.appended),
}
type Case = keyof typeof cases
const runs: Record<Case, number[]> = { file: [], stream: [], node: [] }
const vsFile: number[] = []
const vsNode: number[] = []
const load0 = loadavg()[0] as number
for (let r = -1; r < ROUNDS; r++) {
  const ms: Partial<Record<Case, number>> = {}
  for (const c of Object.keys(cases) as Case[]) {
    const { ms: t, blocks } = await timed(cases[c])
    if (blocks !== BLOCKS) throw new Error(`${c} appended ${blocks} of ${BLOCKS} blocks`)
    ms[c] = t
  }
  if (r < 0) continue // warm-up: JIT, connections, page cache
  for (const c of Object.keys(cases) as Case[]) runs[c].push(ms[c] as number)
  vsFile.push((ms.file as number) / (ms.stream as number))
  vsNode.push((ms.node as number) / (ms.stream as number))
  console.error(`  round ${r + 1}/${ROUNDS} done`)
}

const rssChild = fork(join(here, 'stream-rss-child.ts'), [stream.url, stream.last_version, '25'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--import', 'tsx', '--expose-gc'] })
const rss = await reply<{ baseline_rss: number; peak_rss: number; blocks: number }>(rssChild, 'peak_rss')
await stop(streamChild)
await stop(nodeChild)
rmSync(scratch, { recursive: true, force: true })

const rows = (Object.keys(cases) as Case[]).map((c) => ({ case: c, blocks: BLOCKS, median_ms: Number(median(runs[c]).toFixed(1)), blocks_per_sec: Math.round((BLOCKS * 1000) / median(runs[c])) }))
const result = {
  date: new Date().toISOString(),
  node: process.version,
  loadavg_1m_at_start: load0,
  rounds: ROUNDS,
  chain: DATA,
  rows,
  stream_vs_file: Number(median(vsFile).toFixed(2)),
  stream_vs_node: Number(median(vsNode).toFixed(2)),
  targets: { stream_vs_file: 0.8, stream_vs_node: 10 },
  slow_writer: { commit_delay_ms: 25, batch_size: 100, blocks: rss.blocks, stream_bytes: stream.bytes, baseline_rss_mb: Number((rss.baseline_rss / 2 ** 20).toFixed(1)), peak_rss_mb: Number((rss.peak_rss / 2 ** 20).toFixed(1)) },
}
console.log('\n| source | blocks | median ms | blocks/s |\n|---|---:|---:|---:|')
for (const r of rows) console.log(`| ${r.case} | ${r.blocks} | ${r.median_ms} | ${r.blocks_per_sec} |`)
console.log(`\nstream ÷ file (speed): ${result.stream_vs_file}x (target ≥ 0.8); stream ÷ node: ${result.stream_vs_node}x (target ≥ 10); median of per-round ratios, load ${load0.toFixed(2)}`)
console.log(`slow writer (25 ms per commit): peak RSS ${result.slow_writer.peak_rss_mb} MB from ${result.slow_writer.baseline_rss_mb} MB while the stream held ${(stream.bytes / 2 ** 20).toFixed(1)} MB of transactions`)
mkdirSync(join(here, 'results'), { recursive: true })
writeFileSync(join(here, 'results', 'stream.json'), `${JSON.stringify(result, null, 2)}\n`)
