import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import type { CalibratedConfigInput } from '../../src/core/calibrated/calibrated-config.js'
import { createCalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { validatorOf } from '../helpers/api-schemas.js'
import { get, storeOf } from '../helpers/api-server.js'
import { pricedChain } from '../helpers/chain-builder.js'

const FULL3 = { full_block_txns: 3 } as const
const SMALL: CalibratedConfigInput = { deprioritized: { k: 4, q: 0.8 }, regular: { k: 2, q: 0.85 }, prioritized: { k: 1, q: 0.9 }, window: 60 }
const TIERS = ['deprioritized', 'regular', 'prioritized'] as const

/** Calm, a surge with full blocks, calm again: the learner's experts and state both move. */
function prices(n: number): (number | null)[] {
  return Array.from({ length: n }, (_, i) => (i % 7 === 3 ? null : i < 20 ? 100 + (i % 3) * 10 : i < 45 ? 400 + ((i * 37) % 900) : 150 + ((i * 13) % 60)))
}

type Explain = { calibrated: { tiers: Record<(typeof TIERS)[number], Record<string, unknown> & { driver: Record<string, unknown> }> } }

describe('GET /v1/gas/explain: the driver of each calibrated tier', () => {
  it('carries, per tier, the expert and chain state that drove its price, as the estimator explains it', async () => {
    const blocks = pricedChain(prices(70))
    const server = await createServer({ store: storeOf(blocks), estimator: FULL3, calibrated: SMALL })
    try {
      // `get` also holds the body to the GasExplain schema, which requires `driver`
      const res = await get(server, '/v1/gas/explain')
      expect(res.statusCode).toBe(200)
      const body = res.json() as Explain
      const reference = createCalibratedEstimator(FULL3, SMALL)
      for (const b of blocks) reference.ingest(parseBlockJson(b))
      const want = reference.explain().tiers
      for (const tier of TIERS) {
        const driver = body.calibrated.tiers[tier].driver
        expect(driver, tier).toEqual(JSON.parse(JSON.stringify(want[tier].driver)))
        expect(Object.keys(driver).sort()).toEqual(['cutoff_tercile', 'expert', 'floor_bound', 'level', 'offset', 'samples', 'state'])
        expect(Object.keys(driver.expert as object).sort()).toEqual(['conditioned', 'learning_rate', 'scaled', 'window'])
        expect(['calm', 'busy']).toContain(driver.state)
        expect(driver.state === 'calm' ? [null] : ['low', 'mid', 'high']).toContain(driver.cutoff_tercile)
      }
    } finally {
      await server.close()
    }
  })

  it('is required by the published schema, field by field, with no field beyond them', async () => {
    const server = await createServer({ store: storeOf(pricedChain(prices(30))), estimator: FULL3, calibrated: SMALL })
    try {
      const body = (await get(server, '/v1/gas/explain')).json() as Explain
      const valid = validatorOf('GasExplain')
      expect(valid(body)).toBe(true)
      const broken: [string, (b: Explain) => void][] = [
        ['no driver', (b) => delete (b.calibrated.tiers.regular as Record<string, unknown>).driver],
        ['no expert', (b) => delete b.calibrated.tiers.regular.driver.expert],
        ['unknown state', (b) => (b.calibrated.tiers.prioritized.driver.state = 'surging')],
        ['unknown tercile', (b) => (b.calibrated.tiers.prioritized.driver.cutoff_tercile = 'top')],
        ['an extra field', (b) => (b.calibrated.tiers.deprioritized.driver.why = 'x')],
        ['a window of 0', (b) => ((b.calibrated.tiers.regular.driver.expert as { window: number }).window = 0)],
      ]
      for (const [why, breakIt] of broken) {
        const copy = structuredClone(body)
        breakIt(copy)
        expect(valid(copy), why).toBe(false)
      }
      // the served OpenAPI document says so too
      const spec = (await get(server, '/v1/spec.json')).json() as { components: { schemas: Record<string, { required?: string[] }> } }
      expect(spec.components.schemas.CalibratedTier?.required).toContain('driver')
      expect(spec.components.schemas.TierDriver?.required).toEqual(['expert', 'state', 'cutoff_tercile', 'level', 'offset', 'floor_bound', 'samples'])
    } finally {
      await server.close()
    }
  })
})
