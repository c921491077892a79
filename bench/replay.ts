/**
 * Replay benchmarks, ratios within one run (absolute times drift on a shared machine):
 *
 * 1. Throughput, each pass against merely splitting the same file into lines and JSON.parse-ing
 *    each (the baseline):
 *    - reading the blocks for the engine with the block scanner (`scanBlocks`: read, scan,
 *      parseBlockJson of the skeleton), on the main thread: target >= 1.5x (issue 12);
 *    - replay (blocks + ingest) with the scanner, on the main thread;
 *    - replay through the full parser (read + JSON.parse + parseBlockJson + ingest): target >= 0.8x;
 *    - the full backtest (three strategies, scoring, report data), for scale.
 *    Plain wall-clock timing in paired rounds (median of per-round ratios), not tinybench: the
 *    passes take ~50-100 ms each and a paired design cancels the machine's drift.
 * 2. Memory: peak RSS (`process.resourceUsage().maxRSS`) of a backtest over 1,000,000 blocks
 *    against 100,000 blocks of the same synthetic stream, each in a fresh child process
 *    (bench/replay-memory.ts), median of 3 runs per size. Target: within 10 MB. The retained heap
 *    after a full GC is printed beside it: that is what the backtest itself keeps.
 *
 * Fixture: data/chain.jsonl (the committed sample chain in the node's block JSON) when present,
 * else the same chain generated from src/sim (seed 42) into a temporary file.
 *
 * Run: npx tsx bench/replay.ts [--quick]; results also go to bench/results/replay.json (warm,
 * in-process, in the shape of bench/results.ts).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { resolveConfig } from '../src/core/config.js'
import { createEstimator } from '../src/core/estimator.js'
import { readLines } from '../src/ledger/read/lines.js'
import { readBlocks } from '../src/ledger/read/read-blocks.js'
import { scanBlocks } from '../src/ledger/scan-blocks.js'
import { runBacktest } from '../src/replay/backtest.js'
import { DEFAULT_STRATEGIES, parseStrategies } from '../src/replay/strategies/parse-strategies.js'
import { openInput } from '../src/replay/read-input.js'
import { chainLines } from '../src/sim/index.js'
import { row, startGroup, writeResult, type Row } from './results.js'

export interface ReplayBenchResult {
  fixture: { path: string; blocks: number; bytes: number }
  throughput: { name: string; ms_per_pass: number; blocks_per_s: number; mb_per_s: number; ratio_to_parse: number; round_ms: number[] }[]
  /** `scanBlocks` on the main thread vs split + JSON.parse (target >= 1.5x). */
  scan_ratio: number
  scan_target_met: boolean
  /** Replay through the full parser vs split + JSON.parse (target >= 0.8x). */
  replay_ratio: number
  replay_target_met: boolean
  /** Per size, the run with the median peak RSS, and every run's peak. */
  memory: { blocks: number; max_rss_bytes: number; peak_sampled_rss_bytes: number; retained_heap_bytes: number | null; seconds: number; max_rss_runs_bytes?: number[] }[]
  rss_growth_bytes: number
  memory_target_met: boolean
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function fixturePath(): string {
  const sample = join(ROOT, 'data', 'chain.jsonl')
  if (existsSync(sample)) return sample
  const file = join(mkdtempSync(join(tmpdir(), 'ledger-gas-bench-')), 'chain.jsonl')
  writeFileSync(file, [...chainLines({ blocks: 2000, seed: 42, scenario: 'mixed' })].map((l) => `${l}\n`).join(''))
  return file
}

let sink = 0

export async function runReplayBench(opts: { rounds?: number; repeats?: number; memoryBlocks?: [number, number] } = {}): Promise<ReplayBenchResult> {
  const file = fixturePath()
  const bytes = statSync(file).size
  let blocks = 0
  for await (const _ of readLines(file)) blocks++
  const config = resolveConfig()

  // Paired rounds: each round times every pass once, in rotating order, so drift on a shared
  // machine hits all of them alike; the reported ratio is the median of the per-round ratios.
  const passes: { name: string; run: () => Promise<void> }[] = [
    {
      name: 'split lines + JSON.parse (baseline)',
      run: async () => {
        for await (const { text } of readLines(file)) sink += (JSON.parse(text) as { transactions: unknown[] }).transactions.length
      },
    },
    {
      name: 'scan: read + scan + parseBlockJson (scanBlocks, main thread)',
      run: async () => {
        for await (const { block } of scanBlocks(file)) sink += block.gas_unit_prices.length
      },
    },
    {
      name: 'replay: scanBlocks + ingest (main thread)',
      run: async () => {
        const e = createEstimator(config)
        for await (const { block } of scanBlocks(file)) e.ingest(block)
        sink += e.estimate().gas_estimate as number
      },
    },
    {
      name: 'replay: read + JSON.parse + parseBlockJson + ingest (full parser)',
      run: async () => {
        const e = createEstimator(config)
        for await (const { block } of readBlocks(file)) e.ingest(block)
        sink += e.estimate().gas_estimate as number
      },
    },
    {
      name: `backtest (${DEFAULT_STRATEGIES}, k=1,3,10)`,
      run: async () => {
        const input = await openInput(file, 'jsonl')
        const r = await runBacktest(input.blocks, { strategies: parseStrategies(DEFAULT_STRATEGIES, config), ks: [1, 3, 10], config })
        sink += r.blocks
      },
    },
  ]
  const rounds = opts.rounds ?? 25
  for (const p of passes) for (let w = 0; w < 3; w++) await p.run()
  const times: number[][] = passes.map(() => [])
  for (let round = 0; round < rounds; round++) {
    for (let j = 0; j < passes.length; j++) {
      const i = (j + round) % passes.length
      const started = performance.now()
      await (passes[i] as { run: () => Promise<void> }).run()
      ;(times[i] as number[]).push(performance.now() - started)
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b)
    return s[s.length >> 1] as number
  }
  const base = times[0] as number[]
  const throughput = passes.map((p, i) => {
    const ms = median(times[i] as number[])
    return {
      name: p.name,
      ms_per_pass: ms,
      blocks_per_s: blocks / (ms / 1000),
      mb_per_s: bytes / 1e6 / (ms / 1000),
      ratio_to_parse: median((times[i] as number[]).map((t, r) => (base[r] as number) / t)),
      round_ms: times[i] as number[],
    }
  })

  const [small, large] = opts.memoryBlocks ?? [100_000, 1_000_000]
  // peak RSS depends on when V8 collects: each size runs `repeats` times, the median run counts
  const repeats = opts.repeats ?? 3
  const memory = [small, large].map((n) => {
    const runs = Array.from({ length: repeats }, () => {
      const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(ROOT, 'bench', 'replay-memory.ts'), String(n)], { cwd: ROOT, encoding: 'utf8' })
      return JSON.parse(out.trim().split('\n').pop() as string) as ReplayBenchResult['memory'][number]
    })
    runs.sort((a, b) => a.max_rss_bytes - b.max_rss_bytes)
    return { ...(runs[runs.length >> 1] as ReplayBenchResult['memory'][number]), max_rss_runs_bytes: runs.map((r) => r.max_rss_bytes) }
  })
  const growth = (memory[1] as { max_rss_bytes: number }).max_rss_bytes - (memory[0] as { max_rss_bytes: number }).max_rss_bytes
  const ratioOf = (i: number) => (throughput[i] as { ratio_to_parse: number }).ratio_to_parse
  const [scan, ratio] = [ratioOf(1), ratioOf(3)]
  return {
    fixture: { path: file, blocks, bytes },
    throughput,
    scan_ratio: scan,
    scan_target_met: scan >= 1.5,
    replay_ratio: ratio,
    replay_target_met: ratio >= 0.8,
    memory,
    rss_growth_bytes: growth,
    memory_target_met: growth <= 10 * 1024 * 1024,
  }
}

/** The rows of bench/results/replay.json: each pass against the baseline pass, and the backtest's peak RSS at two sizes. */
function resultRows(r: ReplayBenchResult): Row[] {
  const [base, ...passes] = r.throughput
  if (base === undefined) return []
  // Targets as speedups over the baseline pass become limits on pass / baseline time.
  const targets: Record<number, number> = { 0: 1 / 1.5, 2: 1 / 0.8 }
  const rows = passes.map((t, i) =>
    row(t.name, 'ms per pass', [t.name.replace(/ \(.*$/, ''), t.round_ms], [[base.name, base.round_ms]], {
      ...(targets[i] === undefined ? {} : { maxRatio: Number((targets[i] as number).toFixed(3)) }),
      note: `${(r.fixture.bytes / 1e6).toFixed(1)} MB, ${r.fixture.blocks} blocks; ${t.mb_per_s.toFixed(0)} MB/s`,
    }),
  )
  const [small, large] = r.memory
  if (small !== undefined && large !== undefined) {
    const mb = (xs: number[] | undefined) => (xs ?? []).map((b) => b / 1e6)
    rows.push(
      row(`backtest peak RSS, ${large.blocks} blocks against ${small.blocks}`, 'peak RSS MB', [`${large.blocks} blocks`, mb(large.max_rss_runs_bytes)], [[`${small.blocks} blocks`, mb(small.max_rss_runs_bytes)]], {
        note: `growth ${(r.rss_growth_bytes / 1e6).toFixed(1)} MB between the median runs${large.blocks === 1_000_000 && small.blocks === 100_000 ? ' (target ≤ 10 MiB)' : ' (the target, ≤ 10 MiB, is for 100,000 → 1,000,000 blocks)'}; runs are fresh processes, not paired rounds`,
      }),
    )
  }
  return rows
}

function printReport(r: ReplayBenchResult): void {
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1)
  console.log(`\n## Replay (fixture ${r.fixture.path}: ${r.fixture.blocks} blocks, ${mb(r.fixture.bytes)} MiB)\n`)
  console.log('| pass | ms | blocks/s | MB/s | ratio to split+parse |')
  console.log('|---|---:|---:|---:|---:|')
  for (const t of r.throughput) console.log(`| ${t.name} | ${t.ms_per_pass.toFixed(1)} | ${Math.round(t.blocks_per_s)} | ${t.mb_per_s.toFixed(1)} | ${t.ratio_to_parse.toFixed(2)}x |`)
  console.log(`\nscan ratio ${r.scan_ratio.toFixed(2)}x on the main thread (target >= 1.5x): ${r.scan_target_met ? 'met' : 'NOT met'}`)
  console.log(`replay ratio through the full parser ${r.replay_ratio.toFixed(2)}x (target >= 0.8x): ${r.replay_target_met ? 'met' : 'NOT met'}`)
  console.log('\n| blocks | max RSS MiB (median run) | all runs | retained heap MiB | s |')
  console.log('|---:|---:|---|---:|---:|')
  for (const m of r.memory) console.log(`| ${m.blocks} | ${mb(m.max_rss_bytes)} | ${(m.max_rss_runs_bytes ?? []).map(mb).join(', ')} | ${m.retained_heap_bytes === null ? '-' : mb(m.retained_heap_bytes)} | ${m.seconds.toFixed(1)} |`)
  console.log(`\nRSS growth ${r.memory[0]?.blocks} → ${r.memory[1]?.blocks} blocks: ${mb(r.rss_growth_bytes)} MiB (target <= 10 MiB): ${r.memory_target_met ? 'met' : 'NOT met'}`)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const quick = process.argv.includes('--quick')
  const group = startGroup(
    'replay',
    'replay: the scanner and the engine in-process, warm',
    `Warm, in-process: each pass over the sample chain after 3 warm-up passes, in paired rounds (every pass once per round, order rotating) against split lines + JSON.parse of the same file; the cold replay-cold group measures the CLI as a user runs it. Memory: peak RSS of a backtest over ${quick ? '100,000 against 10,000' : '1,000,000 against 100,000'} blocks of one synthetic stream, each a fresh child process (bench/replay-memory.ts).`,
    'warm',
    quick ? 7 : 25,
  )
  const result = await runReplayBench(quick ? { rounds: 7, repeats: 1, memoryBlocks: [10_000, 100_000] } : {})
  printReport(result)
  console.log(`wrote ${writeResult(group.finish(resultRows(result)))}`)
  if (sink === -1) console.log(sink)
}
