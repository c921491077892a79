/**
 * Child process of the replay memory benchmark: backtests a synthetic stream of N compact blocks
 * generated on the fly (never held: each block is written as a JSON line into a stream and read
 * back through the real input path) with the default strategies, then prints one JSON line with
 * the peak RSS. Usage: tsx bench/replay-memory.ts BLOCKS
 */
import { Readable } from 'node:stream'
import { resolveConfig } from '../src/core/config.js'
import { runBacktest } from '../src/replay/backtest.js'
import { DEFAULT_STRATEGIES, parseStrategies } from '../src/replay/strategies/parse-strategies.js'
import { openInput } from '../src/replay/read-input.js'

const blocks = Number(process.argv[2] ?? 100_000)

/** Seeded compact blocks: calm stretches of a few txns, congested ones of 250–330 (full under Aptos' 250). */
function* lines(n: number): Generator<string> {
  let s = 0x2545f491
  const r = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32)
  let congested = false
  const batch: string[] = []
  for (let h = 1; h <= n; h++) {
    if (r() < (congested ? 0.04 : 0.01)) congested = !congested
    const txns = congested ? 250 + Math.floor(r() * 80) : Math.floor(r() * 8)
    const prices = new Array<number>(txns)
    for (let i = 0; i < txns; i++) {
      const x = r()
      prices[i] = x < 0.6 ? 100 : x < 0.85 ? 150 : x < 0.97 ? 300 + Math.floor(r() * 700) : 1000 + Math.floor(r() * 100_000)
    }
    batch.push(JSON.stringify({ block_height: h, epoch: 1 + Math.floor(h / 7200), gas_unit_prices: prices }))
    if (batch.length === 256 || h === n) {
      yield `${batch.join('\n')}\n`
      batch.length = 0
    }
  }
}

let peakRss = 0
const sample = () => {
  const rss = process.memoryUsage.rss()
  if (rss > peakRss) peakRss = rss
}
const started = performance.now()
const config = resolveConfig()
const input = await openInput('-', 'jsonl', Readable.from(lines(blocks)))
const result = await runBacktest(input.blocks, { strategies: parseStrategies(DEFAULT_STRATEGIES, config), ks: [1, 3, 10], config }, sample)
sample()
const seconds = (performance.now() - started) / 1000
// what the backtest really keeps (run with --expose-gc): the result is still reachable here
const gc = (globalThis as { gc?: () => void }).gc
gc?.()
const retained = gc === undefined ? null : process.memoryUsage().heapUsed
process.stdout.write(
  `${JSON.stringify({ blocks: result.blocks, full_blocks: result.full_blocks, max_rss_bytes: process.resourceUsage().maxRSS * 1024, peak_sampled_rss_bytes: peakRss, retained_heap_bytes: retained, seconds })}\n`,
)
