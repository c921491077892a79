import { FULLNESS_REASONS } from '../../core/block.js'
import { MAX_PROMISE_K } from '../../core/calibrated/calibrated-config.js'
import { nullable, object, ref, type Schema } from './ref.js'

/**
 * u64 written as a JSON integer, exact for every u64 (as `GasEstimation` writes its prices): the
 * convention of every `/v1/gas/*` body except the history, which is block data and writes u64
 * as decimal strings like `Block`.
 */
const INT = (description?: string): Schema => ({ type: 'integer', format: 'uint64', minimum: 0, ...(description === undefined ? {} : { description }) })
const COUNT = (description: string): Schema => ({ type: 'integer', minimum: 0, description })
const PROBABILITY = (description: string): Schema => nullable({ type: 'number', minimum: 0, maximum: 1, description })
const TIERS = ['deprioritized', 'regular', 'prioritized'] as const
const RAISED_BY: Schema = { type: 'string', enum: ['deprioritized', 'regular', null], nullable: true, description: 'The lower tier whose price raised this one to keep the tiers ordered, if any' }
const CAPPED_BY: Schema = { type: 'string', enum: ['regular', 'prioritized', null], nullable: true, description: 'The higher tier whose price capped this one to keep the tiers ordered, if any' }
const AS_OF = nullable(object({ block_height: INT(), epoch: INT() }, ['block_height', 'epoch'], { description: 'The newest block the estimator has ingested; null before any' }))
const closed = { additionalProperties: false } as const

function tiers(schema: string, description: string): Schema {
  return object(Object.fromEntries(TIERS.map((t) => [t, ref(schema)])), TIERS, { description })
}

/** Schemas of the calibrated-estimate and fee-history routes (`/v1/gas/*`). */
export const GAS_SCHEMAS: Readonly<Record<string, Schema>> = {
  TierPromise: object(
    {
      k: { type: 'integer', minimum: 1, maximum: MAX_PROMISE_K, description: 'Blocks within which inclusion is promised' },
      q: { type: 'number', minimum: 0, maximum: 1, description: 'Promised probability of inclusion within k blocks, strictly between 0 and 1' },
    },
    ['k', 'q'],
    { description: 'A tier’s promise: a transaction at its price is included within k blocks with probability at least q', ...closed },
  ),
  InclusionCoverage: object(
    {
      evaluated: COUNT('Quotes whose outcome is known (each is settled k blocks after it was served)'),
      included: COUNT('Of those, how many would have been included within k blocks'),
      rate: PROBABILITY('included / evaluated; null before the first outcome'),
    },
    ['evaluated', 'included', 'rate'],
    { description: 'How the promise has held so far, scored on the prices actually served', ...closed },
  ),
  CalibratedTierQuote: object(
    {
      price: INT('The gas unit price of the tier'),
      promise: ref('TierPromise'),
      coverage: ref('InclusionCoverage'),
      floor_bound: { type: 'boolean', description: 'The minimum gas unit price alone already keeps the promise on the recent window (the tier is over-kept, not tight)' },
    },
    ['price', 'promise', 'coverage', 'floor_bound'],
    closed,
  ),
  CalibratedGasEstimate: object(
    { as_of: AS_OF, ...Object.fromEntries(TIERS.map((t) => [t, ref('CalibratedTierQuote')])) },
    ['as_of', ...TIERS],
    { description: 'The calibrated estimate: each tier promises inclusion within k blocks with probability at least q and learns online to keep it', ...closed },
  ),
  InclusionProbability: object(
    {
      price: INT('The gas unit price asked about'),
      k: { type: 'integer', minimum: 1, maximum: MAX_PROMISE_K, description: 'Blocks within which inclusion is counted' },
      probability: PROBABILITY('Share of the recent submission points at which the price was included within k blocks; null with no sample'),
      samples: COUNT('Submission points counted (blocks whose next k blocks are known, within the window)'),
    },
    ['price', 'k', 'probability', 'samples'],
    { description: 'The empirical chance that a price is included within k blocks, read off the newest window of blocks', ...closed },
  ),
  PriceForInclusion: object(
    {
      k: { type: 'integer', minimum: 1, maximum: MAX_PROMISE_K, description: 'Blocks within which inclusion is wanted' },
      q: { type: 'number', minimum: 0, maximum: 1, description: 'Wanted share of inclusion within k blocks, strictly between 0 and 1' },
      price: nullable({ ...INT('The least gas unit price included within k blocks at a share of at least q of the recent submission points, at least the minimum gas unit price; null with no sample') }),
      samples: COUNT('Submission points the price is read from'),
    },
    ['k', 'q', 'price', 'samples'],
    { description: 'The least price that would have met a promise on the newest window of blocks (empirical, not calibrated)', ...closed },
  ),
  GasHistoryBlock: object(
    {
      block_height: ref('U64'),
      epoch: ref('U64'),
      user_txns: COUNT('Number of user transactions'),
      gas_used: ref('U64'),
      full: { type: 'boolean', description: 'Whether the block counts as full (only a price above its cheapest one gets in)' },
      reason: { type: 'string', enum: [...FULLNESS_REASONS], description: 'The first fullness rule that matched' },
      cheapest_gas_unit_price: nullable({ type: 'string', format: 'uint64', pattern: '^(0|[1-9][0-9]{0,19})$', description: 'Cheapest gas unit price included; null without user transactions' }),
      min_inclusion_price: ref('U64'),
    },
    ['block_height', 'epoch', 'user_txns', 'gas_used', 'full', 'reason', 'cheapest_gas_unit_price', 'min_inclusion_price'],
    { description: 'One block of the fee history, u64 as decimal strings (block data, like Block)', ...closed },
  ),
  AptosTierExplain: object(
    {
      value: INT('The tier’s value'),
      window_blocks: COUNT('Blocks in the tier’s window'),
      full_blocks: COUNT('Of those, the full ones'),
      statistic: { type: 'string', pattern: '^(min|median|p[0-9]+)$', description: 'The window statistic' },
      index: COUNT('Rank taken in the ascending window'),
      statistic_value: INT('The window’s value at that rank, before the max with lower tiers and the bucket step'),
      set_by_block: INT('Height of the block whose min inclusion price is the statistic'),
      raised_by: RAISED_BY,
      bucketed: { type: 'boolean', description: 'next_bucket was applied (the prioritized tier)' },
    },
    ['value', 'window_blocks', 'full_blocks', 'statistic', 'index', 'statistic_value', 'set_by_block', 'raised_by', 'bucketed'],
  ),
  AptosEstimateExplain: object(
    {
      as_of: AS_OF,
      source: { type: 'string', enum: ['history', 'no_history', 'disabled', 'static_override'] },
      fallback: { type: 'boolean', description: 'The estimate is not derived from history' },
      skipped_block_height: nullable(INT('The newest block, left out of the estimate (skip_newest_block)')),
      blocks_ingested: COUNT('Blocks ingested since the estimator started (or last started over)'),
      tiers: nullable(tiers('AptosTierExplain', 'Per-tier derivation; null on a fallback')),
    },
    ['as_of', 'source', 'fallback', 'skipped_block_height', 'blocks_ingested', 'tiers'],
    { description: 'How the Aptos estimate (GET /v1/estimate_gas_price in aptos mode) was derived' },
  ),
  CalibratedTier: object(
    {
      tier: { type: 'string', enum: [...TIERS] },
      promise: ref('TierPromise'),
      price: INT('The price served'),
      coverage: ref('InclusionCoverage'),
      floor_bound: { type: 'boolean' },
      level: { type: 'number', description: 'Quantile level in use after calibration (1 − α); above 1 means beyond the recent maximum' },
      samples: COUNT('k-block samples the price is read from (at most the window)'),
      capped_by: CAPPED_BY,
      driver: ref('TierDriver'),
    },
    ['tier', 'promise', 'price', 'coverage', 'floor_bound', 'level', 'samples', 'capped_by', 'driver'],
  ),
  TierDriver: object(
    {
      expert: object(
        {
          window: { type: 'integer', minimum: 1, description: 'Window of the expert, in k-block samples' },
          learning_rate: { type: 'number', minimum: 0, description: 'The expert’s own adaptive-conformal learning rate γ' },
          conditioned: { type: 'boolean', description: 'The expert reads only the samples taken in the current chain state' },
          scaled: { type: 'boolean', description: 'The expert reads the samples divided by the going rate when they were quoted, and quotes today’s rate times their quantile' },
        },
        ['window', 'learning_rate', 'conditioned', 'scaled'],
        { description: 'The expert of the learner whose quantile is served', ...closed },
      ),
      state: { type: 'string', enum: ['calm', 'busy'], description: 'The chain state the quote was made in (calm: the newest block was not full)' },
      cutoff_tercile: { type: 'string', enum: ['low', 'mid', 'high', null], nullable: true, description: 'When busy, the tercile of the newest block’s cutoff among the recent full blocks’ cutoffs (the conditioned experts’ finer state); null when calm' },
      level: { type: 'number', description: 'The expert’s own quantile level 1 − α' },
      offset: { type: 'number', description: 'The outer calibration’s correction added to the level' },
      floor_bound: { type: 'boolean', description: 'The floor alone met the promise on the expert’s samples' },
      samples: COUNT('Samples the expert’s quantile was read from'),
    },
    ['expert', 'state', 'cutoff_tercile', 'level', 'offset', 'floor_bound', 'samples'],
    { description: 'Which expert of the learner and which chain state drove a calibrated tier’s price', ...closed },
  ),
  CalibratedEstimateExplain: object(
    {
      as_of: AS_OF,
      source: { type: 'string', enum: ['history', 'no_history'] },
      blocks_ingested: COUNT('Blocks ingested since the estimator started (or last started over)'),
      method: { type: 'string' },
      window: { type: 'integer', minimum: 1 },
      learning_rate: { type: 'number' },
      min_gas_unit_price: INT(),
      tiers: tiers('CalibratedTier', 'The three tiers'),
    },
    ['as_of', 'source', 'blocks_ingested', 'method', 'window', 'learning_rate', 'min_gas_unit_price', 'tiers'],
    { description: 'How the calibrated estimate was derived' },
  ),
  GasExplain: object(
    { aptos: ref('AptosEstimateExplain'), calibrated: ref('CalibratedEstimateExplain') },
    ['aptos', 'calibrated'],
    { description: 'Both estimators’ explanations at the same block, u64 as exact JSON integers' },
  ),
  GasStreamEvent: object(
    {
      block_height: { type: 'string', format: 'uint64', description: 'The block the estimates are as of; also the event id' },
      serves: { type: 'string', enum: ['aptos', 'calibrated'], description: 'Which estimator GET /v1/estimate_gas_price answers from' },
      aptos: ref('GasEstimation'),
      calibrated: ref('GasEstimation'),
    },
    ['block_height', 'serves', 'aptos', 'calibrated'],
    { description: 'The data of one `estimate` event of GET /v1/gas/stream: both estimators’ estimates as of one block', ...closed },
  ),
}
