import type { BlockInput, PricedBlock } from '../../core/block.js'
import { DEFAULT_CALIBRATED_CONFIG, type CalibratedConfigInput, type TierPromise } from '../../core/calibrated/calibrated-config.js'
import { CalibratedEstimator, learnerOptions } from '../../core/calibrated/calibrated-estimator.js'
import type { EstimatorConfig } from '../../core/config.js'
import { PromiseLearner } from '../../core/calibrated/promise-learner.js'
import { blockRequirement } from '../../core/requirement.js'
import type { U64 } from '../../core/u64.js'
import type { Strategy } from './strategy.js'

/** Parameters of the `target` strategy. */
export interface TargetOptions {
  /** The scoring config: block fullness and the floor (`min_gas_unit_price`). */
  config: EstimatorConfig
  /** Promises, window and learning rate of the calibrated estimator (defaults: `DEFAULT_CALIBRATED_CONFIG`). */
  calibrated: CalibratedConfigInput
  /** Also price a calibration sweep (`SWEEP_Q` at each tier's k), each point calibrated on its own. */
  sweep: boolean
}

/** Default promises: 0.9 within 10, 0.9 within 3, 0.95 within 1 block for the deprioritized, regular and prioritized tiers. */
export const TARGET_DEFAULT_PROMISES: readonly [TierPromise, TierPromise, TierPromise] = Object.freeze([
  DEFAULT_CALIBRATED_CONFIG.deprioritized,
  DEFAULT_CALIBRATED_CONFIG.regular,
  DEFAULT_CALIBRATED_CONFIG.prioritized,
])

/** Probabilities of the calibration sweep. */
export const SWEEP_Q: readonly number[] = Object.freeze([0.5, 0.75, 0.9, 0.95, 0.99])

/**
 * The calibrated estimator of the core (`CalibratedEstimator`) as a strategy: each tier promises
 * inclusion within k blocks with probability at least q and learns online, from the same block
 * data the backtest scores, to keep it. It sees each block once, after the backtest has priced it
 * under the scoring config, so it learns exactly what it is scored on. The sweep prices extra
 * (k, q) points with the same method, each with its own calibration, to draw the calibration
 * curve. O(|distinct k| · log W) per block.
 */
export function createTargetStrategy(name: string, options: TargetOptions): Strategy {
  const engine = new CalibratedEstimator(options.config, options.calibrated)
  const c = engine.calibrated
  const sweep: TierPromise[] = []
  if (options.sweep) {
    const ks = [...new Set([c.deprioritized.k, c.regular.k, c.prioritized.k])].sort((a, b) => a - b)
    for (const k of ks) for (const q of SWEEP_Q) sweep.push({ k, q })
  }
  const floor = options.config.min_gas_unit_price
  const sweepQuotes = new PromiseLearner(sweep, learnerOptions(c, floor))
  let sweepPrices: U64[] = sweep.map(() => floor)
  return {
    name,
    kind: 'target',
    config: Object.freeze({
      window: c.window,
      learning_rate: c.learning_rate,
      min_gas_unit_price: floor,
      method: 'calibrated: an ensemble of adaptive-conformal experts over recent k-block minimum cutoffs (marginal or state-conditioned, least pinball loss served, outer calibration, floor rule), a higher tier caps the lower ones',
      promises: { deprioritized: c.deprioritized, regular: c.regular, prioritized: c.prioritized },
    }),
    promises: Object.freeze([c.deprioritized, c.regular, c.prioritized] as const),
    sweep: Object.freeze(sweep),
    ingest(_block: BlockInput, priced: PricedBlock): void {
      engine.ingestPriced(priced)
      if (sweep.length === 0) return
      sweepQuotes.observe(blockRequirement(priced))
      sweepPrices = sweep.map((_, i) => {
        const p = sweepQuotes.quote(i)
        sweepQuotes.serve(i, p)
        return p
      })
    },
    estimate: () => engine.estimate(),
    sweepEstimate: () => sweepPrices,
  }
}
