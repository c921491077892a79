/**
 * Memory store benchmark (issue 12), this checkout against the baseline commit's store in the
 * same run: the baseline's `src` is extracted with `git archive` into bench/.baseline/ (git
 * ignored), and both sides run the same harness (bench/memory-store-child.ts) in alternating
 * fresh child processes, so each figure has its own heap and each round's ratio shares the
 * machine's momentary load. Medians over rounds.
 *
 * 1. Startup: MB/s of `MemoryStore.fromJsonLines` in a fresh process (file size / load time,
 *    wall and CPU). Target >= 100 MB/s. With `--dist`, the package built from this checkout
 *    (tsup, into bench/.scratch/dist) runs too, as an installed package's does. The load average (`os.loadavg`) is recorded at each round's
 *    start: the machine is shared.
 * 2. Memory: RSS after the load and a full GC, minus the RSS of the same process just before the
 *    load (modules imported, an empty store, a full GC: an empty server), as a multiple of the
 *    file size. Target <= 0.5x. Beside it, what the store retains (live heap growth plus its
 *    packed bytes), and how much V8's young generation grew during the load: V8 sizes it by how
 *    much survives its scavenges, keeps it after the load, and a store cannot give it back.
 * 3. Reads: requests/s and server CPU per request of `GET /v1/transactions/by_version/{v}` and
 *    `GET /v1/accounts/{a}/transactions` (latest page) against both stores over the sample
 *    chain, each server in its own child as `serve` runs it, autocannon on 127.0.0.1; runs
 *    alternate between the two servers. Target: at least as fast as the baseline (>= 1.0x).
 *
 * Fixtures: data/chain.jsonl and `chainLines({ blocks: 20000, seed: 7, scenario: 'mixed' })`
 * (~154 MB), generated once into the OS temp directory.
 *
 *   npx tsx bench/memory-store.ts [--rounds 3] [--duration 4] [--connections 20] [--quick] [--only reads|loads] [--dist]
 *
 * `--quick`: the sample chain only, one round. Prints markdown tables; writes
 * bench/results/memory-store.json (warm reads, fresh-process loads; the shape of bench/results.ts).
 */
import { execFileSync } from 'node:child_process'
import { createWriteStream, existsSync, readFileSync, renameSync, statSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseAddress } from '../src/ledger/store/address.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { chainLines } from '../src/sim/index.js'
import { createRng } from '../src/sim/prng.js'
import { BASELINE_COMMIT, baselineSrc } from './baseline.js'
import { measureServer, startBenchServer, stopBenchServer, type BenchServer } from './bench-server.js'
import { median } from './median.js'
import { row, startGroup, writeResult, type Row } from './results.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '20' },
    quick: { type: 'boolean', default: false },
    /** `reads` or `loads`: only that part (the other's table is left empty). */
    only: { type: 'string' },
    /** Also load with the package built from this checkout. */
    dist: { type: 'boolean', default: false },
  },
})
const ROUNDS = values.quick ? 1 : Number(values.rounds)
const DURATION = Number(values.duration)
const CONNECTIONS = Number(values.connections)
const CHILD = join(ROOT, 'bench', 'memory-store-child.ts')

/** A generated chain file in the temp directory, written once. */
async function generated(blocks: number, seed: number): Promise<string> {
  const file = join(tmpdir(), `ledger-gas-bench-mem-mixed-${blocks}-${seed}.jsonl`)
  if (existsSync(file)) return file
  const part = `${file}.${process.pid}.part`
  const out = createWriteStream(part)
  for (const line of chainLines({ blocks, seed, scenario: 'mixed' })) if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()))
  await new Promise<void>((r) => out.end(() => r()))
  renameSync(part, file)
  return file
}

type LoadRun = Record<string, number>

/** The sides of the load comparison: the baseline; this checkout; and with `--dist`, the package built from it. */
const SIDES = ['before', 'sequential', 'dist-sequential'] as const
type Side = (typeof SIDES)[number]
const SIDE_NAMES: Record<Side, string> = {
  before: 'baseline',
  sequential: 'this checkout',
  'dist-sequential': 'built package',
}

/** The package built from this checkout (tsup without types) in bench/.scratch/dist: the directory of its `server.js`. */
function buildDist(): string {
  const out = join(ROOT, 'bench', '.scratch', 'dist')
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsup'), ['--no-dts', '--silent', '--out-dir', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  return out
}

function loadChild(src: string, file: string): LoadRun {
  const args = ['--expose-gc', '--import', 'tsx', CHILD, 'load', src, file]
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })
  return JSON.parse(out.trim().split('\n').pop() as string) as LoadRun
}

async function startServer(src: string, file: string): Promise<BenchServer> {
  return startBenchServer(CHILD, ['serve', src, file], { execArgv: ['--expose-gc', '--import', 'tsx'] })
}

interface HttpRun {
  requests_per_sec: number
  server_cpu_us_per_request: number
  non_2xx: number
  errors: number
}

/** One bounded autocannon run after a 1 s warm-up, cycling through `paths`. */
async function hit(s: BenchServer, paths: readonly string[]): Promise<HttpRun> {
  const { result: r, cpuPerRequestUs } = await measureServer(s, paths, CONNECTIONS, DURATION)
  return { requests_per_sec: r.requests.average, server_cpu_us_per_request: cpuPerRequestUs, non_2xx: r.non2xx, errors: r.errors }
}

/** Request paths from the chain, seeded: retained versions, and senders weighted by activity. */
function requestPaths(file: string): { byVersion: string[]; listing: string[] } {
  const g = createRng(42)
  const blocks = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as BlockJson)
  const first = Number(blocks[0]?.first_version)
  const last = Number(blocks[blocks.length - 1]?.last_version)
  const senders: string[] = []
  for (const b of blocks) for (const t of b.transactions) if (t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) === null) senders.push(parseAddress(t.sender) as string)
  return {
    byVersion: Array.from({ length: 4096 }, () => `/v1/transactions/by_version/${first + Math.floor(g.float() * (last - first + 1))}`),
    listing: Array.from({ length: 4096 }, () => `/v1/accounts/${senders[Math.floor(g.float() * senders.length)]}/transactions`),
  }
}

const group = startGroup(
  'memory-store',
  'memory store: loads and reads against the baseline commit',
  `Loads: \`MemoryStore.fromJsonLines\` in a fresh child process per load (bench/memory-store-child.ts), this checkout beside the baseline commit ${BASELINE_COMMIT}'s store, the sides' order rotating each round; RSS growth measured after a full GC against the same process just before the load. Reads: warm, each store's server a long-lived child process over the sample chain, autocannon with ${CONNECTIONS} connections for ${DURATION} s per run after a 1 s warm-up, alternating; server CPU per request.`,
  'warm',
  ROUNDS,
)
/** The rows of bench/results/memory-store.json, in the order measured. */
const results: Row[] = []

async function main(): Promise<void> {
  const base = baselineSrc()
  const here = join(ROOT, 'src')
  const sample = join(ROOT, 'data', 'chain.jsonl')
  const fixtures = [sample, ...(values.quick || values.only === 'reads' ? [] : [await generated(20_000, 7)])]
  console.error(`memory-store bench: baseline ${base === null ? 'none' : BASELINE_COMMIT}, ${ROUNDS} round(s), ${cpus().length} CPUs`)

  const dist = values.dist && values.only !== 'reads' ? buildDist() : null
  const sides = SIDES.filter((side) => (side !== 'before' || base !== null) && (!side.startsWith('dist') || dist !== null))
  const sourceOf = (side: Side): string => (side === 'before' ? (base as string) : side.startsWith('dist') ? (dist as string) : here)
  const loads: Record<string, unknown>[] = []
  for (const file of values.only === 'reads' ? [] : fixtures) {
    const bytes = statSync(file).size
    const runs = Object.fromEntries(sides.map((side) => [side, [] as LoadRun[]])) as Partial<Record<Side, LoadRun[]>>
    const loadAverages: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      loadAverages.push(loadavg()[0] as number)
      // Rotate which side goes first, so a drift of the machine's load hits every side alike.
      for (let i = 0; i < sides.length; i++) {
        const side = sides[(i + r) % sides.length] as Side
        runs[side]?.push(loadChild(sourceOf(side), file))
      }
    }
    const summary = (xs: LoadRun[]) => ({
      mb_per_s_wall: median(xs.map((x) => bytes / 1e3 / (x.wall_ms as number))),
      mb_per_s_cpu: median(xs.map((x) => bytes / 1e3 / (x.cpu_ms as number))),
      rss_x: median(xs.map((x) => (x.rss_growth_bytes as number) / bytes)),
      rss_less_young_x: median(xs.map((x) => ((x.rss_growth_bytes as number) - (x.new_space_growth_bytes as number)) / bytes)),
      retained_x: median(xs.map((x) => (x.retained_bytes as number) / bytes)),
      young_generation_growth_mb: median(xs.map((x) => (x.new_space_growth_bytes as number) / 1e6)),
    })
    const perSide = sides.map((side) => ({ side, ...summary(runs[side] as LoadRun[]) }))
    const seq = runs.sequential as LoadRun[]
    const name = `${file.split('/').pop()} (${(bytes / 1e6).toFixed(1)} MB)`
    const walls = (side: Side) => (runs[side] ?? []).map((x) => (x.wall_ms as number) / 1000)
    const rss = (side: Side) => (runs[side] ?? []).map((x) => (x.rss_growth_bytes as number) / 1e6)
    const mbs = (side: Side) => median((runs[side] ?? []).map((x) => bytes / 1e3 / (x.wall_ms as number))).toFixed(0)
    results.push(
      row(`load ${name}`, 'load wall s', ['this checkout', walls('sequential')], [[`baseline ${BASELINE_COMMIT}`, walls('before')]], { note: `MB/s medians: ${mbs('sequential')} this checkout, ${base === null ? '-' : mbs('before')} baseline (target ≥ 100)` }),
      row(`load ${name}`, 'RSS growth MB', ['this checkout', rss('sequential')], [[`baseline ${BASELINE_COMMIT}`, rss('before')]], { note: `RSS growth / file: ${median(seq.map((x) => (x.rss_growth_bytes as number) / bytes)).toFixed(2)}x (target ≤ 0.5x)` }),
    )
    loads.push({ file, bytes, load_average: loadAverages, sides: perSide, speed_ratio_wall: runs.before === undefined ? null : median(seq.map((x, k) => ((runs.before as LoadRun[])[k]?.wall_ms as number) / (x.wall_ms as number))), runs })
    console.error(`  load ${file.split('/').pop()} done`)
  }

  const reads: Record<string, unknown>[] = []
  if (values.only !== 'loads') await measureReads(base, here, sample, reads)
  report(base, loads, reads)
}

async function measureReads(base: string | null, here: string, sample: string, reads: Record<string, unknown>[]): Promise<void> {
  const paths = requestPaths(sample)
  const after = await startServer(here, sample)
  const before = base === null ? null : await startServer(base, sample)
  try {
    for (const [name, list] of [
      ['GET /v1/transactions/by_version/{v}', paths.byVersion],
      ['GET /v1/accounts/{a}/transactions', paths.listing],
    ] as const) {
      const runs: { before: HttpRun[]; after: HttpRun[] } = { before: [], after: [] }
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? [before, after] : [after, before]
        for (const s of order) if (s !== null) runs[s === after ? 'after' : 'before'].push(await hit(s, list))
      }
      const summary = (xs: HttpRun[]) =>
        xs.length === 0
          ? null
          : {
              requests_per_sec: median(xs.map((x) => x.requests_per_sec)),
              server_cpu_us_per_request: median(xs.map((x) => x.server_cpu_us_per_request)),
              non_2xx: xs.reduce((s, x) => s + x.non_2xx, 0),
              errors: xs.reduce((s, x) => s + x.errors, 0),
            }
      const ratios = runs.before.map((b, k) => (runs.after[k] as HttpRun).requests_per_sec / b.requests_per_sec)
      const cpuRatios = runs.before.map((b, k) => b.server_cpu_us_per_request / (runs.after[k] as HttpRun).server_cpu_us_per_request)
      results.push(
        row(`${name}, sample chain`, 'server CPU µs/request', ['this checkout', runs.after.map((x) => x.server_cpu_us_per_request)], [[`baseline ${BASELINE_COMMIT}`, runs.before.map((x) => x.server_cpu_us_per_request)]], {
          note: `requests/s medians: ${median(runs.after.map((x) => x.requests_per_sec)).toFixed(0)} this checkout, ${runs.before.length === 0 ? '-' : median(runs.before.map((x) => x.requests_per_sec)).toFixed(0)} baseline`,
        }),
      )
      reads.push({ case: name, before: summary(runs.before), after: summary(runs.after), ratio: median(ratios), round_ratios: ratios, cpu_ratio: median(cpuRatios), runs })
      console.error(`  ${name}: ratios ${ratios.map((x) => x.toFixed(2)).join(', ')}`)
    }
  } finally {
    await stopBenchServer(after)
    if (before !== null) await stopBenchServer(before)
  }
}

function report(base: string | null, loads: Record<string, unknown>[], reads: Record<string, unknown>[]): void {
  const f0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(0))
  const f2 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(2))
  type SideRow = { side: Side; mb_per_s_wall: number; mb_per_s_cpu: number; rss_x: number; rss_less_young_x: number; retained_x: number; young_generation_growth_mb: number }
  type Load = { file: string; bytes: number; load_average: number[]; sides: SideRow[] }
  console.log(`\nBaseline ${base === null ? 'none' : BASELINE_COMMIT}; ${ROUNDS} round(s), medians; fresh process per load; the sides' order rotates each round.\n`)
  console.log('| chain | MB | load average | side | startup MB/s wall (CPU) | RSS growth / file | less the young generation\'s growth | retained / file | young gen growth MB |')
  console.log('|---|---:|---|---|---|---|---|---|---:|')
  for (const l of loads as Load[]) {
    for (const s of l.sides) {
      console.log(
        `| ${l.file.split('/').pop()} | ${(l.bytes / 1e6).toFixed(1)} | ${Math.min(...l.load_average).toFixed(1)}–${Math.max(...l.load_average).toFixed(1)} | ${SIDE_NAMES[s.side]} | ${f0(s.mb_per_s_wall)} (${f0(s.mb_per_s_cpu)}) | ${f2(s.rss_x)}x | ${f2(s.rss_less_young_x)}x | ${f2(s.retained_x)}x | ${f0(s.young_generation_growth_mb)} |`,
      )
    }
  }
  console.log('\n| case (sample chain) | req/s before → after | server CPU µs/req before → after | after/before req/s (median of rounds) | by CPU | non-2xx |')
  console.log('|---|---|---|---:|---:|---:|')
  type HttpSide = { requests_per_sec: number; server_cpu_us_per_request: number; non_2xx: number } | null
  for (const r of reads as { case: string; before: HttpSide; after: HttpSide; ratio: number; round_ratios: number[]; cpu_ratio: number }[]) {
    console.log(
      `| ${r.case} | ${f0(r.before?.requests_per_sec)} → ${f0(r.after?.requests_per_sec)} | ${f0(r.before?.server_cpu_us_per_request)} → ${f0(r.after?.server_cpu_us_per_request)} | ${f2(r.ratio)}x (${r.round_ratios.map((x) => x.toFixed(2)).join(', ')}) | ${f2(r.cpu_ratio)}x | ${(r.before?.non_2xx ?? 0) + (r.after?.non_2xx ?? 0)} |`,
    )
  }
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
