import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import type { CalibratedConfigInput } from '../../src/core/calibrated/calibrated-config.js'
import { createCalibratedEstimator, type CalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import type { EstimatorConfigInput } from '../../src/core/config.js'
import { createEstimator } from '../../src/core/estimator.js'
import { gasEstimateToJson, stringifyExact } from '../../src/core/wire.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder, pricedChain } from '../helpers/chain-builder.js'
import { expectError, expectSchema } from '../helpers/api-schemas.js'
import { get, headerNames, storeOf } from '../helpers/api-server.js'

const FULL3 = { full_block_txns: 3 } as const
/** Small promises and window so that a few dozen blocks exercise every tier. */
const SMALL: CalibratedConfigInput = { deprioritized: { k: 4, q: 0.8 }, regular: { k: 2, q: 0.85 }, prioritized: { k: 1, q: 0.9 }, window: 40 }

/** A calibrated estimator fed `blocks` in order: what the server must serve after seeing exactly those blocks. */
function calibratedOf(blocks: readonly BlockJson[], config: EstimatorConfigInput = FULL3, calibrated: CalibratedConfigInput = SMALL): CalibratedEstimator {
  const e = createCalibratedEstimator(config, calibrated)
  for (const b of blocks) e.ingest(parseBlockJson(b))
  return e
}

/** The `/v1/gas/estimate` body a calibrated estimator's state must give, field by field from its `tiers()`. */
function expectedBody(e: CalibratedEstimator): string {
  const newest = e.newest
  const [d, r, p] = e.tiers().map((t) => ({ price: t.price, promise: { k: t.promise.k, q: t.promise.q }, coverage: t.coverage, floor_bound: t.floor_bound }))
  return stringifyExact({ as_of: newest === undefined ? null : { block_height: newest.block_height, epoch: newest.epoch }, deprioritized: d, regular: r, prioritized: p })
}

/** An Aptos estimator fed `blocks`. */
function referenceAptos(blocks: readonly BlockJson[], config: EstimatorConfigInput = FULL3) {
  const e = createEstimator(config)
  for (const b of blocks) e.ingest(parseBlockJson(b))
  return e
}

/** Prices that make the calibrated tiers move: calm, a surge, congestion, calm again. */
function surgePrices(n: number): (number | null)[] {
  return Array.from({ length: n }, (_, i) => (i % 7 === 3 ? null : i < 20 ? 100 + (i % 3) * 10 : i < 45 ? 400 + ((i * 37) % 900) : 150 + ((i * 13) % 60)))
}

describe('GET /v1/gas/estimate', () => {
  it('gives each tier’s price, promise, coverage and floor_bound, equal to a calibrated estimator fed the same blocks, as of the ledger height', async () => {
    const blocks = pricedChain(surgePrices(70))
    const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: { ...SMALL, window: 100 } })
    const res = await get(server, '/v1/gas/estimate')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    for (const h of headerNames()) expect(res.headers[h]).toMatch(/^[0-9]+$/)
    const reference = calibratedOf(blocks, FULL3, { ...SMALL, window: 100 })
    expect(res.body).toBe(expectedBody(reference))
    const body = res.json() as { as_of: { block_height: number }; regular: { promise: unknown; coverage: { evaluated: number }; price: number } }
    expect(body.as_of.block_height).toBe(69)
    expect(res.headers['x-node-block-height']).toBe('69')
    expect(body.regular.promise).toEqual({ k: 2, q: 0.85 })
    // Every quote but the newest k-1 has been settled.
    expect(body.regular.coverage.evaluated).toBe(68)
    expect(body.regular.price).toBeGreaterThan(100)
  })

  it('answers the floor at every tier, floor_bound false and no coverage yet, before the estimators have a block', async () => {
    const store = storeOf(new ChainBuilder().blocks(3))
    store.blockByHeight = () => null // the ledger info has blocks the store cannot return
    const server = await createServer({ store, estimator: { min_gas_unit_price: 120 } })
    const res = await get(server, '/v1/gas/estimate')
    expect(res.statusCode).toBe(200)
    const quote = (k: number, q: number) => ({ price: 120, promise: { k, q }, coverage: { evaluated: 0, included: 0, rate: null }, floor_bound: false })
    expect(res.json()).toEqual({ as_of: null, deprioritized: quote(10, 0.9), regular: quote(3, 0.9), prioritized: quote(1, 0.95) })
  })

  it('keeps u64 prices above 2^53 exact', async () => {
    const big = 9007199254740993n // 2^53 + 1: a double would round it
    const blocks = pricedChain(Array(12).fill(big))
    const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL })
    const res = await get(server, '/v1/gas/estimate')
    expect(res.body).toBe(expectedBody(calibratedOf(blocks)))
    // Full blocks whose cheapest paid 2^53+1 let in only 2^53+2: every tier quotes it.
    expect(res.body).toContain(`"price":${big + 1n},`)
    expect(res.body).not.toContain('"price":9007199254740992')
  })

  it('is 503 on an empty ledger, then serves once blocks arrive', async () => {
    const store = storeOf([])
    const server = await createServer({ store })
    expectError(await get(server, '/v1/gas/estimate'), 503, 'internal_error')
    await server.appendBlock(new ChainBuilder().block())
    expect((await get(server, '/v1/gas/estimate')).statusCode).toBe(200)
  })
})

describe('estimatorMode', () => {
  const blocks = pricedChain(surgePrices(60))

  it('aptos (the default) serves /v1/estimate_gas_price byte for byte as the Aptos engine; calibrated serves the calibrated prices', async () => {
    const aptos = createEstimator(FULL3)
    for (const b of blocks) aptos.ingest(parseBlockJson(b))
    const calibrated = calibratedOf(blocks)
    expect(gasEstimateToJson(aptos.estimate())).not.toBe(gasEstimateToJson(calibrated.estimate()))

    for (const options of [{}, { estimatorMode: 'aptos' as const }]) {
      const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL, ...options })
      expect((await get(server, '/v1/estimate_gas_price')).body).toBe(gasEstimateToJson(aptos.estimate()))
      expect(server.estimate()).toEqual(aptos.estimate())
      expect((await get(server, '/v1/gas/estimate')).body).toBe(expectedBody(calibrated))
    }
    const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL, estimatorMode: 'calibrated' })
    const res = await get(server, '/v1/estimate_gas_price')
    expect(res.body).toBe(gasEstimateToJson(calibrated.estimate()))
    expectSchema('GasEstimation', res.json())
    const tiers = (await get(server, '/v1/gas/estimate')).json() as Record<'deprioritized' | 'regular' | 'prioritized', { price: number }>
    expect(res.json()).toEqual({ deprioritized_gas_estimate: tiers.deprioritized.price, gas_estimate: tiers.regular.price, prioritized_gas_estimate: tiers.prioritized.price })
    // /v1/gas/explain does not depend on the mode.
    const other = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL })
    expect((await get(server, '/v1/gas/explain')).body).toBe((await get(other, '/v1/gas/explain')).body)
  })

  it('calibrated: over a socket and through inject the estimate route sends the same bytes', async () => {
    const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL, estimatorMode: 'calibrated' })
    const origin = await server.listen({ port: 0, host: '127.0.0.1' })
    try {
      const direct = await fetch(`${origin}/v1/estimate_gas_price`)
      const routed = await get(server, '/v1/estimate_gas_price?via=fastify')
      expect(await direct.text()).toBe(routed.body)
      expect(routed.body).toBe(gasEstimateToJson(calibratedOf(blocks).estimate()))
      expect(direct.headers.get('x-node-block-height')).toBe(routed.headers['x-node-block-height'])
    } finally {
      await server.close()
    }
  })
})

describe('both estimators follow the store', () => {
  /** Both explains of a reference pair fed `blocks`: what `/v1/gas/explain` must say. */
  function explainOf(blocks: readonly BlockJson[], calibrated: CalibratedConfigInput = SMALL): string {
    const aptos = createEstimator(FULL3)
    for (const b of blocks) aptos.ingest(parseBlockJson(b))
    return stringifyExact({ aptos: aptos.explain(), calibrated: calibratedOf(blocks, FULL3, calibrated).explain() })
  }

  it('blocks appended through the server move both, one at a time, at the same height', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain(surgePrices(10), chain)
    const server = await createServer({ store: storeOf(first), estimator: FULL3, calibrated: SMALL })
    const all = [...first]
    for (const p of surgePrices(40).slice(10)) {
      const b = pricedChain([p], chain)[0] as BlockJson
      all.push(b)
      await server.appendBlock(b)
      const res = await get(server, '/v1/gas/explain')
      expect(res.body, `block ${b.block_height}`).toBe(explainOf(all))
      expect(res.headers['x-node-block-height']).toBe(b.block_height)
    }
    const body = (await get(server, '/v1/gas/explain')).json() as { aptos: { as_of: unknown }; calibrated: { as_of: unknown; blocks_ingested: number } }
    expect(body.aptos.as_of).toEqual(body.calibrated.as_of)
    expect(body.calibrated.blocks_ingested).toBe(40)
  })

  it('blocks others append to the store are caught up on the next request, continuing from the blocks already in (no restart)', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain(surgePrices(30), chain)
    const store = storeOf(first)
    const server = await createServer({ store, estimator: FULL3, calibrated: SMALL })
    await get(server, '/v1/gas/estimate')
    const more = pricedChain(surgePrices(65).slice(30), chain)
    for (const b of more) store.appendBlock(b)
    const results = await Promise.all(Array.from({ length: 10 }, () => get(server, '/v1/gas/estimate')))
    // 35 new blocks: within the window (40), so read one by one after the 30 already in.
    const want = expectedBody(calibratedOf([...first, ...more]))
    for (const r of results) expect(r.body).toBe(want)
    expect((await get(server, '/v1/gas/explain')).body).toBe(explainOf([...first, ...more]))
  })

  it('startup and a catch-up further behind than the span read only the newest `window` blocks (the larger span), and start the calibrated estimator over from them', async () => {
    const chain = new ChainBuilder()
    const blocks = pricedChain(surgePrices(100), chain)
    const store = storeOf(blocks)
    const read: number[] = []
    const inner = store.blockByHeight.bind(store)
    store.blockByHeight = (h, w) => (read.push(Number(h)), inner(h, w))
    const config = { ...FULL3, low_block_history: 2, market_block_history: 3, aggressive_block_history: 4 } // Aptos span 5, calibrated window 40
    const server = await createServer({ store, estimator: config, calibrated: SMALL })
    expect(read).toEqual([...Array(40).keys()].map((i) => 60 + i))
    const res = await get(server, '/v1/gas/estimate')
    expect(res.body).toBe(expectedBody(calibratedOf(blocks.slice(60), config)))
    // Not what an estimator fed all 100 blocks says: the levels and coverage started with block 60.
    expect(res.body).not.toBe(expectedBody(calibratedOf(blocks, config)))
    const aptos = createEstimator(config)
    for (const b of blocks) aptos.ingest(parseBlockJson(b))
    expect((await get(server, '/v1/estimate_gas_price')).body).toBe(gasEstimateToJson(aptos.estimate()))

    const more = pricedChain(surgePrices(150).slice(100), chain)
    for (const b of more) store.appendBlock(b)
    read.length = 0
    expect((await get(server, '/v1/gas/estimate')).body).toBe(expectedBody(calibratedOf(more.slice(10), config)))
    expect(read).toEqual([...Array(40).keys()].map((i) => 110 + i))
  })

  it('a request never reads the estimators in the middle of a catch-up: it waits for the whole catch-up', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain(surgePrices(5), chain)
    const inner = storeOf(first)
    let release: () => void = () => {}
    let gate: Promise<void> = Promise.resolve()
    let reads = 0
    const slow: LedgerStore = {
      ...inner,
      ledgerInfo: () => inner.ledgerInfo(),
      blockByHeight: async (h, w) => {
        reads++
        await gate
        return inner.blockByHeight(h, w)
      },
      transactionByVersion: (v) => inner.transactionByVersion(v),
      accountTransactions: (a, s, l) => inner.accountTransactions(a, s, l),
      accountSequenceNumber: (a) => inner.accountSequenceNumber(a),
      appendBlock: (b) => inner.appendBlock(b),
      pruneBelow: (v) => inner.pruneBelow(v),
      close: () => inner.close(),
    }
    const server = await createServer({ store: slow, estimator: FULL3, calibrated: SMALL })
    const more = pricedChain(surgePrices(25).slice(5), chain)
    for (const b of more) inner.appendBlock(b)
    gate = new Promise((r) => (release = r))
    const started = reads
    const estimate = get(server, '/v1/estimate_gas_price')
    while (reads === started) await new Promise((r) => setImmediate(r))
    // The catch-up is stuck at its first block read; these queue behind it.
    const explain = get(server, '/v1/gas/explain')
    const history = get(server, '/v1/gas/history?blocks=5')
    await new Promise((r) => setImmediate(r))
    release()
    const all = [...first, ...more]
    expect((await estimate).statusCode).toBe(200)
    expect((await explain).body).toBe(explainOf(all))
    expect(((await history).json() as { block_height: string }[]).map((b) => b.block_height)).toEqual(['20', '21', '22', '23', '24'])
  })

  it('a request that read the ledger before a block the server was appending neither rolls the estimators back nor restarts them', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain(surgePrices(50), chain)
    const inner = storeOf(first)
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => (release = r))
    let appending: () => void = () => {}
    const reached = new Promise<void>((r) => (appending = r))
    const slow: LedgerStore = {
      ...inner,
      ledgerInfo: () => inner.ledgerInfo(),
      blockByHeight: (h, w) => inner.blockByHeight(h, w),
      transactionByVersion: (v) => inner.transactionByVersion(v),
      accountTransactions: (a, s, l) => inner.accountTransactions(a, s, l),
      accountSequenceNumber: (a) => inner.accountSequenceNumber(a),
      appendBlock: async (b) => {
        appending()
        await gate
        inner.appendBlock(b)
      },
      pruneBelow: (v) => inner.pruneBelow(v),
      close: () => inner.close(),
    }
    const config = { ...FULL3, low_block_history: 2, market_block_history: 3, aggressive_block_history: 4 } // span 40, the calibrated window
    const server = await createServer({ store: slow, estimator: config, calibrated: SMALL })
    const next = pricedChain([900], chain)[0] as BlockJson
    const appended = server.appendBlock(next)
    await reached
    // Reads the ledger at height 49, then waits behind the append, which moves the estimators to 50.
    const explain = get(server, '/v1/gas/explain')
    await new Promise((r) => setImmediate(r))
    release()
    await appended
    const res = await explain
    expect(res.headers['x-node-block-height']).toBe('49')
    // Startup read blocks 10..49 (the window); the append added 50; nothing was read again.
    const want = (await get(server, '/v1/gas/explain')).body
    expect(res.body).toBe(want)
    expect(want).toBe(stringifyExact({ aptos: referenceAptos([...first.slice(10), next], config).explain(), calibrated: calibratedOf([...first.slice(10), next], config).explain() }))
  })

  it('a catch-up that fails half-way answers 500 on the gas routes and publishes nothing; healed, it resumes where it stopped', async () => {
    const chain = new ChainBuilder()
    const first = pricedChain(surgePrices(10), chain)
    const store = storeOf(first)
    const server = await createServer({ store, estimator: FULL3, calibrated: SMALL })
    const before = { body: (await get(server, '/v1/gas/estimate')).body, estimate: server.estimate() }
    const more = pricedChain(surgePrices(30).slice(10), chain)
    for (const b of more) store.appendBlock(b)
    let budget = 7
    const inner = store.blockByHeight.bind(store)
    store.blockByHeight = (h, w) => {
      if (budget-- <= 0) throw new Error('SECRET: disk gone')
      return inner(h, w)
    }
    for (const url of ['/v1/gas/estimate', '/v1/gas/explain', '/v1/gas/history', '/v1/gas/inclusion?price=200&k=2', '/v1/gas/price?k=2&q=0.9', '/v1/estimate_gas_price']) {
      expectError(await get(server, url), 500, 'internal_error')
    }
    expect(server.estimate()).toBe(before.estimate)
    budget = Infinity
    const healed = (await get(server, '/v1/gas/estimate')).body
    expect(healed).not.toBe(before.body)
    expect(healed).toBe(expectedBody(calibratedOf([...first, ...more])))
  })
})
