/** Synthetic chains: a seeded mempool model that writes blocks in the node's JSON. */
export { generateChain, chainLines, type GeneratedBlock } from './generate-chain.js'
export { resolveChainOptions, CHAIN_DEFAULTS, DEFAULT_LIMITS, type ChainOptions, type ChainOptionsInput } from './options.js'
export { REGIMES, REGIME_PROFILES, type Regime, type BlockDemand } from './regimes.js'
export { SCENARIOS, CONGESTED_SCENARIOS, targetFullShare, demandAt, type Scenario, type CyclicScenario, type CongestedScenario } from './scenarios.js'
export { SAMPLE_CHAIN } from './sample-chain.js'
export { ORDERLESS_SEQUENCE_NUMBER, EMPTY_EVENT_ROOT_HASH } from './block-json.js'
export { createRng, type Rng } from './prng.js'
export type { BlockLimits } from './mempool.js'
