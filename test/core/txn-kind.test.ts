import { describe, expect, it } from 'vitest'
import { createCalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { resolveConfig } from '../../src/core/config.js'
import { InvalidConfigError } from '../../src/core/errors.js'
import { createEstimator } from '../../src/core/estimator.js'
import { TXN_KINDS, kindFloor } from '../../src/core/txn-kind.js'
import type { BlockInput } from '../../src/core/block.js'

const open = (h: number): BlockInput => ({ block_height: h, epoch: 1, gas_unit_prices: [100] })
const full = (h: number, cheapest: number): BlockInput => ({ block_height: h, epoch: 1, gas_unit_prices: [cheapest, cheapest + 10] })

describe('per-kind floors (Aptos gas schedule v1.47)', () => {
  it('defaults: standard 100, encrypted 200, high_limit 1000; each a config key', () => {
    const c = resolveConfig()
    expect(TXN_KINDS.map((k) => kindFloor(c, k))).toEqual([100, 200, 1000])
    const custom = resolveConfig({ min_gas_unit_price: 50, encrypted_txn_min_price_per_gas_unit: 300, high_limit_txn_min_price_per_gas_unit: '18446744073709551615' })
    expect(TXN_KINDS.map((k) => kindFloor(custom, k))).toEqual([50, 300, 18446744073709551615n])
  })

  it('a bad floor is a config error naming its key', () => {
    expect(() => resolveConfig({ encrypted_txn_min_price_per_gas_unit: -1 })).toThrow(InvalidConfigError)
    expect(() => resolveConfig({ high_limit_txn_min_price_per_gas_unit: 'x' as never })).toThrow(/high_limit_txn_min_price_per_gas_unit/)
    expect(() => kindFloor(resolveConfig(), 'turbo' as never)).toThrow(/kind: must be one of standard, encrypted, high_limit, got "turbo"/)
  })

  it('estimate({ kind }) raises every tier to the kind floor, in both modes; standard is the plain estimate', () => {
    const config = { full_block_txns: 2 }
    const aptos = createEstimator(config)
    const calibrated = createCalibratedEstimator(config, { window: 50 })
    for (let h = 1; h <= 60; h++) {
      const b = h % 3 === 0 ? full(h, 400) : open(h)
      aptos.ingest(b)
      calibrated.ingest(b)
    }
    for (const e of [aptos, calibrated]) {
      const plain = e.estimate()
      expect(e.estimate({ kind: 'standard' })).toBe(plain)
      for (const kind of ['encrypted', 'high_limit'] as const) {
        const floor = kind === 'encrypted' ? 200 : 1000
        const x = e.estimate({ kind })
        expect(x.deprioritized_gas_estimate).toBe(Math.max(floor, plain.deprioritized_gas_estimate as number))
        expect(x.gas_estimate).toBe(Math.max(floor, plain.gas_estimate as number))
        expect(x.prioritized_gas_estimate).toBe(Math.max(floor, plain.prioritized_gas_estimate as number))
      }
    }
  })

  it('the inverse queries for a kind: never priced below its floor; a price below it is never included', () => {
    const e = createCalibratedEstimator({ full_block_txns: 2 }, { window: 50 })
    for (let h = 1; h <= 60; h++) e.ingest(h % 3 === 0 ? full(h, 400) : open(h))
    expect(e.priceFor(3, 0.5, 'high_limit')).toBe(1000)
    expect(e.priceFor(3, 0.5, 'encrypted') as number).toBeGreaterThanOrEqual(200)
    expect(e.priceFor(3, 0.5, 'standard')).toBe(e.priceFor(3, 0.5))
    expect(e.inclusionProbability(150, 1, 'encrypted')).toEqual({ probability: 0, samples: 50 })
    expect(e.inclusionProbability(500, 1, 'encrypted')).toEqual(e.inclusionProbability(500, 1))
    expect(e.inclusionProbability(999, 2, 'high_limit').probability).toBe(0)
  })
})
