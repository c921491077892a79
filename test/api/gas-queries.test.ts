import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import type { CalibratedConfigInput } from '../../src/core/calibrated/calibrated-config.js'
import { createCalibratedEstimator, type CalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { stringifyExact } from '../../src/core/wire.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder, pricedChain } from '../helpers/chain-builder.js'
import { expectError, validatorOf } from '../helpers/api-schemas.js'
import { get, storeOf } from '../helpers/api-server.js'

const FULL3 = { full_block_txns: 3 } as const
const WINDOW = 30
const CALIBRATED: CalibratedConfigInput = { window: WINDOW }
const U64_MAX = '18446744073709551615'

/** Cheapest price of block 41: its requirement is BIG + 1, near u64::MAX. */
const BIG = 18446744073709551555n
/** 50 blocks: empty, calm full blocks, a congested stretch and block 41 whose cheapest paid BIG. */
const chain = new ChainBuilder()
const BLOCKS: BlockJson[] = pricedChain(
  Array.from({ length: 50 }, (_, i) => (i % 9 === 4 ? null : i === 41 ? BIG : i > 30 ? 800 + ((i * 71) % 600) : 100 + ((i * 17) % 90))),
  chain,
)

/** A calibrated estimator fed every block: what a server over `BLOCKS` read at startup (its span, 121, covers them all). */
function reference(): CalibratedEstimator {
  const e = createCalibratedEstimator(FULL3, CALIBRATED)
  for (const b of BLOCKS) e.ingest(parseBlockJson(b))
  return e
}

const server = await createServer({ store: storeOf(BLOCKS), estimator: FULL3, calibrated: CALIBRATED })
const ref = reference()

describe('GET /v1/gas/inclusion', () => {
  it('gives the empirical chance of inclusion within k blocks over the window, as the calibrated estimator computes it', async () => {
    for (const [price, k] of [[100, 1], [150, 1], [900, 3], [1400, 10], [101, 30], [200, 31]] as const) {
      const res = await get(server, `/v1/gas/inclusion?price=${price}&k=${k}`)
      expect(res.statusCode).toBe(200)
      const { probability, samples } = ref.inclusionProbability(price, k)
      expect(res.json()).toEqual({ price, k, probability, samples })
      expect(res.headers['x-node-block-height']).toBe('49')
    }
    // k past the window: no submission point has its next k blocks in the window.
    expect((await get(server, '/v1/gas/inclusion?price=100&k=31')).json()).toEqual({ price: 100, k: 31, probability: null, samples: 0 })
    expect((await get(server, '/v1/gas/inclusion?price=150&k=1')).json()).toMatchObject({ samples: WINDOW })
  })

  it('echoes a u64 price exactly and counts it against a requirement near u64::MAX', async () => {
    const res = await get(server, `/v1/gas/inclusion?price=${U64_MAX}&k=1`)
    expect(res.body).toBe(`{"price":${U64_MAX},"k":1,"probability":1,"samples":${WINDOW}}`)
    const below = await get(server, `/v1/gas/inclusion?price=${BIG}&k=1`)
    // BIG itself misses the block that required BIG + 1 (k = 1 is the prioritized tier's horizon: the learner answers)
    const p = (below.json() as { probability: number }).probability
    expect(p).toBe(ref.inclusionProbability(BIG, 1).probability)
    expect(p).toBeLessThan(1)
  })

  it.each([
    ['/v1/gas/inclusion?k=1', 'web_framework_error', 'failed to parse parameter `price`: value is required'],
    ['/v1/gas/inclusion?price=100', 'web_framework_error', 'failed to parse parameter `k`: value is required'],
    ['/v1/gas/inclusion?price=-1&k=1', 'web_framework_error', 'failed to parse parameter `price`: failed to parse "string(uint64)": invalid digit found in string'],
    ['/v1/gas/inclusion?price=18446744073709551616&k=1', 'web_framework_error', 'failed to parse parameter `price`: failed to parse "string(uint64)": number too large to fit in target type'],
    ['/v1/gas/inclusion?price=100&k=70000', 'web_framework_error', 'failed to parse parameter `k`: failed to parse "integer(uint16)": number too large to fit in target type'],
    ['/v1/gas/inclusion?price=100&k=0', 'invalid_input', 'Given k (0) must be from 1 to 10000'],
    ['/v1/gas/inclusion?price=100&k=10001', 'invalid_input', 'Given k (10001) must be from 1 to 10000'],
    ['/v1/gas/inclusion?price=100&price=200&k=1', 'web_framework_error', 'failed to parse parameter `price`: expected one value, got 2'],
  ])('%s is 400 %s', async (url, code, message) => {
    const res = await get(server, url)
    expect(expectError(res, 400, code).message).toBe(message)
    expect(res.headers['x-node-block-height']).toBe('49')
  })
})

describe('GET /v1/gas/price', () => {
  it('gives the least price that met a promise over the window, with its sample count, as the calibrated estimator computes it', async () => {
    for (const [k, q] of [[1, 0.5], [1, 0.9], [3, 0.9], [10, 0.95], [1, 0.999], [30, 0.5]] as const) {
      const res = await get(server, `/v1/gas/price?k=${k}&q=${q}`)
      expect(res.statusCode).toBe(200)
      expect(res.body).toBe(stringifyExact({ k, q, price: ref.priceFor(k, q), samples: ref.inclusionProbability(0, k).samples }))
    }
    // The least price that got into block 41 as well is exact.
    expect((await get(server, '/v1/gas/price?k=1&q=0.99')).body).toBe(`{"k":1,"q":0.99,"price":${BIG + 1n},"samples":${WINDOW}}`)
    expect((await get(server, '/v1/gas/price?k=31&q=0.5')).json()).toEqual({ k: 31, q: 0.5, price: null, samples: 0 })
    expect((await get(server, '/v1/gas/price?k=2&q=.25')).json()).toMatchObject({ q: 0.25 })
  })

  it.each([
    ['/v1/gas/price?k=1', 'web_framework_error', 'failed to parse parameter `q`: value is required'],
    ['/v1/gas/price?q=0.5', 'web_framework_error', 'failed to parse parameter `k`: value is required'],
    ['/v1/gas/price?k=1&q=abc', 'web_framework_error', 'failed to parse parameter `q`: failed to parse "number(double)": invalid float literal'],
    ['/v1/gas/price?k=1&q=1e-3', 'web_framework_error', 'failed to parse parameter `q`: failed to parse "number(double)": invalid float literal'],
    ['/v1/gas/price?k=1&q=-0.5', 'web_framework_error', 'failed to parse parameter `q`: failed to parse "number(double)": invalid float literal'],
    ['/v1/gas/price?k=1&q=', 'web_framework_error', 'failed to parse parameter `q`: failed to parse "number(double)": invalid float literal'],
    ['/v1/gas/price?k=1&q=0', 'invalid_input', 'Given q (0) must be strictly between 0 and 1'],
    ['/v1/gas/price?k=1&q=1', 'invalid_input', 'Given q (1) must be strictly between 0 and 1'],
    ['/v1/gas/price?k=1&q=1.5', 'invalid_input', 'Given q (1.5) must be strictly between 0 and 1'],
    ['/v1/gas/price?k=0&q=0.5', 'invalid_input', 'Given k (0) must be from 1 to 10000'],
  ])('%s is 400 %s', async (url, code, message) => {
    expect(expectError(await get(server, url), 400, code).message).toBe(message)
  })
})

describe('GET /v1/gas/history', () => {
  it('lists the newest blocks as the engine priced them, newest last, u64 as decimal strings; 100 by default, at most the window', async () => {
    const history = ref.history()
    const wire = history.map((b) => ({
      block_height: String(b.block_height),
      epoch: String(b.epoch),
      user_txns: b.user_txns,
      gas_used: String(b.gas_used),
      full: b.full,
      reason: b.reason,
      cheapest_gas_unit_price: b.cheapest_gas_unit_price === null ? null : String(b.cheapest_gas_unit_price),
      min_inclusion_price: String(b.min_inclusion_price),
    }))
    expect(wire.map((b) => b.block_height)).toEqual([...Array(WINDOW).keys()].map((i) => String(50 - WINDOW + i)))
    expect((await get(server, '/v1/gas/history')).json()).toEqual(wire)
    expect((await get(server, '/v1/gas/history?blocks=65535')).json()).toEqual(wire)
    expect((await get(server, '/v1/gas/history?blocks=3')).json()).toEqual(wire.slice(-3))
    const body = (await get(server, '/v1/gas/history?blocks=30')).body
    // Above the top bucket, next_bucket leaves the price as it is.
    expect(body).toContain(`"cheapest_gas_unit_price":"${BIG}","min_inclusion_price":"${BIG}"`)
    expect(body).toContain('"user_txns":0,"gas_used":"0","full":false,"reason":"no_user_txns","cheapest_gas_unit_price":null,"min_inclusion_price":"100"')
    // Three user transactions of the builder's default 7 gas units each.
    expect(body).toContain('"user_txns":3,"gas_used":"21","full":true,"reason":"full_block_txns"')
  })

  it.each([
    ['/v1/gas/history?blocks=0', 'invalid_input', 'Given blocks value (0) must not be zero'],
    ['/v1/gas/history?blocks=ten', 'web_framework_error', 'failed to parse parameter `blocks`: failed to parse "integer(uint16)": invalid digit found in string'],
  ])('%s is 400 %s', async (url, code, message) => {
    expect(expectError(await get(server, url), 400, code).message).toBe(message)
  })
})

describe('GET /v1/gas/explain', () => {
  it('gives both explains at the same block, u64 as exact JSON integers', async () => {
    const res = await get(server, '/v1/gas/explain')
    const body = res.json() as { aptos: { as_of: unknown; tiers: unknown }; calibrated: { as_of: unknown; window: number; tiers: { regular: { promise: unknown } } } }
    expect(body.aptos.as_of).toEqual({ block_height: 49, epoch: 1 })
    expect(body.calibrated.as_of).toEqual({ block_height: 49, epoch: 1 })
    expect(body.calibrated.window).toBe(WINDOW)
    expect(body.calibrated.tiers.regular.promise).toEqual({ k: 3, q: 0.9 })
    expect(res.body).toContain(`,"calibrated":${stringifyExact(ref.explain())}}`)
  })
})

describe('the gas schemas', () => {
  it('accept only exact integer prices in the estimate family and only strings in the history', () => {
    const quote = { price: 100, promise: { k: 1, q: 0.9 }, coverage: { evaluated: 0, included: 0, rate: null }, floor_bound: false }
    const estimate = { as_of: { block_height: 1, epoch: 1 }, deprioritized: quote, regular: quote, prioritized: quote }
    const v = validatorOf('CalibratedGasEstimate')
    expect(v(estimate)).toBe(true)
    expect(v({ ...estimate, as_of: null })).toBe(true)
    expect(v({ ...estimate, regular: { ...quote, price: '100' } })).toBe(false)
    expect(v({ ...estimate, regular: { ...quote, promise: { k: 0, q: 0.9 } } })).toBe(false)
    expect(v({ ...estimate, regular: { ...quote, extra: 1 } })).toBe(false)
    expect(validatorOf('PriceForInclusion')({ k: 1, q: 0.5, price: null, samples: 0 })).toBe(true)
    expect(validatorOf('PriceForInclusion')({ k: 1, q: 0.5, price: 1.5, samples: 0 })).toBe(false)
    expect(validatorOf('InclusionProbability')({ price: 1, k: 1, probability: 1.5, samples: 1 })).toBe(false)
    const block = { block_height: '1', epoch: '1', user_txns: 0, gas_used: '0', full: false, reason: 'no_user_txns', cheapest_gas_unit_price: null, min_inclusion_price: '100' }
    expect(validatorOf('GasHistoryBlock')(block)).toBe(true)
    expect(validatorOf('GasHistoryBlock')({ ...block, block_height: 1 })).toBe(false)
    expect(validatorOf('GasHistoryBlock')({ ...block, reason: 'busy' })).toBe(false)
  })
})
