/**
 * SQLite reads against the memory store's, in one run: `by_version` and account listings on
 * data/chain.jsonl served by a memory-store server and by a SQLite server (read-only, the ledger
 * ingested first), each in its own child process (bench/http-server.ts), alternating over
 * `--rounds` rounds with autocannon (10 connections, `--duration` seconds a run). Per round the
 * SQLite/memory ratio of requests/s and of server CPU per request; the table shows the medians.
 * Targets: SQLite >= 0.8x the memory store's req/s for both (issue 12), and the memory store at
 * least as fast as SQLite by server CPU per request (issue 21).
 *
 *   npx tsx bench/reads.ts [--duration 3] [--rounds 3]
 *
 * Prints a markdown table; writes bench/results/reads.json (warm, in the shape of bench/results.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ingestJsonLines } from '../src/ledger/ingest.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { measureServer, startBenchServer, stopBenchServer, type BenchServer } from './bench-server.js'
import { median } from './median.js'
import { row, startGroup, writeResult, type Row } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const DATA = join(here, '..', 'data', 'chain.jsonl')
const { values } = parseArgs({ options: { duration: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } } })
const DURATION = Number(values.duration)
const ROUNDS = Number(values.rounds)

async function startServer(kind: 'memory' | 'sqlite', arg: string): Promise<BenchServer> {
  return startBenchServer(join(here, 'http-server.ts'), [kind, arg])
}

async function load(s: BenchServer, list: string[]): Promise<{ rps: number; cpu: number; non2xx: number }> {
  const { result: r, cpuPerRequestUs } = await measureServer(s, list, 10, DURATION)
  return { rps: r.requests.average, cpu: cpuPerRequestUs, non2xx: r.non2xx }
}

async function main(): Promise<void> {
  const group = startGroup(
    'reads',
    'reads: memory store against SQLite, warm',
    `Warm: each store served by its own long-lived child process (bench/http-server.ts) over data/chain.jsonl, the SQLite ledger ingested first; autocannon with 10 connections for ${DURATION} s per run after a 1 s warm-up, the two servers alternating within each round; server CPU (user + system) per request.`,
    'warm',
    ROUNDS,
  )
  const results: Row[] = []
  const blocks = readFileSync(DATA, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as BlockJson)
  const versions = blocks.flatMap((b) => b.transactions.map((t) => t.version))
  const senders = [...new Set(blocks.flatMap((b) => b.transactions.flatMap((t) => ('sender' in t && typeof t.sender === 'string' ? [t.sender] : []))))]
  const cases: Record<string, string[]> = {
    'GET /v1/transactions/by_version/{v}': versions.filter((_, k) => k % 7 === 0).map((v) => `/v1/transactions/by_version/${v}`),
    'GET /v1/accounts/{a}/transactions': senders.map((a) => `/v1/accounts/${a}/transactions`),
  }
  const tmp = mkdtempSync(join(tmpdir(), 'ledger-gas-reads-'))
  const db = join(tmp, 'ledger.db')
  const store = SqliteStore.open(db)
  await ingestJsonLines(DATA, store)
  store.close()
  const rows: Record<string, unknown>[] = []
  try {
    const memory = await startServer('memory', DATA)
    const sqlite = await startServer('sqlite', db)
    try {
      for (const [name, list] of Object.entries(cases)) {
        const runs: { memory: Awaited<ReturnType<typeof load>>; sqlite: Awaited<ReturnType<typeof load>> }[] = []
        for (let r = 0; r < ROUNDS; r++) {
          // Alternate which store goes first, so a drift of the machine's load hits both alike.
          if (r % 2 === 0) {
            const m = await load(memory, list)
            runs.push({ memory: m, sqlite: await load(sqlite, list) })
          } else {
            const s = await load(sqlite, list)
            runs.push({ memory: await load(memory, list), sqlite: s })
          }
        }
        const rps = (x: { rps: number }) => x.rps
        const cpu = (x: { cpu: number }) => x.cpu
        results.push(
          row(`${name}, memory store against SQLite`, 'server CPU µs/request', ['memory store', runs.map((x) => cpu(x.memory))], [['SQLite store', runs.map((x) => cpu(x.sqlite))]], {
            maxRatio: 1,
            note: `requests/s medians: memory ${median(runs.map((x) => rps(x.memory))).toFixed(0)}, SQLite ${median(runs.map((x) => rps(x.sqlite))).toFixed(0)}; SQLite / memory req/s ${median(runs.map((x) => x.sqlite.rps / x.memory.rps)).toFixed(2)}x (issue 12's target ≥ 0.8x); non-2xx ${runs.reduce((n, x) => n + x.memory.non2xx + x.sqlite.non2xx, 0)}`,
          }),
        )
        rows.push({
          case: name,
          memory_rps: median(runs.map((x) => x.memory.rps)),
          sqlite_rps: median(runs.map((x) => x.sqlite.rps)),
          ratio_rps: median(runs.map((x) => x.sqlite.rps / x.memory.rps)),
          ratio_cpu: median(runs.map((x) => x.memory.cpu / x.sqlite.cpu)),
          non2xx: runs.reduce((n, x) => n + x.memory.non2xx + x.sqlite.non2xx, 0),
        })
      }
    } finally {
      await stopBenchServer(memory)
      await stopBenchServer(sqlite)
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  console.log(`\n${blocks.length}-block chain (data/chain.jsonl), ${DURATION} s runs, 10 connections, ${ROUNDS} alternating rounds, medians\n`)
  console.log('| case | memory req/s | SQLite req/s | SQLite/memory (req/s) | SQLite/memory (by server CPU per request) | non-2xx | target 0.8x |')
  console.log('|---|---:|---:|---:|---:|---:|---|')
  for (const r of rows as { case: string; memory_rps: number; sqlite_rps: number; ratio_rps: number; ratio_cpu: number; non2xx: number }[]) {
    console.log(`| ${r.case} | ${r.memory_rps.toFixed(0)} | ${r.sqlite_rps.toFixed(0)} | ${r.ratio_rps.toFixed(2)}x | ${r.ratio_cpu.toFixed(2)}x | ${r.non2xx} | ${r.ratio_rps >= 0.8 ? 'met' : 'not met'} |`)
  }
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
