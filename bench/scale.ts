/**
 * Scale curve of the read API: request latency on a 2,000-block and a 200,000-block chain of
 * small blocks, for every endpoint and both stores. Target: within 1.2x of each other (reads are
 * O(1) in the memory store and one index lookup in SQLite, so the chain's length should not show).
 *
 * The chains are written by a seeded generator of small valid blocks (block metadata, half the
 * blocks one user transaction, block epilogue: ~0.8 KB a block; one sender per 40 blocks, so an
 * account's listing returns about as many transactions at either size), once into
 * the OS temp directory with their SQLite ledgers. Servers run in child processes
 * (bench/http-server.ts); autocannon with 4 connections, `--duration` seconds per endpoint, the
 * two sizes alternating over `--rounds` rounds. Per run: the server's CPU time per request (µs;
 * other jobs on a shared machine barely move it, so the ratio is taken on it) and the mean
 * latency (4 connections / requests per second; autocannon's histogram counts whole ms). Figures
 * are medians over the rounds, the ratio the median of the rounds' 200k/2k ratios.
 *
 *   npx tsx bench/scale.ts [--blocks 200000] [--duration 3] [--rounds 2] [--stores memory,sqlite]
 *
 * Prints a markdown table; writes bench/results/scale.json (warm, in the shape of bench/results.ts).
 */
import { createWriteStream, existsSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { ingestJsonLines } from '../src/ledger/ingest.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import { createRng } from '../src/sim/prng.js'
import { measureServer, startBenchServer, stopBenchServer, type BenchServer } from './bench-server.js'
import { median } from './median.js'
import { row, startGroup, writeResult } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200000' },
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    stores: { type: 'string', default: 'memory,sqlite' },
  },
})
const LARGE = Number(values.blocks)
const SMALL = 2000
const DURATION = Number(values.duration)
const ROUNDS = Number(values.rounds)
/** Senders per chain: one per 40 blocks, so an account has ~12 transactions at either size and a listing returns as much. */
const sendersOf = (blocks: number) => Math.max(10, Math.floor(blocks / 40))

const hex64 = (n: number) => n.toString(16).padStart(64, '0')
const address = (n: number) => `0x${hex64(n + 0x1000)}`

/** One line per block: small valid blocks, seeded, so every run serves the same chain. */
async function writeChain(file: string, blocks: number): Promise<void> {
  const rng = createRng(12)
  const SENDERS = sendersOf(blocks)
  const seqs = new Array<number>(SENDERS).fill(0)
  const out = createWriteStream(`${file}.part`)
  let version = 1
  for (let h = 1; h <= blocks; h++) {
    const first = version
    const ts = String(1_750_000_000_000_000 + h * 250_000)
    const txns: unknown[] = [{ version: String(version++), hash: `0x${hex64(h * 3)}`, gas_used: '0', success: true, epoch: String(1 + Math.floor(h / 7200)), round: String(h), timestamp: ts, type: 'block_metadata_transaction' }]
    if (rng.float() < 0.5) {
      const s = Math.floor(rng.float() * SENDERS)
      txns.push({
        version: String(version++),
        hash: `0x${hex64(h * 3 + 1)}`,
        gas_used: '7',
        success: true,
        sender: address(s),
        sequence_number: String((seqs[s] = (seqs[s] as number) + 1) - 1),
        gas_unit_price: String(100 + Math.floor(rng.float() * 50)),
        payload: { function: '0x1::aptos_account::transfer', type_arguments: [], arguments: [address((s + 1) % SENDERS), '1'], type: 'entry_function_payload' },
        replay_protection_nonce: null,
        timestamp: ts,
        type: 'user_transaction',
      })
    }
    txns.push({ version: String(version++), hash: `0x${hex64(h * 3 + 2)}`, gas_used: '0', success: true, block_end_info: { block_gas_limit_reached: false, block_output_limit_reached: false, block_effective_block_gas_units: 0, block_approx_output_size: 0 }, timestamp: ts, type: 'block_epilogue_transaction' })
    const line = `${JSON.stringify({ block_height: String(h), block_hash: `0x${hex64(h)}`, block_timestamp: ts, first_version: String(first), last_version: String(version - 1), transactions: txns })}\n`
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
  renameSync(`${file}.part`, file)
}

/** The chain file and its SQLite ledger for `blocks`, made once. */
async function fixture(blocks: number): Promise<{ file: string; db: string; lastVersion: number }> {
  const file = join(tmpdir(), `ledger-gas-bench-scale-main-${blocks}-${sendersOf(blocks)}.jsonl`)
  const db = join(tmpdir(), `ledger-gas-bench-scale-main-${blocks}-${sendersOf(blocks)}.db`)
  if (!existsSync(file)) await writeChain(file, blocks)
  if (!existsSync(db)) {
    const store = SqliteStore.open(`${db}.part`)
    await ingestJsonLines(file, store)
    store.close()
    renameSync(`${db}.part`, db)
    for (const suffix of ['-wal', '-shm']) rmSync(`${db}.part${suffix}`, { force: true })
  }
  const store = SqliteStore.open(db, { readonly: true })
  const lastVersion = Number(store.ledgerInfo()?.ledger_version)
  store.close()
  return { file, db, lastVersion }
}

function paths(blocks: number, lastVersion: number): Record<string, string[]> {
  const rng = createRng(42)
  const pick = (n: number) => 1 + Math.floor(rng.float() * n)
  return {
    'GET /v1': ['/v1'],
    'GET /v1/estimate_gas_price': ['/v1/estimate_gas_price'],
    'GET /v1/transactions/by_version/{v}': Array.from({ length: 2048 }, () => `/v1/transactions/by_version/${pick(lastVersion)}`),
    'GET /v1/accounts/{a}/transactions': Array.from({ length: 2048 }, () => `/v1/accounts/${address(pick(sendersOf(blocks)) - 1)}/transactions`),
    'GET /v1/blocks/by_height/{h}?with_transactions=true': Array.from({ length: 2048 }, () => `/v1/blocks/by_height/${pick(blocks)}?with_transactions=true`),
  }
}

async function startServer(kind: 'memory' | 'sqlite', arg: string): Promise<BenchServer> {
  return startBenchServer(join(here, 'http-server.ts'), [kind, arg])
}

async function latency(server: BenchServer, list: string[]): Promise<{ mean: number; cpu: number; p99: number; non2xx: number }> {
  const { result: r, cpuPerRequestUs } = await measureServer(server, list, 4, DURATION)
  return { mean: (4 * 1000) / Math.max(1e-9, r.requests.average), cpu: cpuPerRequestUs, p99: r.latency.p99, non2xx: r.non2xx }
}

async function main(): Promise<void> {
  const group = startGroup(
    'scale',
    `scale: reads on ${LARGE} blocks against ${SMALL}, warm`,
    `Warm: each store's server a child process (bench/http-server.ts) over a seeded chain of small blocks at both sizes, the sizes alternating within each round; autocannon with 4 connections for ${DURATION} s per endpoint after a 1 s warm-up; server CPU per request.`,
    'warm',
    ROUNDS,
  )
  const started = performance.now()
  const small = await fixture(SMALL)
  const large = await fixture(LARGE)
  console.error(`scale bench: fixtures ready in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  type Cell = { mean: number[]; cpu: number[]; p99: number[]; non2xx: number }
  const cells = new Map<string, { small: Cell; large: Cell }>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of (values.stores as string).split(',') as ('memory' | 'sqlite')[]) {
      const sizes = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)
      for (const size of sizes) {
        const fx = size === 'small' ? small : large
        const blocks = size === 'small' ? SMALL : LARGE
        const server = await startServer(kind, kind === 'memory' ? fx.file : fx.db)
        try {
          for (const [endpoint, list] of Object.entries(paths(blocks, fx.lastVersion))) {
            const key = `${endpoint}|${kind}`
            const cell = cells.get(key) ?? { small: { mean: [], cpu: [], p99: [], non2xx: 0 }, large: { mean: [], cpu: [], p99: [], non2xx: 0 } }
            cells.set(key, cell)
            const r = await latency(server, list)
            cell[size].mean.push(r.mean)
            cell[size].cpu.push(r.cpu)
            cell[size].p99.push(r.p99)
            cell[size].non2xx += r.non2xx
            console.error(`  ${endpoint} (${kind}, ${blocks} blocks): mean ${r.mean.toFixed(3)} ms, ${r.cpu.toFixed(0)} µs CPU/request`)
          }
        } finally {
          await stopBenchServer(server)
        }
      }
    }
  }
  const rows = [...cells].map(([key, c]) => {
    const [endpoint, store] = key.split('|') as [string, string]
    const ratios = c.small.cpu.map((m, k) => (c.large.cpu[k] as number) / m)
    const ratio = median(ratios)
    const latencyRatio = median(c.small.mean.map((m, k) => (c.large.mean[k] as number) / m))
    return {
      endpoint,
      store,
      small_cpu_us: median(c.small.cpu),
      large_cpu_us: median(c.large.cpu),
      small_mean_ms: median(c.small.mean),
      large_mean_ms: median(c.large.mean),
      small_p99_ms: median(c.small.p99),
      large_p99_ms: median(c.large.p99),
      ratio,
      latency_ratio: latencyRatio,
      round_ratios: ratios,
      met: ratio <= 1.2,
      non2xx: c.small.non2xx + c.large.non2xx,
    }
  })
  console.log(`\n${SMALL} vs ${LARGE} blocks, ${DURATION} s runs, 4 connections, ${ROUNDS} rounds (medians)\n`)
  console.log(`| endpoint | store | server µs/request (${SMALL} → ${LARGE}) | ratio | within 1.2x | mean latency ms (${SMALL} → ${LARGE}) | latency ratio | non-2xx |`)
  console.log('|---|---|---:|---:|---|---:|---:|---:|')
  for (const r of rows) console.log(`| ${r.endpoint} | ${r.store} | ${r.small_cpu_us.toFixed(0)} → ${r.large_cpu_us.toFixed(0)} | ${r.ratio.toFixed(2)}x | ${r.met ? 'yes' : 'NO'} | ${r.small_mean_ms.toFixed(3)} → ${r.large_mean_ms.toFixed(3)} | ${r.latency_ratio.toFixed(2)}x | ${r.non2xx} |`)
  const results = [...cells].map(([key, c]) => {
    const [endpoint, store] = key.split('|') as [string, string]
    return row(`${endpoint}, ${store} store`, 'server CPU µs/request', [`${LARGE} blocks`, c.large.cpu], [[`${SMALL} blocks`, c.small.cpu]], {
      maxRatio: 1.2,
      note: `mean latency ms medians: ${median(c.small.mean).toFixed(3)} → ${median(c.large.mean).toFixed(3)}; non-2xx ${c.small.non2xx + c.large.non2xx}`,
    })
  })
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
