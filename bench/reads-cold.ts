/**
 * Reads as a user serves them: `ledger-gas serve` (the built CLI, one process per store: the
 * sample chain in memory, and a SQLite ledger ingested from it) against node:http sending the
 * same bytes (bench/bare/http-bytes.mjs, the bodies fetched from the project first). Server CPU
 * per request, read from /proc while autocannon loads one server at a time; the servers take
 * turns, in an order that rotates each round. Targets (issue 21): an account page, a transaction
 * and a block with its transactions (what a follower polls) at ≤ 3x the CPU of node:http, and
 * the memory store at least as fast as SQLite (≤ 1x).
 *
 *   npx tsx bench/reads-cold.ts [--rounds 3] [--quick]
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { bare, builtCli, compareServers, freePort, groupFlags, SAMPLE, saveBodies, SCRATCH, startServer, stopServer, timed, type ServerSpec } from './processes.js'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'

const { rounds, quick } = groupFlags(3)
const DURATION = quick ? 2 : 3
const CONNECTIONS = 10
const group = startGroup(
  'reads-cold',
  'reads: server CPU per request against node:http sending the same bytes',
  `\`ledger-gas serve\` (built CLI, \`--log-level warn\`) over the sample chain in memory and in a SQLite ledger ingested from it, against node:http answering each path with the same body; autocannon with ${CONNECTIONS} connections for ${DURATION} s per server per round after a 1 s warm-up (and a first round, dropped, that warms the servers up), server CPU (user + system) from /proc per request.`,
  'cold',
  rounds,
)
const cli = builtCli()
const db = join(SCRATCH, 'reads-sample.sqlite')
for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true })
await timed(process.execPath, [cli, 'ingest', '--db', db, '--input', SAMPLE])

/** Paths from the sample, seeded: the 20 busiest senders' latest 100, 1000 versions, and 1000 heights with their transactions. */
function requestPaths(): { listing: string[]; byVersion: string[]; byHeight: string[] } {
  const counts = new Map<string, number>()
  let first = Infinity
  let last = 0
  let low = Infinity
  let high = 0
  for (const line of readFileSync(SAMPLE, 'utf8').split('\n')) {
    if (line.length === 0) continue
    const b = JSON.parse(line) as { block_height: string; first_version: string; last_version: string; transactions: { type: string; sender?: string }[] }
    first = Math.min(first, Number(b.first_version))
    last = Math.max(last, Number(b.last_version))
    low = Math.min(low, Number(b.block_height))
    high = Math.max(high, Number(b.block_height))
    for (const t of b.transactions) if (t.type === 'user_transaction' && t.sender !== undefined) counts.set(t.sender, (counts.get(t.sender) ?? 0) + 1)
  }
  const busiest = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 20)
  let seed = 42
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return {
    listing: busiest.map(([a]) => `/v1/accounts/${a}/transactions?limit=100`),
    byVersion: Array.from({ length: 1000 }, () => `/v1/transactions/by_version/${first + Math.floor(next() * (last - first + 1))}`),
    byHeight: Array.from({ length: 1000 }, () => `/v1/blocks/by_height/${low + Math.floor(next() * (high - low + 1))}?with_transactions=true`),
  }
}

const paths = requestPaths()
const serveArgs = (port: number, ...store: string[]) => [cli, 'serve', ...store, '--port', String(port), '--log-level', 'warn']
const bodies = join(SCRATCH, 'reads-bodies.json')
{
  const port = await freePort()
  const s = await startServer(process.execPath, serveArgs(port, '--data', SAMPLE), port, '/v1')
  await saveBodies(s.url, [...paths.listing, ...paths.byVersion, ...paths.byHeight], bodies)
  await stopServer(s)
}
const specs: ServerSpec[] = [
  { name: 'ledger-gas serve, memory store', start: (port) => [process.execPath, serveArgs(port, '--data', SAMPLE)] },
  { name: 'ledger-gas serve, SQLite store', start: (port) => [process.execPath, serveArgs(port, '--db', db)] },
  { name: 'node:http, same bytes (bench/bare/http-bytes.mjs)', start: (port) => [process.execPath, [bare('http-bytes'), String(port), bodies]] },
]
const rows: Row[] = []
const metric = 'server CPU µs/request'
for (const [name, list, before, sqliteBefore] of [
  [
    'GET /v1/accounts/{a}/transactions?limit=100',
    paths.listing,
    '645 µs (memory) vs node:http 47 µs: 13.8x; memory 0.80x SQLite',
    'each row read as its own Buffer and copied into the page (5469bb1, 7 rounds): 228 µs vs node:http 33.6 µs: 6.78x',
  ],
  ['GET /v1/transactions/by_version/{v}', paths.byVersion, undefined, undefined],
  [
    'GET /v1/blocks/by_height/{h}?with_transactions=true',
    paths.byHeight,
    'parsed and stringified per request (5e740f7, alternating with the byte path, 6 rounds): 149 µs (memory) vs node:http 35 µs: 4.20x; SQLite 5.05x; memory 0.80x SQLite',
    'the block row and each transaction read as its own Buffer in a read transaction (5469bb1, 7 rounds): 108 µs vs node:http 32.1 µs: 3.36x',
  ],
] as const) {
  // One round more than reported, the first dropped: it is the servers' JIT warm-up, which the
  // 1 s of load before each run does not finish on a busy machine (its figures ran 2-5x the rest).
  const measured = await compareServers(specs, list[0] as string, list, rounds + 1, CONNECTIONS, DURATION)
  const cpu = measured.cpu.map((side) => side.slice(1))
  const rps = measured.rps.map((side) => side.slice(1))
  const [memory, sqlite, http] = cpu as [number[], number[], number[]]
  const size = (JSON.stringify(JSON.parse(readFileSync(bodies, 'utf8'))[list[0] as string]).length / 1024).toFixed(0)
  const note = `requests/s medians: memory ${spread(rps[0] as number[]).median.toFixed(0)}, SQLite ${spread(rps[1] as number[]).median.toFixed(0)}, node:http ${spread(rps[2] as number[]).median.toFixed(0)}; first body ~${size} KB`
  const memoryBaselines = [baseline('node:http, same bytes', http, memory), baseline('ledger-gas serve, SQLite store (memory / SQLite)', sqlite, memory)]
  rows.push({ case: `${name}, memory store`, metric, project: { name: 'ledger-gas serve', spread: spread(memory) }, baselines: memoryBaselines, target: target(3, memoryBaselines), note, ...(before === undefined ? {} : { before }) })
  const sqliteBaselines = [baseline('node:http, same bytes', http, sqlite)]
  rows.push({ case: `${name}, SQLite store`, metric, project: { name: 'ledger-gas serve', spread: spread(sqlite) }, baselines: sqliteBaselines, target: target(3, sqliteBaselines), ...(sqliteBefore === undefined ? {} : { before: sqliteBefore }) })
  console.error(`  reads-cold ${name}: memory ${memoryBaselines[0]?.ratio.median.toFixed(2)}x node:http, SQLite ${sqliteBaselines[0]?.ratio.median.toFixed(2)}x`)
}
console.error(`wrote ${writeResult(group.finish(rows))}`)
