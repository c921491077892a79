import { describe, expect, it } from 'vitest'
import { DEFAULT_CONFIG, resolveConfig } from '../../src/core/config.js'
import { InvalidConfigError } from '../../src/core/errors.js'

function keyOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    if (e instanceof InvalidConfigError) return e.key
    throw e
  }
  return undefined
}

describe('resolveConfig', () => {
  it('applies the Aptos defaults', () => {
    const c = resolveConfig()
    expect(c).toEqual({ ...DEFAULT_CONFIG, buckets: [...DEFAULT_CONFIG.buckets] })
    expect(c.full_block_txns).toBe(250)
    expect([c.low_block_history, c.market_block_history, c.aggressive_block_history]).toEqual([10, 30, 120])
    expect(c.min_gas_unit_price).toBe(100)
  })

  it('rejects what the Aptos sanitizer rejects, naming the key', () => {
    expect(keyOf(() => resolveConfig({ low_block_history: 11, aggressive_block_history: 10, market_block_history: 10 }))).toBe('low_block_history')
    expect(keyOf(() => resolveConfig({ market_block_history: 31, aggressive_block_history: 30 }))).toBe('market_block_history')
    expect(keyOf(() => resolveConfig({ low_block_history: 0 }))).toBe('low_block_history')
    expect(keyOf(() => resolveConfig({ market_block_history: 0 }))).toBe('market_block_history')
    expect(keyOf(() => resolveConfig({ aggressive_block_history: 0 }))).toBe('aggressive_block_history')
  })

  it('rejects buckets that are not strictly ascending, unknown keys and out-of-range u64', () => {
    expect(keyOf(() => resolveConfig({ buckets: [0, 150, 150] }))).toBe('buckets')
    expect(keyOf(() => resolveConfig({ buckets: [] }))).toBe('buckets')
    expect(keyOf(() => resolveConfig({ gas_estimate_full_block_threshold: 3 } as never))).toBe('gas_estimate_full_block_threshold')
    expect(keyOf(() => resolveConfig({ min_gas_unit_price: '18446744073709551616' }))).toBe('min_gas_unit_price')
    expect(keyOf(() => resolveConfig({ min_gas_unit_price: -1 }))).toBe('min_gas_unit_price')
    expect(keyOf(() => resolveConfig({ static_override: { low: 1, market: 2 } as never }))).toBe('static_override.aggressive')
    expect(keyOf(() => resolveConfig({ enabled: 'yes' as never }))).toBe('enabled')
    expect(keyOf(() => resolveConfig({ full_block_txns: 2.5 }))).toBe('full_block_txns')
  })

  it('reads u64 values exactly from decimal strings', () => {
    const c = resolveConfig({ min_gas_unit_price: '18446744073709551615', block_gas_limit: '9007199254740993' })
    expect(c.min_gas_unit_price).toBe(18446744073709551615n)
    expect(c.block_gas_limit).toBe(9007199254740993n)
  })

  it('names the key in the message', () => {
    expect(() => resolveConfig({ market_block_history: 200 })).toThrow(/market_block_history.*aggressive_block_history \(120\)/)
  })
})
