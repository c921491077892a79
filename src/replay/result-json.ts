import type { BacktestResult, TierResult } from './backtest.js'
import { EXACT_DISTINCT_LIMIT, RELATIVE_ACCURACY, type QuantileSketch } from './quantile-sketch.js'
import type { TrackScore } from './scorer.js'
import type { Tier, TierPromise } from './strategies/strategy.js'

/** Overpayment summary of one tier at one k. */
export interface OverpaymentJson {
  k: number
  /** Included evaluations the figures are over. */
  count: number
  median: number | null
  p90: number | null
  mean: number | null
  /** Relative overpayment (p − p*)/p*. */
  ratio_median: number | null
  ratio_p90: number | null
  /** False once the sketch switched to bins (relative error ≤ `RELATIVE_ACCURACY`). */
  exact: boolean
}

/** One tier in the output JSON; the keys first, extras after. */
export interface TierJson {
  tier: Tier
  evaluated: Record<string, number>
  inclusion_rate: Record<string, number | null>
  overpayment: OverpaymentJson
  mean_delay_blocks: number | null
  promised: TierPromise | null
  included: Record<string, number>
  overpayment_by_k: Record<string, OverpaymentJson>
  /** For a promise: the achieved inclusion rate at the promised k. */
  achieved: number | null
  /** 1 − inclusion_rate, per k. */
  miss_rate: Record<string, number | null>
  /**
   * Price paid / the cheapest price that would have met the same k (p / p*), averaged over the
   * included evaluations, per k: 1 is hindsight-perfect.
   */
  cost_vs_hindsight: Record<string, number | null>
  /**
   * For a promise: true when the floor price alone kept it over the data (so it is over-kept by
   * construction and says nothing about calibration); `null` without a promise.
   */
  floor_bound: boolean | null
  delay: { included: number; censored: number; max_blocks: number }
}

export interface StrategyJson {
  name: string
  kind: string
  config: Record<string, unknown>
  tiers: TierJson[]
  /** Calibration sweep: promised vs achieved for extra (k, q) pairs priced the same way. */
  calibration: { k: number; q: number; evaluated: number; achieved: number | null }[]
}

export interface BacktestJson {
  blocks: number
  k: number[]
  strategies: StrategyJson[]
  first_block_height: string | null
  last_block_height: string | null
  full_blocks: number
  scoring: Record<string, unknown>
}

/**
 * The machine-readable result, in the shape researchers script against:
 * `{blocks, k, strategies: [{name, config, tiers: [{tier, evaluated, inclusion_rate, overpayment:
 * {median, p90}, mean_delay_blocks, promised}]}]}` plus extra keys. Rates and k keys cover every
 * scored k (requested and promised); `overpayment` is at the smallest requested k. Serialize it
 * with `stringifyExact` (configs may hold u64 bigints).
 */
export function toBacktestJson(result: BacktestResult): BacktestJson {
  const ks = result.scoredKs
  const headK = result.ks[0] as number
  const strategies = result.strategies.map(
    (s): StrategyJson => ({
      name: s.name,
      kind: s.kind,
      config: { ...s.config },
      tiers: s.tiers.map((t) => tierJson(t, ks, headK)),
      calibration: s.sweep.map(({ promised, score }) => {
        const at = ks.indexOf(promised.k)
        return { k: promised.k, q: promised.q, evaluated: score.evaluated[at] as number, achieved: rate(score, at) }
      }),
    }),
  )
  return {
    blocks: result.blocks,
    k: result.ks,
    strategies,
    first_block_height: result.first_block_height === null ? null : String(result.first_block_height),
    last_block_height: result.last_block_height === null ? null : String(result.last_block_height),
    full_blocks: result.full_blocks,
    scoring: {
      config: result.config,
      rule: 'a txn priced p submitted right after block t is included in block j > t iff block j was not full or p > the cheapest gas_unit_price included in j',
      overpayment: 'p - p*, p* = max(min_gas_unit_price, min over j in t+1..t+k of (0 if block j not full else cheapest_j + 1)); over included evaluations',
      quantiles: `nearest rank; exact up to ${EXACT_DISTINCT_LIMIT} distinct values, else DDSketch with relative error <= ${RELATIVE_ACCURACY}`,
      delay: 'blocks from submission (after block t) to inclusion, over txns included before the data ended; the rest are censored',
    },
  }
}

function tierJson({ tier, promised, score, floor_bound }: TierResult, ks: number[], headK: number): TierJson {
  const byK = <T>(f: (i: number) => T): Record<string, T> => Object.fromEntries(ks.map((k, i) => [String(k), f(i)]))
  const d = score.delay
  const overpayment_by_k = byK((i) => overpaymentJson(score, i, ks[i] as number))
  return {
    tier,
    evaluated: byK((i) => score.evaluated[i] as number),
    inclusion_rate: byK((i) => rate(score, i)),
    overpayment: overpayment_by_k[String(headK)] as OverpaymentJson,
    mean_delay_blocks: d.included === 0 ? null : d.sum_delay / d.included,
    promised: promised === null ? null : { k: promised.k, q: promised.q },
    included: byK((i) => score.included[i] as number),
    overpayment_by_k,
    achieved: promised === null ? null : rate(score, ks.indexOf(promised.k)),
    miss_rate: byK((i) => {
      const r = rate(score, i)
      return r === null ? null : 1 - r
    }),
    cost_vs_hindsight: byK((i) => {
      const mean = (score.overpayment_ratio[i] as QuantileSketch).mean
      return mean === null ? null : 1 + mean
    }),
    floor_bound,
    delay: { included: d.included, censored: d.censored, max_blocks: d.max_delay },
  }
}

function rate(score: TrackScore, i: number): number | null {
  const n = score.evaluated[i] as number
  return n === 0 ? null : (score.included[i] as number) / n
}

function overpaymentJson(score: TrackScore, i: number, k: number): OverpaymentJson {
  const o = score.overpayment[i] as QuantileSketch
  const r = score.overpayment_ratio[i] as QuantileSketch
  return {
    k,
    count: o.count,
    median: o.quantile(0.5),
    p90: o.quantile(0.9),
    mean: o.mean,
    ratio_median: r.quantile(0.5),
    ratio_p90: r.quantile(0.9),
    exact: o.isExact && r.isExact,
  }
}
