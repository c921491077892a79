import type { BlockInput } from '../core/block.js'
import type { EstimatorConfig } from '../core/config.js'
import { Estimator } from '../core/estimator.js'
import type { GasEstimate } from '../core/wire.js'
import { APTOS_PERCENTILES, AptosPercentileEstimator, type AptosPercentiles } from './aptos-percentile-estimator.js'
import type { Strategy } from './strategy.js'

const NO_PROMISES = Object.freeze([null, null, null] as const)

/**
 * The engine as a strategy: `createEstimator(config)` itself when the percentiles are Aptos'
 * (0/50/90), else `AptosPercentileEstimator`, the same algorithm with other window statistics.
 * Makes no promise.
 *
 * @example createAptosStrategy('aptos', resolveConfig()).estimate().gas_estimate // 100
 */
export function createAptosStrategy(name: string, config: EstimatorConfig, percentiles: AptosPercentiles = APTOS_PERCENTILES): Strategy {
  const engine = isAptos(percentiles) ? new Estimator(config) : new AptosPercentileEstimator(config, percentiles)
  const description: Record<string, unknown> = { ...config }
  if (!isAptos(percentiles)) {
    description.low_percentile = percentiles.low
    description.market_percentile = percentiles.market
    description.aggressive_percentile = percentiles.aggressive
  }
  return {
    name,
    kind: 'aptos',
    config: Object.freeze(description),
    promises: NO_PROMISES,
    sweep: [],
    ingest(block: BlockInput): void {
      engine.ingest(block)
    },
    estimate(): GasEstimate {
      return engine.estimate()
    },
    sweepEstimate: () => [],
  }
}

function isAptos(p: AptosPercentiles): boolean {
  return p.low === APTOS_PERCENTILES.low && p.market === APTOS_PERCENTILES.market && p.aggressive === APTOS_PERCENTILES.aggressive
}
