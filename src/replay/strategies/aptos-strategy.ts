import type { BlockInput } from '../../core/block.js'
import type { EstimatorConfig } from '../../core/config.js'
import { APTOS_PERCENTILES, Estimator, type WindowPercentiles } from '../../core/estimator.js'
import type { GasEstimate } from '../../core/wire.js'
import type { Strategy } from './strategy.js'

const NO_PROMISES = Object.freeze([null, null, null] as const)

/**
 * The engine as a strategy: the core `Estimator` with the window ranks as percentiles (Aptos'
 * 0/50/90 by default). Makes no promise.
 *
 * @example createAptosStrategy('aptos', resolveConfig()).estimate().gas_estimate // 100
 */
export function createAptosStrategy(name: string, config: EstimatorConfig, percentiles: WindowPercentiles = APTOS_PERCENTILES): Strategy {
  const engine = new Estimator(config, { percentiles })
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

function isAptos(p: WindowPercentiles): boolean {
  return p.low === APTOS_PERCENTILES.low && p.market === APTOS_PERCENTILES.market && p.aggressive === APTOS_PERCENTILES.aggressive
}
