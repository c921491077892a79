/**
 * Load test of the read API (`npm run bench:load`; bounded, 127.0.0.1 only). For each store:
 * the server runs in a child process (bench/load-server.ts, --expose-gc); after a warm-up its
 * memory is measured after full GCs (baseline), then 100 connections load the three spec
 * endpoints at once for 30 s — three autocannon instances of 34/33/33 connections, one per
 * endpoint, over seeded valid paths — while the child's RSS is sampled (peak); after the load
 * the child is collected again (after). Passes when there are zero errors, zero timeouts, zero
 * non-2xx answers, RSS after within max(32 MiB, 15%) of the baseline and the live heap after
 * within 4 MiB of its baseline.
 *
 *   npx tsx bench/load.ts [--duration 30] [--connections 100] [--warmup 5] [--stores memory,sqlite]
 *                         [--data data/chain.jsonl] [--rss-margin-mb 32] [--rss-margin-pct 15] [--heap-margin-mb 4]
 *
 * Prints a markdown table; writes bench/results/load.json (in the shape of bench/results.ts).
 */
import autocannon from 'autocannon'
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseAddress } from '../src/ledger/store/address.js'
import { loadJsonLines } from '../src/ledger/read/load.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { createRng } from '../src/sim/prng.js'
import { row as resultRow, startGroup, writeResult } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '30' },
    connections: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '5' },
    stores: { type: 'string', default: 'memory,sqlite' },
    data: { type: 'string', default: join(here, '..', 'data', 'chain.jsonl') },
    'rss-margin-mb': { type: 'string', default: '32' },
    'rss-margin-pct': { type: 'string', default: '15' },
    'heap-margin-mb': { type: 'string', default: '4' },
  },
})
const DURATION = Number(values.duration)
const CONNECTIONS = Number(values.connections)
const WARMUP = Number(values.warmup)
const STORES = (values.stores as string).split(',') as ('memory' | 'sqlite')[]
const DATA = values.data as string
const MARGIN_MB = Number(values['rss-margin-mb'])
const MARGIN_PCT = Number(values['rss-margin-pct'])
/** The leak check proper: live JS heap after full GCs, which unlike RSS the allocator cannot hold on to. */
const HEAP_MARGIN_MB = Number(values['heap-margin-mb'])
const MB = 1024 * 1024

/** Seeded uniform floats in [0, 1) from the project's PRNG, so every run draws the same. */
function rng(seed: number): () => number {
  const g = createRng(seed)
  return () => g.float()
}

/** Valid request paths per endpoint, drawn from the chain: retained versions, active senders, pages. */
function fixture(blocks: BlockJson[]): Record<'estimate' | 'by_version' | 'accounts', string[]> {
  const r = rng(7)
  const first = Number(blocks[0]?.first_version)
  const last = Number(blocks[blocks.length - 1]?.last_version)
  const senders: string[] = []
  for (const b of blocks) for (const t of b.transactions) if (t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) === null) senders.push(parseAddress(t.sender) as string)
  const limits = ['', '?limit=10', '?limit=100', '?start=0&limit=25', '?start=3']
  return {
    estimate: ['/v1/estimate_gas_price'],
    by_version: Array.from({ length: 4096 }, () => `/v1/transactions/by_version/${first + Math.floor(r() * (last - first + 1))}`),
    accounts: Array.from({ length: 4096 }, () => `/v1/accounts/${senders[Math.floor(r() * senders.length)]}/transactions${limits[Math.floor(r() * limits.length)]}`),
  }
}

interface Mem {
  rss: number
  heapUsed: number
  external: number
  arrayBuffers: number
}

interface Server {
  url: string
  child: ChildProcess
}

async function startServer(kind: string, arg: string): Promise<Server> {
  const child = fork(join(here, 'load-server.ts'), [kind, arg], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url))
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)))
  })
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to load a non-loopback server: ${url}`)
  return { url, child }
}

function memOf(s: Server, gc: boolean): Promise<Mem> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'mem' in m) {
        s.child.off('message', on)
        resolve((m as { mem: Mem }).mem)
      }
    }
    s.child.on('message', on)
    s.child.send(gc ? 'mem-gc' : 'mem')
  })
}

async function stopServer(s: Server): Promise<number | null> {
  const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)))
  s.child.send('stop')
  return exited
}

function cannon(url: string, paths: readonly string[], connections: number, duration: number): Promise<autocannon.Result> {
  let i = 0
  return autocannon({ url, connections, duration, requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length] as string }) }] })
}

interface Row {
  endpoint: string
  connections: number
  requests: number
  requests_per_sec: number
  latency_p50_ms: number
  latency_p90_ms: number
  latency_p99_ms: number
  latency_max_ms: number
  errors: number
  timeouts: number
  non_2xx: number
}

function rowOf(endpoint: string, connections: number, r: autocannon.Result): Row {
  return {
    endpoint,
    connections,
    requests: r.requests.total,
    requests_per_sec: Math.round(r.requests.average),
    latency_p50_ms: r.latency.p50,
    latency_p90_ms: r.latency.p90,
    latency_p99_ms: r.latency.p99,
    latency_max_ms: r.latency.max,
    errors: r.errors,
    timeouts: r.timeouts,
    non_2xx: r.non2xx,
  }
}

interface StoreResult {
  store: string
  rows: Row[]
  total: Row
  memory: { baseline: Mem; peak_rss: number; after: Mem; margin_bytes: number; rss_back_within_margin: boolean; heap_back_within_margin: boolean }
  exit_code: number | null
  pass: boolean
}

async function runStore(kind: 'memory' | 'sqlite', arg: string, paths: ReturnType<typeof fixture>): Promise<StoreResult> {
  const server = await startServer(kind, arg)
  const mixed = [...paths.by_version.slice(0, 1000), ...paths.accounts.slice(0, 1000), ...Array(1000).fill('/v1/estimate_gas_price')]
  await cannon(server.url, mixed, CONNECTIONS, WARMUP)
  const baseline = await memOf(server, true)
  let peak = baseline.rss
  const sampler = setInterval(() => void memOf(server, false).then((m) => (peak = Math.max(peak, m.rss))), 250)
  // The three endpoints at once, CONNECTIONS split between them.
  const split = [Math.ceil(CONNECTIONS / 3), Math.ceil((CONNECTIONS - Math.ceil(CONNECTIONS / 3)) / 2)]
  const conns = [split[0] as number, split[1] as number, CONNECTIONS - (split[0] as number) - (split[1] as number)]
  const [estimate, byVersion, accounts] = await Promise.all([
    cannon(server.url, paths.estimate, conns[0] as number, DURATION),
    cannon(server.url, paths.by_version, conns[1] as number, DURATION),
    cannon(server.url, paths.accounts, conns[2] as number, DURATION),
  ])
  clearInterval(sampler)
  await new Promise((r) => setTimeout(r, 1000))
  const after = await memOf(server, true)
  const exitCode = await stopServer(server)
  const rows = [
    rowOf('GET /v1/estimate_gas_price', conns[0] as number, estimate as autocannon.Result),
    rowOf('GET /v1/transactions/by_version/{v}', conns[1] as number, byVersion as autocannon.Result),
    rowOf('GET /v1/accounts/{a}/transactions', conns[2] as number, accounts as autocannon.Result),
  ]
  const sum = (k: keyof Row) => rows.reduce((s, r) => s + (r[k] as number), 0)
  const max = (k: keyof Row) => Math.max(...rows.map((r) => r[k] as number))
  // Percentiles of separate runs do not add up: the total's are the worst endpoint's (an upper bound).
  const total: Row = {
    endpoint: 'all three (p50/p90/p99/max: worst endpoint)',
    connections: CONNECTIONS,
    requests: sum('requests'),
    requests_per_sec: sum('requests_per_sec'),
    latency_p50_ms: max('latency_p50_ms'),
    latency_p90_ms: max('latency_p90_ms'),
    latency_p99_ms: max('latency_p99_ms'),
    latency_max_ms: max('latency_max_ms'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    non_2xx: sum('non_2xx'),
  }
  const margin = Math.max(MARGIN_MB * MB, (MARGIN_PCT / 100) * baseline.rss)
  const back = after.rss <= baseline.rss + margin
  const heapBack = after.heapUsed <= baseline.heapUsed + HEAP_MARGIN_MB * MB
  return {
    store: kind,
    rows,
    total,
    memory: { baseline, peak_rss: peak, after, margin_bytes: Math.round(margin), rss_back_within_margin: back, heap_back_within_margin: heapBack },
    exit_code: exitCode,
    pass: total.errors === 0 && total.timeouts === 0 && total.non_2xx === 0 && back && heapBack && exitCode === 0,
  }
}

const mb = (n: number) => (n / MB).toFixed(1)

async function main(): Promise<void> {
  const group = startGroup(
    'load',
    'load: the three endpoints at once, and memory after',
    `Each store's server in a child process (bench/load-server.ts, --expose-gc); after a ${WARMUP} s warm-up, ${CONNECTIONS} connections load the three spec endpoints at once for ${DURATION} s (one autocannon instance each) over seeded valid paths; memory after full GCs before and after the load. Passes with no error, timeout or non-2xx, RSS back within max(${MARGIN_MB} MiB, ${MARGIN_PCT}%) and the live heap within ${HEAP_MARGIN_MB} MiB. A soak and leak check, not a comparison of the stores: one run each, with the load generators sharing the cores with the server, so their requests/s move with the machine (the stores are compared by server CPU per request in reads-cold).`,
    'warm',
    1,
  )
  const blocks = readFileSync(DATA, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as BlockJson)
  const paths = fixture(blocks)
  const tmp = mkdtempSync(join(tmpdir(), 'ledger-gas-load-'))
  const results: StoreResult[] = []
  try {
    console.error(`load: ${blocks.length} blocks, ${CONNECTIONS} connections for ${DURATION} s per store (after ${WARMUP} s warm-up), ${cpus().length} CPUs`)
    for (const kind of STORES) {
      let arg = DATA
      if (kind === 'sqlite') {
        arg = join(tmp, 'ledger.db')
        const sqlite = SqliteStore.open(arg)
        await loadJsonLines(DATA, sqlite)
        sqlite.close()
      }
      const r = await runStore(kind, arg, paths)
      console.error(`  ${kind}: ${r.total.requests_per_sec} req/s, p99 ≤ ${r.total.latency_p99_ms} ms, ${r.total.errors} errors, ${r.total.non_2xx} non-2xx, RSS ${mb(r.memory.baseline.rss)} → peak ${mb(r.memory.peak_rss)} → ${mb(r.memory.after.rss)} MiB`)
      results.push(r)
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }

  const lines = [
    `${blocks.length}-block chain; ${CONNECTIONS} connections for ${DURATION} s on the three endpoints at once (one autocannon instance each), after a ${WARMUP} s warm-up; server in a child process`,
    '',
    '| store | endpoint | conns | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | timeouts | non-2xx |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.flatMap((s) =>
      [...s.rows, s.total].map((r) => `| ${s.store} | ${r.endpoint} | ${r.connections} | ${r.requests} | ${r.requests_per_sec} | ${r.latency_p50_ms} | ${r.latency_p90_ms} | ${r.latency_p99_ms} | ${r.latency_max_ms} | ${r.errors} | ${r.timeouts} | ${r.non_2xx} |`),
    ),
    '',
    '| store | RSS baseline MiB | RSS peak MiB | RSS after MiB | RSS margin MiB | heap baseline MiB | heap after MiB | RSS back | heap back | pass |',
    '|---|---:|---:|---:|---:|---:|---:|---|---|---|',
    ...results.map(
      (s) =>
        `| ${s.store} | ${mb(s.memory.baseline.rss)} | ${mb(s.memory.peak_rss)} | ${mb(s.memory.after.rss)} | ${mb(s.memory.margin_bytes)} | ${mb(s.memory.baseline.heapUsed)} | ${mb(s.memory.after.heapUsed)} | ${s.memory.rss_back_within_margin ? 'yes' : 'NO'} | ${s.memory.heap_back_within_margin ? 'yes' : 'NO'} | ${s.pass ? 'yes' : 'NO'} |`,
    ),
    '',
    `Memory after the load, measured after full GCs in the server (--expose-gc): RSS within max(${MARGIN_MB} MiB, ${MARGIN_PCT}% of baseline) (allocator and SQLite page cache may keep pages), live heap within ${HEAP_MARGIN_MB} MiB (the leak check).`,
  ]
  console.log(lines.join('\n'))
  const pass = results.every((r) => r.pass)
  const rows = results.flatMap((r) => [
    ...r.rows.map((x) => resultRow(`${x.endpoint}, ${r.store} store, ${x.connections} connections`, 'requests/s', ['ledger-gas server', [x.requests_per_sec]], [], { note: `p50/p99/max ${x.latency_p50_ms}/${x.latency_p99_ms}/${x.latency_max_ms} ms; errors ${x.errors}, timeouts ${x.timeouts}, non-2xx ${x.non_2xx}` })),
    resultRow(`${r.store} store, after the load`, 'RSS MiB', ['after the load, after full GCs', [r.memory.after.rss / MB]], [['before the load', [r.memory.baseline.rss / MB]]], {
      note: `peak ${mb(r.memory.peak_rss)} MiB; live heap ${mb(r.memory.baseline.heapUsed)} → ${mb(r.memory.after.heapUsed)} MiB; RSS back ${r.memory.rss_back_within_margin ? 'yes' : 'NO'}, heap back ${r.memory.heap_back_within_margin ? 'yes' : 'NO'}; pass ${r.pass ? 'yes' : 'NO'}`,
    }),
  ])
  console.log(`wrote ${writeResult(group.finish(rows))}`)
  if (!pass) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
