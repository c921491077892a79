import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { createEstimator } from '../../src/core/estimator.js'
import type { EstimatorConfigInput } from '../../src/core/config.js'
import { gasEstimateToJson } from '../../src/core/wire.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder, pricedChain } from '../helpers/chain-builder.js'
import { expectSchema } from '../helpers/api-schemas.js'
import { get, headerNames, serverOf, storeOf } from '../helpers/api-server.js'

/** The estimate of a plain estimator fed every block: what the server must serve. */
function reference(blocks: readonly BlockJson[], config: EstimatorConfigInput = {}): string {
  const e = createEstimator(config)
  for (const b of blocks) e.ingest(parseBlockJson(b))
  return gasEstimateToJson(e.estimate())
}

const FULL3 = { full_block_txns: 3 } as const

describe('GET /v1/estimate_gas_price', () => {
  it('returns the default {min, min, next_bucket(min)} on a chain of empty blocks (T1)', async () => {
    const server = await serverOf(new ChainBuilder().blocks(11))
    const res = await get(server, '/v1/estimate_gas_price')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.body).toBe('{"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}')
    expectSchema('GasEstimation', res.json())
    for (const h of headerNames()) expect(res.headers[h]).toMatch(/^[0-9]+$/)
  })

  it('gives {150, 150, 300} after 11 full blocks at price 100 (T2, newest block skipped)', async () => {
    const server = await serverOf(pricedChain(Array(11).fill(100)), { estimator: FULL3 })
    expect((await get(server, '/v1/estimate_gas_price')).json()).toEqual({ deprioritized_gas_estimate: 150, gas_estimate: 150, prioritized_gas_estimate: 300 })
  })

  it('returns a static override verbatim, exact at 2^64-1 (T4)', async () => {
    const max = '18446744073709551615'
    const server = await serverOf(pricedChain([100, 100]), { estimator: { static_override: { low: max, market: max, aggressive: max } } })
    const res = await get(server, '/v1/estimate_gas_price')
    expect(res.body).toBe(`{"deprioritized_gas_estimate":${max},"gas_estimate":${max},"prioritized_gas_estimate":${max}}`)
    const other = await serverOf([], { store: storeOf(pricedChain([1])), estimator: { static_override: { low: 100, market: 200, aggressive: 300 } } })
    expect((await get(other, '/v1/estimate_gas_price')).body).toBe('{"deprioritized_gas_estimate":100,"gas_estimate":200,"prioritized_gas_estimate":300}')
  })

  it('keeps u64 prices above 2^53 exact end to end', async () => {
    const big = 9007199254740993n // 2^53 + 1: a double would round it
    const config = { ...FULL3, min_gas_unit_price: String(big), buckets: [0, 150, String(big * 2n), '18446744073709551615'] }
    const empty = await serverOf(new ChainBuilder().blocks(5), { estimator: config })
    expect((await get(empty, '/v1/estimate_gas_price')).body).toBe(`{"deprioritized_gas_estimate":${big},"gas_estimate":${big},"prioritized_gas_estimate":${big * 2n}}`)
    // Full blocks whose cheapest txn paid 2^53+1 price at the next bucket, 2^54+2, and p90 above it at u64::MAX.
    const chain = new ChainBuilder()
    const blocks = Array.from({ length: 6 }, (_, i) => chain.block({ users: [{ sender: 1, gas_unit_price: big }, { sender: 2 + i, gas_unit_price: big + 1n }, { sender: 100 + i, gas_unit_price: big }] }))
    const full = await serverOf(blocks, { estimator: config })
    const body = (await get(full, '/v1/estimate_gas_price')).body
    expect(body).toBe(`{"deprioritized_gas_estimate":${big * 2n},"gas_estimate":${big * 2n},"prioritized_gas_estimate":18446744073709551615}`)
    expect(body).toBe(reference(blocks, config))
  })

  it('answers the default when the estimator is disabled (T3)', async () => {
    const server = await serverOf(pricedChain(Array(11).fill(100)), { estimator: { ...FULL3, enabled: false } })
    expect((await get(server, '/v1/estimate_gas_price')).body).toBe('{"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}')
  })

  it('equals an estimator fed every block, though startup reads only the newest 121 (calibrated window below that)', async () => {
    const prices = Array.from({ length: 400 }, (_, i) => (i % 5 === 0 ? null : [100, 160, 320, 700, 2000][(i * 7) % 5] as number))
    const blocks = pricedChain(prices)
    const store = storeOf(blocks)
    const read: number[] = []
    const inner = store.blockByHeight.bind(store)
    store.blockByHeight = (h, w) => (read.push(Number(h)), inner(h, w))
    const server = await createServer({ store, estimator: FULL3, calibrated: { window: 50 } })
    expect(read).toEqual([...Array(121).keys()].map((i) => 279 + i))
    expect((await get(server, '/v1/estimate_gas_price')).body).toBe(reference(blocks, FULL3))
  })

  it('follows blocks appended through the server, one at a time', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(pricedChain([100, 100], chain))
    const server = await createServer({ store, estimator: FULL3 })
    const all = pricedChain([100, 100], new ChainBuilder())
    const prices = [300, 300, 2000, null, 150, 5000, 100]
    for (const p of prices) {
      const b = pricedChain([p], chain)[0] as BlockJson
      all.push(pricedChain([p], new ChainBuilder({ height: all.length, version: Number(b.first_version) }))[0] as BlockJson)
      await server.appendBlock(b)
      const res = await get(server, '/v1/estimate_gas_price')
      expect(res.body).toBe(reference(all, FULL3))
      expect(res.headers['x-node-block-height']).toBe(b.block_height)
      expect(server.estimate()).toEqual(JSON.parse(res.body))
    }
  })

  it('catches up on the next request when others append to the store directly', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain([100, 100, 100], chain)
    const store = storeOf(first)
    const server = await createServer({ store, estimator: FULL3 })
    const before = (await get(server, '/v1/estimate_gas_price')).body
    const more = pricedChain([3000, 3000, 3000, 3000, 3000], chain)
    for (const b of more) store.appendBlock(b)
    const results = await Promise.all(Array.from({ length: 20 }, () => get(server, '/v1/estimate_gas_price')))
    const want = reference([...first, ...more], FULL3)
    expect(want).not.toBe(before)
    for (const r of results) expect(r.body).toBe(want)
  })

  it('catches up by rebuilding when far behind (more than the history window)', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain([100], chain)
    const store = storeOf(first)
    const config = { ...FULL3, low_block_history: 2, market_block_history: 3, aggressive_block_history: 4 }
    const server = await createServer({ store, estimator: config, calibrated: { window: 3 } })
    const more = pricedChain([300, 500, null, 1000, 300, 3000, 150, 150, 150], chain)
    for (const b of more) store.appendBlock(b)
    expect((await get(server, '/v1/estimate_gas_price')).body).toBe(reference([...first, ...more], config))
  })

  it('counts only the current epoch, as the node does', async () => {
    const chain = new ChainBuilder()
    const blocks = pricedChain(Array(6).fill(1000), chain)
    chain.epoch = 2n
    blocks.push(...pricedChain([100, 100], chain))
    const server = await serverOf(blocks, { estimator: FULL3 })
    const res = await get(server, '/v1/estimate_gas_price')
    expect(res.body).toBe(reference(blocks, FULL3))
    expect(res.json()).toEqual({ deprioritized_gas_estimate: 150, gas_estimate: 150, prioritized_gas_estimate: 300 })
    expect(res.headers['x-node-epoch']).toBe('2')
  })

  it('appendBlock refuses a block the engine cannot read and leaves the store untouched', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(pricedChain([100], chain))
    const server = await createServer({ store })
    const bad = structuredClone(chain.block({ users: [{ sender: 1 }] })) as BlockJson
    ;(bad.transactions[1] as { gas_unit_price: string }).gas_unit_price = 'lots'
    await expect(server.appendBlock(bad)).rejects.toBeInstanceOf(InvalidBlockError)
    expect(store.ledgerInfo()?.block_height).toBe(0)
    // The store's own refusal (a gap) surfaces too, and the server keeps serving.
    const gap = new ChainBuilder({ height: 5, version: 1000 }).block()
    await expect(server.appendBlock(gap)).rejects.toThrow(/gap/)
    expect((await get(server, '/v1/estimate_gas_price')).statusCode).toBe(200)
  })
})
