import type { BlockInput } from '../core/block.js'
import type { EstimatorConfig } from '../core/config.js'
import { InvalidBlockError } from '../core/errors.js'
import { priceBlock } from '../core/price-block.js'
import type { U64 } from '../core/u64.js'
import { InvalidDataError } from '../ledger/store/errors.js'
import { DEFAULT_SERIES_BUCKETS, DownsampledSeries } from './downsampled-series.js'
import { blockRequirement, cutoffPrice } from '../core/requirement.js'
import { Scorer, type TrackScore } from './scorer.js'
import { TIERS, type Strategy, type Tier, type TierPromise } from './strategies/strategy.js'

/** What a backtest compares and how. */
export interface BacktestOptions {
  strategies: readonly Strategy[]
  /** The k values to report (each tier's promised k is scored too). */
  ks: readonly number[]
  /** Scoring config: decides which blocks were full (the engine's rules) and the price floor. */
  config: EstimatorConfig
  /** Buckets of the report's time series (see `DownsampledSeries`). */
  seriesBuckets?: number
}

export interface TierResult {
  tier: Tier
  promised: TierPromise | null
  score: TrackScore
  /** For a promise: the floor price alone was included within k at a share >= q (see `Scorer.floorRate`); else `null`. */
  floor_bound: boolean | null
}

export interface StrategyResult {
  name: string
  kind: Strategy['kind']
  config: Readonly<Record<string, unknown>>
  tiers: TierResult[]
  /** The calibration sweep: each extra promise and how it fared. */
  sweep: { promised: TierPromise; score: TrackScore }[]
}

export interface BacktestResult {
  blocks: number
  /** Requested k values, ascending. */
  ks: number[]
  /** Every k scored (requested and promised), ascending; the index of each `TrackScore` array. */
  scoredKs: number[]
  first_block_height: U64 | null
  last_block_height: U64 | null
  /** Blocks judged full under the scoring config. */
  full_blocks: number
  config: EstimatorConfig
  strategies: StrategyResult[]
  /** `cutoff` then `${strategy}|${tier}` per strategy and tier, downsampled. */
  series: DownsampledSeries
}

/**
 * One pass of several strategies over recorded blocks, scored as `Scorer` defines. Push blocks
 * in order, then `finish`. Memory is constant in the number of blocks: the strategies' windows,
 * the scorer's lookahead of max(k) blocks, the quantile sketches and the downsampled series.
 *
 * @example
 * const bt = new Backtest({ strategies: parseStrategies('aptos,geth', config), ks: [1, 3], config })
 * for (const b of blocks) bt.push(b)
 * bt.finish().strategies[0].tiers[1].score.included
 */
export class Backtest {
  private readonly options: BacktestOptions
  private readonly scorer: Scorer
  private readonly series: DownsampledSeries
  private readonly prices: U64[]
  private readonly values: Float64Array
  private first: U64 | null = null
  private last: U64 | null = null
  private full = 0
  private finished: BacktestResult | null = null

  constructor(options: BacktestOptions) {
    this.options = options
    const promised = options.strategies.flatMap((s) => [...s.promises.flatMap((p) => (p === null ? [] : [p.k])), ...s.sweep.map((p) => p.k)])
    // tiers get every figure; calibration sweep tracks only need inclusion counts
    const detailed: boolean[] = options.strategies.flatMap((s) => [...TIERS.map(() => true), ...s.sweep.map(() => false)])
    this.scorer = new Scorer(detailed.length, [...options.ks, ...promised], options.config.min_gas_unit_price, (t) => detailed[t] === true)
    const tracks = detailed.length
    this.prices = new Array<U64>(tracks).fill(0)
    const names = ['cutoff', ...options.strategies.flatMap((s) => TIERS.map((t) => `${s.name}|${t}`))]
    this.series = new DownsampledSeries(names, options.seriesBuckets ?? DEFAULT_SERIES_BUCKETS)
    this.values = new Float64Array(names.length)
  }

  /** Blocks pushed so far. */
  get blocks(): number {
    return this.scorer.blocks
  }

  /**
   * Scores the next block and lets every strategy ingest it.
   *
   * @throws InvalidBlockError when the block is invalid or its height does not increase.
   */
  push(block: BlockInput): void {
    if (this.finished !== null) throw new Error('Backtest.push after finish')
    const config = this.options.config
    const priced = priceBlock(block, config)
    if (this.last !== null && !(priced.block_height > this.last)) {
      throw new InvalidBlockError(String(priced.block_height), 'block_height', `must be above the previous block's (${this.last})`)
    }
    let o = 0
    let v = 1
    for (const s of this.options.strategies) {
      s.ingest(block, priced)
      const e = s.estimate()
      this.prices[o++] = e.deprioritized_gas_estimate
      this.prices[o++] = e.gas_estimate
      this.prices[o++] = e.prioritized_gas_estimate
      this.values[v++] = Number(e.deprioritized_gas_estimate)
      this.values[v++] = Number(e.gas_estimate)
      this.values[v++] = Number(e.prioritized_gas_estimate)
      for (const p of s.sweepEstimate()) this.prices[o++] = p
    }
    const req = blockRequirement(priced)
    this.scorer.push(req, this.prices)
    this.values[0] = Number(cutoffPrice(req, config.min_gas_unit_price))
    this.series.push(Number(priced.block_height), this.values)
    this.first ??= priced.block_height
    this.last = priced.block_height
    if (priced.full) this.full++
  }

  /** Ends the data and returns the result (the same object on every call). */
  finish(): BacktestResult {
    if (this.finished !== null) return this.finished
    this.scorer.close()
    let track = 0
    const strategies = this.options.strategies.map((s): StrategyResult => {
      const tiers = TIERS.map((tier, i): TierResult => {
        const promised = s.promises[i] ?? null
        const floorRate = promised === null ? null : this.scorer.floorRate(this.scorer.ks.indexOf(promised.k))
        return { tier, promised, score: this.scorer.score(track++), floor_bound: promised === null || floorRate === null ? null : floorRate >= promised.q }
      })
      const sweep = s.sweep.map((promised) => ({ promised, score: this.scorer.score(track++) }))
      return { name: s.name, kind: s.kind, config: s.config, tiers, sweep }
    })
    this.finished = {
      blocks: this.scorer.blocks,
      ks: [...new Set(this.options.ks)].sort((a, b) => a - b),
      scoredKs: [...this.scorer.ks],
      first_block_height: this.first,
      last_block_height: this.last,
      full_blocks: this.full,
      config: this.options.config,
      strategies,
      series: this.series,
    }
    return this.finished
  }
}

/** A block read from a data file, with where it came from (for error messages). */
export interface SourcedBlock {
  file: string
  line: number
  block: BlockInput
}

/**
 * Runs a backtest over a stream of blocks. A block the engine or a strategy rejects becomes an
 * `InvalidDataError` naming its file and line. `onProgress(blocks)` is called every 4,096 blocks.
 */
export async function runBacktest(source: AsyncIterable<SourcedBlock>, options: BacktestOptions, onProgress?: (blocks: number) => void): Promise<BacktestResult> {
  const bt = new Backtest(options)
  for await (const { file, line, block } of source) {
    try {
      bt.push(block)
    } catch (error) {
      throw InvalidDataError.at(file, line, error)
    }
    if (onProgress !== undefined && (bt.blocks & 4095) === 0) onProgress(bt.blocks)
  }
  return bt.finish()
}
