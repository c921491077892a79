import fc from 'fast-check'
import { fcRuns } from '../budget.js'
import type { BlockInput } from '../../src/core/block.js'
import type { EstimatorConfigInput } from '../../src/core/config.js'
import { U64_MAX } from '../../src/core/u64.js'
import type { RefBlock, RefConfig } from './reference.js'

/** Runs of a typical property (see test/budget.ts). */
export const NUM_RUNS = fcRuns()

const big = (n: number | bigint) => BigInt(n)

/** u64 values biased to the interesting ones: bucket edges, 2^53 edges, 2^64-1. */
export const u64Arb = fc.oneof(
  fc.constantFrom(0n, 99n, 100n, 101n, 149n, 150n, 151n, 999999n, 1000000n, 1000001n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, U64_MAX - 1n, U64_MAX),
  fc.bigInt({ min: 0n, max: 2000n }),
  fc.bigInt({ min: 0n, max: U64_MAX }),
)

const ADDRS = ['0x' + 'a1'.repeat(32), '0x' + 'b2'.repeat(32)]

export interface Case {
  config: EstimatorConfigInput
  ref: RefConfig
  blocks: { input: BlockInput; ref: RefBlock }[]
}

/** A canonical u64 as the engine takes it (number when safe). */
export const toInput = (v: bigint): number | bigint => (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v)

export const configArb = fc
  .record({
    aggressive: fc.integer({ min: 1, max: 24 }),
    lowFrac: fc.double({ min: 0, max: 1, noNaN: true }),
    marketFrac: fc.double({ min: 0, max: 1, noNaN: true }),
    full_block_txns: fc.integer({ min: 1, max: 6 }),
    min: fc.oneof(fc.constantFrom(0n, 100n), u64Arb),
    buckets: fc.oneof(fc.constant(null), fc.uniqueArray(u64Arb, { minLength: 1, maxLength: 8, comparator: (a, b) => a === b })),
    gasLimit: fc.option(fc.bigInt({ min: 0n, max: 50n }), { nil: null }),
    reorder: fc.boolean(),
    skip: fc.boolean(),
    keep: fc.boolean(),
    endInfo: fc.constantFrom(true, true, true, false),
    enabled: fc.constantFrom(true, true, true, true, true, true, true, true, true, false),
    override: fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(u64Arb, u64Arb, u64Arb) }),
  })
  .map((r) => {
    const low = Math.max(1, Math.ceil(r.lowFrac * r.aggressive))
    const market = Math.max(1, Math.ceil(r.marketFrac * r.aggressive))
    const buckets = r.buckets === null ? [0n, 150n, 300n, 500n, 1000n, 3000n, 5000n, 10000n, 100000n, 1000000n] : [...r.buckets].sort((a, b) => (a < b ? -1 : 1))
    const ref: RefConfig = {
      enabled: r.enabled,
      static_override: r.override === null ? null : { low: r.override[0], market: r.override[1], aggressive: r.override[2] },
      full_block_txns: r.full_block_txns,
      low_block_history: low,
      market_block_history: market,
      aggressive_block_history: r.aggressive,
      min_gas_unit_price: r.min,
      buckets,
      block_gas_limit: r.gasLimit,
      incorporate_reordering_effects: r.reorder,
      skip_newest_block: r.skip,
      keep_history_across_epochs: r.keep,
      apply_block_end_info: r.endInfo,
    }
    const config: EstimatorConfigInput = {
      enabled: r.enabled,
      static_override: ref.static_override === null ? null : { low: String(ref.static_override.low), market: String(ref.static_override.market), aggressive: String(ref.static_override.aggressive) },
      full_block_txns: r.full_block_txns,
      low_block_history: low,
      market_block_history: market,
      aggressive_block_history: r.aggressive,
      min_gas_unit_price: String(r.min),
      buckets: buckets.map(String),
      block_gas_limit: r.gasLimit === null ? null : String(r.gasLimit),
      incorporate_reordering_effects: r.reorder,
      skip_newest_block: r.skip,
      keep_history_across_epochs: r.keep,
      apply_block_end_info: r.endInfo,
    }
    return { config, ref }
  })

const txnArb = (priceArb: fc.Arbitrary<bigint>) =>
  fc.record({ price: priceArb, gas: fc.bigInt({ min: 0n, max: 20n }), contract: fc.constantFrom(null, null, ...ADDRS) })

export const blockSpecArb = (priceArb: fc.Arbitrary<bigint> = u64Arb) =>
  fc.record({
    gap: fc.integer({ min: 1, max: 3 }),
    epochStep: fc.integer({ min: 0, max: 39 }).map((x) => (x === 0 ? 1 : 0)),
    txns: fc.array(txnArb(priceArb), { maxLength: 8 }),
    endInfo: fc.option(fc.record({ block_gas_limit_reached: fc.boolean(), block_output_limit_reached: fc.boolean() }), { freq: 3, nil: null }),
  })

export type BlockSpec = fc.Arbitrary<ReturnType<typeof blockSpecArb>> extends fc.Arbitrary<infer T> ? T : never

/** Turns generated specs into consecutive blocks (engine input and reference form). */
export function buildBlocks(specs: { gap: number; epochStep: number; txns: { price: bigint; gas: bigint; contract: string | null }[]; endInfo: RefBlock['endInfo'] }[]): Case['blocks'] {
  let height = 0n
  let epoch = 1n
  return specs.map((s) => {
    height += big(s.gap)
    epoch += big(s.epochStep)
    const ref: RefBlock = {
      height,
      epoch,
      prices: s.txns.map((t) => t.price),
      gasUsed: s.txns.map((t) => t.gas),
      contracts: s.txns.map((t) => t.contract),
      endInfo: s.endInfo,
    }
    const input: BlockInput = {
      block_height: String(height),
      epoch: String(epoch),
      gas_unit_prices: ref.prices.map(toInput),
      gas_used: ref.gasUsed.map(toInput),
      contract_addresses: ref.contracts,
      block_end_info: s.endInfo,
    }
    return { input, ref }
  })
}
