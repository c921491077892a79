import { fcRuns } from '../budget.js'
import type { BlockInput } from '../../src/core/block.js'
import { resolveConfig, type EstimatorConfig } from '../../src/core/config.js'
import type { U64 } from '../../src/core/u64.js'
import type { GasEstimate } from '../../src/core/wire.js'
import type { Strategy, TierPromise } from '../../src/replay/strategies/strategy.js'

/** Runs of a typical property (see test/budget.ts). */
export const NUM_RUNS = fcRuns()

/** Scoring config for hand-made chains: a block with 2 or more user txns is full; floor 100. */
export const SMALL: EstimatorConfig = resolveConfig({ full_block_txns: 2 })

/** A block of the given prices (full under `SMALL` when it has 2 or more). */
export function blk(height: number, prices: (number | bigint)[] = [], epoch = 1): BlockInput {
  return { block_height: height, epoch, gas_unit_prices: prices }
}

/** A full block (under `SMALL`) whose cheapest included price is `cheapest`. */
export const full = (height: number, cheapest: number | bigint, epoch = 1): BlockInput => blk(height, [cheapest, typeof cheapest === 'bigint' ? cheapest : cheapest + 1000], epoch)

/** A block that is not full (under `SMALL`): one txn, or none. */
export const open = (height: number, price?: number, epoch = 1): BlockInput => blk(height, price === undefined ? [] : [price], epoch)

/**
 * A strategy that always answers the same three prices (or per-block prices from `schedule`),
 * for checking the scorer through the backtest.
 */
export function fixedStrategy(name: string, prices: [U64, U64, U64] | ((i: number) => [U64, U64, U64]), promises: [TierPromise | null, TierPromise | null, TierPromise | null] = [null, null, null]): Strategy {
  let i = -1
  const at = (): GasEstimate => {
    const [a, b, c] = typeof prices === 'function' ? prices(Math.max(i, 0)) : prices
    return { deprioritized_gas_estimate: a, gas_estimate: b, prioritized_gas_estimate: c }
  }
  return {
    name,
    kind: 'target',
    config: {},
    promises,
    sweep: [],
    ingest() {
      i++
    },
    estimate: at,
    sweepEstimate: () => [],
  }
}

/** xorshift32: a tiny seeded generator for test chains. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 0x9e3779b9
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    return x / 2 ** 32
  }
}

const LEVELS = [100, 100, 101, 150, 150, 200, 300, 500, 1000, 3000]

/**
 * A seeded chain with calm stretches and congestion episodes, full under `SMALL` when a block
 * has 2+ txns (compact `BlockInput`s). Heights start at `start`, epochs change every 700 blocks.
 */
export function* syntheticChain(n: number, seed = 1, start = 1): Generator<BlockInput> {
  const r = rng(seed)
  let congested = false
  for (let i = 0; i < n; i++) {
    if (r() < (congested ? 0.05 : 0.02)) congested = !congested
    const txns = congested ? 2 + Math.floor(r() * 3) : r() < 0.3 ? 0 : 1
    const base = LEVELS[Math.floor(r() * LEVELS.length)] as number
    const prices = Array.from({ length: txns }, () => (congested ? base + Math.floor(r() * 50) : 100 + Math.floor(r() * 3)))
    yield { block_height: start + i, epoch: 1 + Math.floor(i / 700), gas_unit_prices: prices, gas_used: prices.map(() => 1000) }
  }
}
