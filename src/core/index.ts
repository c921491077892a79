/**
 * The pure estimation engine: no I/O, no clock, no runtime dependencies.
 * @module
 */
export type { BlockEndInfo, BlockInput, FullnessReason, PricedBlock } from './block.js'
export { FULLNESS_REASONS } from './block.js'
export type { EstimatorConfig, EstimatorConfigInput, StaticOverride } from './config.js'
export { DEFAULT_CONFIG, MAX_BLOCK_HISTORY, resolveConfig } from './config.js'
export { InvalidBlockError, InvalidConfigError, LedgerGasError } from './errors.js'
export type { BlockHistoryEntry, EstimateExplain, EstimateSource, TierExplain } from './estimator.js'
export { Estimator, createEstimator } from './estimator.js'
export { DEFAULT_BUCKETS, nextBucket } from './next-bucket.js'
export { priceBlock } from './price-block.js'
export { SlidingWindow } from './window.js'
export type { OrderStatisticWindow } from './window.js'
export { SORTED_WINDOW_MAX, createWindow } from './window.js'
export type { U64 } from './u64.js'
export { U64_MAX, addU64, maxU64, parseU64, toU64, u64ToBigInt } from './u64.js'
export type { GasEstimate } from './wire.js'
export { gasEstimateToJson, stringifyExact } from './wire.js'
