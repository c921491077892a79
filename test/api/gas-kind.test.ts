import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { createCalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { stringifyExact } from '../../src/core/wire.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder, pricedChain } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { get, storeOf } from '../helpers/api-server.js'

/** Floors of the server under test: standard 100, encrypted 250 (a config key), high_limit 1,000 (default). */
const CONFIG = { full_block_txns: 3, encrypted_txn_min_price_per_gas_unit: 250 } as const
const CALIBRATED = { window: 30 }
const BLOCKS: BlockJson[] = pricedChain(
  Array.from({ length: 50 }, (_, i) => (i % 9 === 4 ? null : i > 30 ? 300 + ((i * 71) % 600) : 100 + ((i * 17) % 90))),
  new ChainBuilder(),
)
const ref = createCalibratedEstimator(CONFIG, CALIBRATED)
for (const b of BLOCKS) ref.ingest(parseBlockJson(b))
const server = await createServer({ store: storeOf(BLOCKS), estimator: CONFIG, calibrated: CALIBRATED })

const prices = (body: Record<string, { price: number }>) => ['deprioritized', 'regular', 'prioritized'].map((t) => (body[t] as { price: number }).price)

describe('per-kind floors over HTTP (?kind=)', () => {
  it('/v1/gas/estimate?kind=K: every tier at least the kind floor, the standard tier otherwise; no kind is standard', async () => {
    const standard = (await get(server, '/v1/gas/estimate')).json()
    expect((await get(server, '/v1/gas/estimate?kind=standard')).json()).toEqual(standard)
    for (const [kind, floor] of [
      ['encrypted', 250],
      ['high_limit', 1000],
    ] as const) {
      const body = (await get(server, `/v1/gas/estimate?kind=${kind}`)).json()
      expect(prices(body)).toEqual(prices(standard).map((p) => Math.max(p, floor)))
      expect(body.regular.promise).toEqual(standard.regular.promise)
    }
  })

  it('/v1/gas/price and /v1/gas/inclusion answer for the kind', async () => {
    const res = await get(server, '/v1/gas/price?k=3&q=0.5&kind=high_limit')
    expect(res.body).toBe(stringifyExact({ k: 3, q: 0.5, price: ref.priceFor(3, 0.5, 'high_limit'), samples: ref.inclusionProbability(0, 3).samples }))
    expect(res.json().price).toBeGreaterThanOrEqual(1000)
    expect((await get(server, '/v1/gas/inclusion?price=200&k=1&kind=encrypted')).json()).toEqual({ price: 200, k: 1, probability: 0, samples: 30 })
    expect((await get(server, '/v1/gas/inclusion?price=2000&k=1&kind=encrypted')).json()).toEqual((await get(server, '/v1/gas/inclusion?price=2000&k=1')).json())
  })

  it('/v1/estimate_gas_price is the node\'s answer whatever the kind', async () => {
    const plain = await get(server, '/v1/estimate_gas_price')
    expect((await get(server, '/v1/estimate_gas_price?kind=high_limit')).body).toBe(plain.body)
  })

  it.each(['/v1/gas/estimate?kind=turbo', '/v1/gas/price?k=1&q=0.5&kind=Encrypted', '/v1/gas/inclusion?price=100&k=1&kind='])('%s is a 400 naming the parameter', async (url) => {
    const res = await get(server, url)
    expect(expectError(res, 400, 'web_framework_error').message).toMatch(/^failed to parse parameter `kind`: failed to parse "string\(kind\)": expected one of standard, encrypted, high_limit, got ".*"$/)
  })
})
