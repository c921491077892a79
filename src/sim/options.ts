import { InvalidConfigError } from '../core/errors.js'
import type { BlockLimits } from './mempool.js'
import { SCENARIOS, type Scenario } from './scenarios.js'

/** What `generateChain` is asked for. Keys in snake_case as the CLI flags they mirror. */
export interface ChainOptions {
  /** Blocks to generate. */
  blocks: number
  /** Seed of every random choice (a non-negative safe integer). Same options → same bytes. */
  seed: number
  scenario: Scenario
  /** Blocks per epoch; the epoch number rises by one every this many blocks. */
  epoch_blocks: number
  /**
   * Leading epochs whose blocks end with a `state_checkpoint_transaction` (the chain before the
   * block-epilogue feature); later blocks end with a `block_epilogue_transaction`.
   */
  checkpoint_epochs: number
  /** Accounts that send transactions. */
  accounts: number
  /** Validators that propose and vote. */
  validators: number
  first_height: number
  first_version: number
  first_epoch: number
  /** Timestamp of the first block, µs since the Unix epoch. */
  first_timestamp_us: number
  limits: BlockLimits
}

/** Caller input: `blocks` and `seed` are required, the rest (each limit too) defaults. */
export type ChainOptionsInput = Pick<ChainOptions, 'blocks' | 'seed'> &
  Partial<Omit<ChainOptions, 'blocks' | 'seed' | 'limits'>> & { limits?: Partial<BlockLimits> }

/**
 * Block limits of the model. The gas limit is in the same units as `gas_used` (this model takes
 * a transaction's effective block gas to be its `gas_used`); with heavy calls of 300–700 units a
 * congested block stops at ~40–80 of them. 300 txns lets a surge of light transfers pass
 * Aptos' `full_block_txns` (250). The output limit is far above what the workload writes.
 */
export const DEFAULT_LIMITS: Readonly<BlockLimits> = Object.freeze({
  max_block_txns: 300,
  block_gas_limit: 20_000,
  block_output_limit: 3_000_000,
})

/** Defaults of everything but `blocks` and `seed`. */
export const CHAIN_DEFAULTS: Readonly<Omit<ChainOptions, 'blocks' | 'seed'>> = Object.freeze({
  scenario: 'mixed',
  epoch_blocks: 500,
  checkpoint_epochs: 0,
  accounts: 6000,
  validators: 100,
  first_height: 1,
  first_version: 1,
  first_epoch: 1,
  // 2025-06-15T15:06:40Z: a fixed start, never the clock.
  first_timestamp_us: 1_750_000_000_000_000,
  limits: DEFAULT_LIMITS,
})

const MAX_SAFE = Number.MAX_SAFE_INTEGER

function integer(value: unknown, key: string, min: number, max = MAX_SAFE): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidConfigError(key, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return value
}

/**
 * Applies the defaults and checks every value.
 *
 * @throws InvalidConfigError naming the option at fault.
 * @example resolveChainOptions({ blocks: 10, seed: 1 }).epoch_blocks // 500
 */
export function resolveChainOptions(input: ChainOptionsInput): ChainOptions {
  const o = { ...CHAIN_DEFAULTS, ...input, limits: { ...DEFAULT_LIMITS, ...input.limits } }
  if (!SCENARIOS.includes(o.scenario)) {
    throw new InvalidConfigError('scenario', `must be one of ${SCENARIOS.join(', ')}, got ${JSON.stringify(o.scenario)}`)
  }
  return {
    blocks: integer(o.blocks, 'blocks', 0),
    seed: integer(o.seed, 'seed', 0),
    scenario: o.scenario,
    epoch_blocks: integer(o.epoch_blocks, 'epoch_blocks', 1),
    checkpoint_epochs: integer(o.checkpoint_epochs, 'checkpoint_epochs', 0),
    accounts: integer(o.accounts, 'accounts', 1, 10_000_000),
    validators: integer(o.validators, 'validators', 1, 65_536),
    first_height: integer(o.first_height, 'first_height', 0),
    first_version: integer(o.first_version, 'first_version', 0),
    first_epoch: integer(o.first_epoch, 'first_epoch', 0),
    first_timestamp_us: integer(o.first_timestamp_us, 'first_timestamp_us', 0),
    limits: {
      max_block_txns: integer(o.limits.max_block_txns, 'limits.max_block_txns', 1),
      block_gas_limit: integer(o.limits.block_gas_limit, 'limits.block_gas_limit', 1),
      block_output_limit: integer(o.limits.block_output_limit, 'limits.block_output_limit', 1),
    },
  }
}
