import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/core/config.js'
import { createCalibratedEstimator } from '../../../src/core/calibrated/calibrated-estimator.js'
import { createEstimator } from '../../../src/core/estimator.js'
import { priceBlock } from '../../../src/core/price-block.js'
import type { BlockInput } from '../../../src/core/block.js'
import { InvalidStrategyError } from '../../../src/replay/errors.js'
import { createGethStrategy } from '../../../src/replay/strategies/geth-strategy.js'
import { parseStrategies } from '../../../src/replay/strategies/parse-strategies.js'
import type { Strategy } from '../../../src/replay/strategies/strategy.js'
import { createTargetStrategy } from '../../../src/replay/strategies/target-strategy.js'
import { SMALL, blk, full, open, syntheticChain } from '../../helpers/replay.js'

const feed = (s: Strategy, blocks: BlockInput[], config = SMALL) => {
  const out = []
  for (const b of blocks) {
    s.ingest(b, priceBlock(b, config))
    const e = s.estimate()
    out.push([e.deprioritized_gas_estimate, e.gas_estimate, e.prioritized_gas_estimate])
  }
  return out
}

describe('geth strategy', () => {
  const geth = (empty: 'last' | 'skip' = 'last', blocks = 20) => createGethStrategy('geth', { blocks, percentiles: { low: 60, market: 60, aggressive: 60 }, empty, min_gas_unit_price: 100 })

  it('answers the floor-index 60th percentile of the per-block cheapest prices', () => {
    // samples 500, 100, 400, 200, 300 → sorted 100..500, index floor(4·60/100) = 2 → 300
    const out = feed(geth(), [open(1, 500), open(2, 100), open(3, 400), open(4, 200), open(5, 300)])
    // each answer bids 1 above the sample: a full block admits only prices above its cheapest
    expect(out.map((x) => x[1])).toEqual([501, 101, 401, 201, 301])
    expect(out.map((x) => x[0])).toEqual([501, 101, 401, 201, 301])
    expect(feed(geth(), [blk(1, [900, 120]), blk(2, [700, 130, 150])]).at(-1)).toEqual([121, 121, 121])
  })

  it('keeps only the last `blocks` samples', () => {
    const out = feed(geth('last', 2), [open(1, 1000), open(2, 100), open(3, 100)])
    expect(out.at(-1)).toEqual([101, 101, 101])
  })

  it('an empty block repeats the previous answer (empty=last) or is left out (empty=skip)', () => {
    const blocks = [open(1, 100), open(2, 300), open(3), open(4), open(5)]
    // last: samples 100, 300, 100 (prev sample after block 2 = sorted[floor(1·0.6)] = 100), 100, 100;
    // the bid is the sample + 1, and an empty block repeats the sample, not the bid (no drift)
    expect(feed(geth('last'), blocks).map((x) => x[1])).toEqual([101, 101, 101, 101, 101])
    const skip = feed(geth('skip'), [open(1, 300), open(2, 500), open(3), open(4)])
    expect(skip.map((x) => x[1])).toEqual([301, 301, 301, 301]) // [300, 500] → index floor(1·0.6) = 0
  })

  it('answers the floor before any sample', () => {
    expect(feed(geth('skip'), [open(1)])).toEqual([[100, 100, 100]])
  })
})

describe('target strategy', () => {
  it('is the core calibrated estimator, block for block, learning from the scoring config', () => {
    const config = resolveConfig({ full_block_txns: 2 })
    const [s] = parseStrategies('target:window=50:lr=0.05:low=4/0.8:market=2/0.85:aggressive=1/0.9', config) as [Strategy]
    const e = createCalibratedEstimator(config, { window: 50, learning_rate: 0.05, deprioritized: { k: 4, q: 0.8 }, regular: { k: 2, q: 0.85 }, prioritized: { k: 1, q: 0.9 } })
    for (const b of syntheticChain(400, 5)) {
      s.ingest(b, priceBlock(b, config))
      e.ingest(b)
      expect(s.estimate()).toEqual(e.estimate())
    }
  })

  it('answers the floor before the first complete k-block window', () => {
    const target = createTargetStrategy('t', { config: SMALL, calibrated: { deprioritized: { k: 3 }, regular: { k: 3 }, prioritized: { k: 3 } }, sweep: false })
    expect(feed(target, [full(1, 500), full(2, 500)])).toEqual([
      [100, 100, 100],
      [100, 100, 100],
    ])
  })

  it('states its promises (defaults 0.9@10, 0.9@3, 0.95@1) and prices a calibration sweep at each promised k', () => {
    const s = parseStrategies('target', SMALL)[0] as Strategy
    expect(s.promises).toEqual([
      { k: 10, q: 0.9 },
      { k: 3, q: 0.9 },
      { k: 1, q: 0.95 },
    ])
    expect(s.sweep.map((p) => p.k)).toEqual([1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 10, 10, 10, 10, 10])
    s.ingest(open(1), priceBlock(open(1), SMALL))
    expect(s.sweepEstimate()).toHaveLength(15)
  })

  it('k=K:q=Q sets every tier; q must be strictly between 0 and 1', () => {
    const [s] = parseStrategies('target:k=2:q=0.8', SMALL) as [Strategy]
    expect(s.promises).toEqual([{ k: 2, q: 0.8 }, { k: 2, q: 0.8 }, { k: 2, q: 0.8 }])
    expect(() => parseStrategies('target:q=1', SMALL)).toThrow(InvalidStrategyError)
    expect(() => parseStrategies('target:lr=0', SMALL)).toThrow(InvalidStrategyError)
  })
})

describe('aptos strategy', () => {
  it('`aptos` is the engine with the given config, block for block', () => {
    const config = resolveConfig({ full_block_txns: 2, low_block_history: 3, market_block_history: 5, aggressive_block_history: 8 })
    const [s] = parseStrategies('aptos', config) as [Strategy]
    const e = createEstimator(config)
    for (const b of syntheticChain(400, 3)) {
      s.ingest(b, priceBlock(b, config))
      e.ingest(b)
      expect(s.estimate()).toEqual(e.estimate())
    }
  })

  it('window keys set the *_block_history values', () => {
    const [, v] = parseStrategies('aptos,aptos:low=5:market=20:aggressive=60', SMALL) as [Strategy, Strategy]
    expect(v.config).toMatchObject({ low_block_history: 5, market_block_history: 20, aggressive_block_history: 60, full_block_txns: 2 })
    const e = createEstimator({ ...SMALL, low_block_history: 5, market_block_history: 20, aggressive_block_history: 60 })
    for (const b of syntheticChain(300, 9)) {
      v.ingest(b, priceBlock(b, SMALL))
      e.ingest(b)
      expect(v.estimate()).toEqual(e.estimate())
    }
  })

  it('percentile keys change the window statistic (market_pct=100 → the window maximum)', () => {
    const [v] = parseStrategies('aptos:market_pct=100:low=2:market=3:aggressive=4', SMALL) as [Strategy]
    // per-block prices (skipping the newest): full@100 → 150, full@300 → 500, open → 100
    feed(v, [full(1, 100), full(2, 300), open(3), open(4)])
    expect(v.estimate().gas_estimate).toBe(500) // max of [150, 500, 100]
    expect(v.config).toMatchObject({ market_percentile: 100, low_percentile: 0, aggressive_percentile: 90 })
  })

  it('scalar config keys pass through (full_block_txns, min_gas_unit_price)', () => {
    const [v] = parseStrategies('aptos:full_block_txns=125:min_gas_unit_price=0', SMALL) as [Strategy]
    expect(v.config).toMatchObject({ full_block_txns: 125, min_gas_unit_price: 0 })
  })
})

describe('strategy list syntax', () => {
  const bad = (list: string, message: RegExp) => expect(() => parseStrategies(list, SMALL)).toThrow(message)

  it('names each strategy by its entry as written', () => {
    expect(parseStrategies(' aptos , geth:blocks=30,target:k=1:q=0.9', SMALL).map((s) => s.name)).toEqual(['aptos', 'geth:blocks=30', 'target:k=1:q=0.9'])
  })

  it('rejects unknown strategies and keys, duplicates, and bad values, naming the entry', () => {
    bad('aptos,nope', /strategy 'nope': unknown strategy 'nope'/)
    bad('aptos,aptos', /strategy 'aptos': listed twice/)
    bad('aptos,', /empty entry/)
    bad('aptos:windo=3', /strategy 'aptos:windo=3': unknown key 'windo' for aptos/)
    bad('aptos:low', /expected KEY=VALUE/)
    bad('aptos:low=200', /strategy 'aptos:low=200': config low_block_history: \(200\) must not exceed aggressive_block_history/)
    bad('aptos:low=3:low_block_history=4', /sets low_block_history a second time/)
    bad('aptos:market_pct=101', /market_pct must be an integer from 0 to 100/)
    bad('geth:empty=maybe', /empty must be 'last' or 'skip'/)
    bad('geth:blocks=0', /blocks must be an integer from 1/)
    bad('target:q=1.5', /q must be a probability strictly between 0 and 1/)
    bad('target:q=0', /q must be a probability/)
    bad('target:market=3', /market must be K\/Q/)
    bad('target:k=0', /k must be an integer from 1/)
    expect(() => parseStrategies('nope', SMALL)).toThrow(InvalidStrategyError)
  })

  it('target keys: k and q set every tier, a tier key overrides one', () => {
    const [t] = parseStrategies('target:k=2:q=0.8:aggressive=1/0.99:window=50:sweep=false', SMALL) as [Strategy]
    expect(t.promises).toEqual([
      { k: 2, q: 0.8 },
      { k: 2, q: 0.8 },
      { k: 1, q: 0.99 },
    ])
    expect(t.sweep).toEqual([])
    expect(t.config).toMatchObject({ window: 50 })
  })
})

/**
 * Plain ACI, written the obvious way: per tier, the newest `window` k-block minimum cutoffs
 * sorted per query, α moved by γ(1 − q − err) k blocks after each quote (clamped as the core
 * clamps, which changes no quote).
 */
function referenceAci(reqs: number[], promises: { k: number; q: number }[], window: number, γ: number, floor: number): number[][] {
  const alpha = promises.map((p) => 1 - p.q)
  const served: number[][] = promises.map(() => [])
  const out: number[][] = []
  for (let j = 0; j < reqs.length; j++) {
    const row: number[] = []
    promises.forEach(({ k, q }, i) => {
      if (j - k >= 0) {
        const m = Math.min(...reqs.slice(j - k + 1, j + 1))
        const err = (served[i] as number[])[j - k] as number >= m ? 0 : 1
        const slack = γ * (k + 1)
        alpha[i] = Math.min(1 + slack, Math.max(-slack, (alpha[i] as number) + γ * (1 - q - err)))
      }
      const minima: number[] = []
      for (let t = Math.max(0, j - k + 1 - window + 1); t + k - 1 <= j; t++) minima.push(Math.max(floor, Math.min(...reqs.slice(t, t + k))))
      minima.sort((a, b) => a - b)
      const need = Math.ceil((1 - (alpha[i] as number)) * minima.length - 1e-9)
      const price = minima.length === 0 || need <= 0 ? floor : (minima[Math.min(minima.length, need) - 1] as number)
      ;(served[i] as number[]).push(price)
      row.push(price)
    })
    out.push(row)
  }
  return out
}

describe('aci strategy', () => {
  it('is plain adaptive conformal inference per tier (equal to a sort-per-query reference)', () => {
    const [s] = parseStrategies('aci:low=4/0.8:market=2/0.9:aggressive=1/0.95:window=30:lr=0.05', SMALL) as [Strategy]
    const chain = [...syntheticChain(300, 11)]
    const reqs = chain.map((b) => {
      const p = priceBlock(b, SMALL)
      return p.full ? Number(p.cheapest_gas_unit_price) + 1 : 0
    })
    const want = referenceAci(reqs, [{ k: 4, q: 0.8 }, { k: 2, q: 0.9 }, { k: 1, q: 0.95 }], 30, 0.05, 100)
    expect(feed(s, chain)).toEqual(want)
  })

  it('defaults to the baseline of issue 20: window 120, γ 0.005, the target tiers\' promises, tiers not ordered', () => {
    const [s] = parseStrategies('aci', SMALL) as [Strategy]
    expect(s.kind).toBe('aci')
    expect(s.config).toMatchObject({ window: 120, learning_rate: 0.005 })
    expect(s.promises).toEqual([
      { k: 10, q: 0.9 },
      { k: 3, q: 0.9 },
      { k: 1, q: 0.95 },
    ])
    expect(s.sweep).toEqual([])
  })

  it('rejects bad keys naming the entry', () => {
    expect(() => parseStrategies('aci:sweep=true', SMALL)).toThrow(/strategy 'aci:sweep=true': unknown key 'sweep' for aci/)
    expect(() => parseStrategies('aci:lr=2', SMALL)).toThrow(/lr must be a number in \(0, 1\]/)
    expect(() => parseStrategies('aci:window=0', SMALL)).toThrow(/window must be an integer from 1/)
  })
})
