/**
 * HTTP benchmark of the read API (autocannon on 127.0.0.1, bounded runs). In one run:
 * requests/s of `GET /v1/estimate_gas_price` beside a bare `node:http` server answering a
 * constant JSON body of the same bytes (ratio printed; target >= 0.8x), and requests/s of
 * `by_version` and account listing over the memory and SQLite stores. Servers run in a child
 * process each (bench/http-server.ts) so the load generator does not steal their event loop.
 * Fixtures (the chain, the SQLite ledger, the request paths) are built before any run, seeded.
 *
 *   npx tsx bench/http.ts [--duration 5] [--connections 20] [--data data/chain.jsonl]
 *
 * Prints a markdown table; writes bench/results/http.json (warm, in the shape of bench/results.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseAddress } from '../src/ledger/store/address.js'
import { loadJsonLines } from '../src/ledger/read/load.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { createRng } from '../src/sim/prng.js'
import { measureServer, startBenchServer, stopBenchServer, type BenchServer } from './bench-server.js'
import { median } from './median.js'
import { row, startGroup, writeResult, type Row as ResultRow } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '5' },
    data: { type: 'string', default: join(here, '..', 'data', 'chain.jsonl') },
    /** `estimate`: only the estimate-vs-bare rounds (a quicker check while tuning). */
    only: { type: 'string' },
  },
})
const DURATION = Number(values.duration)
const CONNECTIONS = Number(values.connections)
/**
 * Alternating bare/estimate rounds. Each round's two runs are adjacent in time, so their ratio
 * shares the machine's momentary load; the reported ratio is the median of the rounds' ratios.
 * Rounds alternate which server goes first (bare-estimate, estimate-bare, …), so that a load
 * that rises or falls within a round favours neither.
 */
const ROUNDS = Number(values.rounds)
const DATA = values.data as string

/** Seeded uniform floats in [0, 1) from the project's PRNG, so every run draws the same. */
function rng(seed: number): () => number {
  const g = createRng(seed)
  return () => g.float()
}

interface Fixture {
  versions: string[]
  accounts: string[]
}

/** Request paths drawn from the chain: retained versions, and senders weighted by activity. */
function fixture(blocks: BlockJson[]): Fixture {
  const r = rng(42)
  const first = Number(blocks[0]?.first_version)
  const last = Number(blocks[blocks.length - 1]?.last_version)
  const senders: string[] = []
  for (const b of blocks) for (const t of b.transactions) if (t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) === null) senders.push(t.sender)
  return {
    versions: Array.from({ length: 4096 }, () => String(first + Math.floor(r() * (last - first + 1)))),
    accounts: Array.from({ length: 4096 }, () => parseAddress(senders[Math.floor(r() * senders.length)] as string) as string),
  }
}

async function startServer(kind: 'bare' | 'memory' | 'sqlite', arg: string): Promise<BenchServer> {
  return startBenchServer(join(here, 'http-server.ts'), [kind, arg])
}

interface Row {
  case: string
  store: string
  requests_per_sec: number
  /** Server CPU time per request served (µs): robust to other load on a shared machine. */
  server_cpu_us_per_request: number
  latency_p50_ms: number
  latency_p99_ms: number
  non_2xx: number
  errors: number
}

/** One bounded autocannon run after a 1 s warm-up; `paths` cycles through the request paths. */
async function load(t: BenchServer, paths: readonly string[], label: [string, string]): Promise<Row> {
  const { result: r, cpuPerRequestUs } = await measureServer(t, paths, CONNECTIONS, DURATION)
  const row: Row = {
    case: label[0],
    store: label[1],
    requests_per_sec: Math.round(r.requests.average),
    server_cpu_us_per_request: Number(cpuPerRequestUs.toFixed(1)),
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
    non_2xx: r.non2xx,
    errors: r.errors,
  }
  console.error(`  ${row.case} (${row.store}): ${row.requests_per_sec} req/s, ${row.server_cpu_us_per_request} µs CPU/req`)
  return row
}

/** The median row of repeated runs (by req/s; CPU per request is its own median). */
function medianRow(rows: Row[]): Row {
  const byRps = [...rows].sort((a, b) => a.requests_per_sec - b.requests_per_sec)
  const mid = byRps[byRps.length >> 1] as Row
  return {
    ...mid,
    requests_per_sec: Math.round(median(rows.map((r) => r.requests_per_sec))),
    server_cpu_us_per_request: median(rows.map((r) => r.server_cpu_us_per_request)),
    non_2xx: rows.reduce((s, r) => s + r.non_2xx, 0),
    errors: rows.reduce((s, r) => s + r.errors, 0),
  }
}

/** Thrown to skip the other rows (`--only estimate`). */
class Done extends Error {}

async function main(): Promise<void> {
  const group = startGroup(
    'http',
    'HTTP: estimate_gas_price against bare node:http, and the reads of both stores, warm',
    `Warm: each server a long-lived child process (bench/http-server.ts) over ${DATA.split('/').pop()}; autocannon with ${CONNECTIONS} connections for ${DURATION} s per run after a 1 s warm-up. The estimate and a bare node:http server answering the same bytes alternate over the rounds; the reads of each store run once.`,
    'warm',
    ROUNDS,
  )
  const results: ResultRow[] = []
  const text = readFileSync(DATA, 'utf8')
  const blocks = text.split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as BlockJson)
  const fx = fixture(blocks)
  const tmp = mkdtempSync(join(tmpdir(), 'ledger-gas-bench-'))
  const db = join(tmp, 'ledger.db')
  const sqlite = SqliteStore.open(db)
  await loadJsonLines(DATA, sqlite)
  sqlite.close()
  const byVersion = fx.versions.map((v) => `/v1/transactions/by_version/${v}`)
  const listing = fx.accounts.map((a) => `/v1/accounts/${a}/transactions`)
  const loadBefore = loadavg()
  console.error(`http bench: ${blocks.length} blocks, ${DURATION} s per run, ${CONNECTIONS} connections, ${cpus().length} CPUs, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`)

  const rows: Row[] = []
  let estimateRow: Row
  let bareRow: Row
  let ratios: number[] = []
  let cpuRatios: number[] = []
  try {
    const memory = await startServer('memory', DATA)
    const body = await (await fetch(`${memory.url}/v1/estimate_gas_price`)).text()
    const bare = await startServer('bare', body)
    const estimateRuns: Row[] = []
    const bareRuns: Row[] = []
    const bareLabel: [string, string] = [`bare node:http, constant ${Buffer.byteLength(body)}-byte JSON`, '-']
    for (let round = 0; round < ROUNDS; round++) {
      const runBare = async () => bareRuns.push(await load(bare, ['/'], bareLabel))
      const runEstimate = async () => estimateRuns.push(await load(memory, ['/v1/estimate_gas_price'], ['GET /v1/estimate_gas_price', 'memory']))
      if (round % 2 === 0) {
        await runBare()
        await runEstimate()
      } else {
        await runEstimate()
        await runBare()
      }
    }
    await stopBenchServer(bare)
    ratios = estimateRuns.map((e, k) => e.requests_per_sec / Math.max(1, (bareRuns[k] as Row).requests_per_sec))
    cpuRatios = estimateRuns.map((e, k) => (bareRuns[k] as Row).server_cpu_us_per_request / Math.max(0.001, e.server_cpu_us_per_request))
    results.push(
      row('GET /v1/estimate_gas_price, memory store', 'server CPU µs/request', ['ledger-gas server (memory store)', estimateRuns.map((r) => r.server_cpu_us_per_request)], [[`bare node:http, the same ${Buffer.byteLength(body)} bytes`, bareRuns.map((r) => r.server_cpu_us_per_request)]], {
        note: `requests/s medians: server ${median(estimateRuns.map((r) => r.requests_per_sec)).toFixed(0)}, bare ${median(bareRuns.map((r) => r.requests_per_sec)).toFixed(0)}; server / bare req/s ${median(ratios).toFixed(2)}x (target ≥ 0.8x)`,
      }),
    )
    estimateRow = medianRow(estimateRuns)
    bareRow = medianRow(bareRuns)
    rows.push(bareRow, estimateRow)
    if (values.only === 'estimate') {
      await stopBenchServer(memory)
      throw new Done()
    }
    const memoryReads = [await load(memory, byVersion, ['GET /v1/transactions/by_version/{v}', 'memory']), await load(memory, listing, ['GET /v1/accounts/{a}/transactions', 'memory'])]
    rows.push(...memoryReads)
    await stopBenchServer(memory)

    const sql = await startServer('sqlite', db)
    const sqliteReads = [await load(sql, ['/v1/estimate_gas_price'], ['GET /v1/estimate_gas_price', 'sqlite']), await load(sql, byVersion, ['GET /v1/transactions/by_version/{v}', 'sqlite']), await load(sql, listing, ['GET /v1/accounts/{a}/transactions', 'sqlite'])]
    rows.push(...sqliteReads)
    await stopBenchServer(sql)
    results.push(row('GET /v1/estimate_gas_price, SQLite store', 'server CPU µs/request', ['ledger-gas server (SQLite store)', [sqliteReads[0]?.server_cpu_us_per_request as number]], [], { note: `${sqliteReads[0]?.requests_per_sec} requests/s; one run` }))
    for (const [k, m] of memoryReads.entries()) {
      const q = sqliteReads[k + 1] as Row
      results.push(row(`${m.case}, memory store against SQLite`, 'server CPU µs/request', ['memory store', [m.server_cpu_us_per_request]], [['SQLite store', [q.server_cpu_us_per_request]]], { note: `requests/s: memory ${m.requests_per_sec}, SQLite ${q.requests_per_sec}; one run each` }))
    }
  } catch (error) {
    if (!(error instanceof Done)) throw error
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }

  const ratio = median(ratios)
  const cpuRatio = median(cpuRatios)
  const loadAfter = loadavg()
  const loads = `load average (1, 5, 15 min) ${loadBefore.map((l) => l.toFixed(2)).join(', ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(', ')} after`
  const lines = [
    `${blocks.length}-block chain, ${DURATION} s runs, ${CONNECTIONS} connections; estimate and bare: medians of ${ROUNDS} alternating rounds; ${loads}`,
    '',
    '| case | store | req/s | server CPU µs/req | p50 ms | p99 ms | non-2xx | errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.case} | ${r.store} | ${r.requests_per_sec} | ${r.server_cpu_us_per_request} | ${r.latency_p50_ms} | ${r.latency_p99_ms} | ${r.non_2xx} | ${r.errors} |`),
    '',
    `estimate_gas_price (memory) / bare node:http, median of per-round ratios: ${ratio.toFixed(2)}x req/s (rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}), ${cpuRatio.toFixed(2)}x by server CPU per request (rounds: ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}) (target >= 0.80x: ${ratio >= 0.8 ? 'pass' : 'FAIL'})`,
  ]
  console.log(lines.join('\n'))
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
