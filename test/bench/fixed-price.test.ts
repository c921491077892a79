import { describe, expect, it } from 'vitest'
import { fixedPriceBar, stateBar, stateBarOutOfSample } from '../../bench/calibration.js'

describe('the bar of fixed prices in hindsight (bench/calibration.ts)', () => {
  // k = 1: the minimum over the next block is that block's requirement (blocks 1..10):
  // eight 0s, 301 and 501. Floor 100: price 100 includes 8 overpaying 0; 301 includes 9
  // overpaying 8·201 = 1608; 501 includes all 10 overpaying 8·401 + 200 = 3408.
  const reqs = [0, 0, 0, 0, 0, 0, 0, 0, 501, 301, 0]

  it('mixes two fixed prices when the mix is cheaper than either alone', () => {
    // q 0.9 needs 8.9 inclusions: 10% at 100 and 90% at 301 overpay 0.9·1608 over 8.9 included
    const bar = fixedPriceBar(reqs, 100, { k: 1, q: 0.9 })
    expect(bar).toMatchObject({ low: 100, high: 301 })
    expect(bar.low_share).toBeCloseTo(0.1, 12)
    expect(bar.coverage).toBeCloseTo(0.89, 12)
    expect(bar.overpayment).toBeCloseTo((0.9 * 1608) / 8.9, 9)
    expect(bar.overpayment as number).toBeLessThan(1608 / 9)
  })

  it('covers exactly q when given no coverage to give up', () => {
    // q 0.9 needs 9 inclusions: 301 alone includes 9, overpaying 1608
    expect(fixedPriceBar(reqs, 100, { k: 1, q: 0.9 }, 0)).toEqual({ low: 301, high: 301, low_share: 0, coverage: 0.9, overpayment: 1608 / 9 })
    // q 0.95 needs 9.5: half the blocks at 301 and half at 501
    const bar = fixedPriceBar(reqs, 100, { k: 1, q: 0.95 }, 0)
    expect(bar).toMatchObject({ low: 301, high: 501, low_share: 0.5 })
    expect(bar.coverage).toBeCloseTo(0.95, 12)
    expect(bar.overpayment).toBeCloseTo((0.5 * 1608 + 0.5 * 3408) / 9.5, 9)
  })

  it('is the floor alone, paying nothing, when the floor covers q − 1 point', () => {
    expect(fixedPriceBar(reqs, 100, { k: 1, q: 0.8 })).toEqual({ low: 100, high: 100, low_share: 0, coverage: 0.8, overpayment: 0 })
  })

  it('takes the minimum over the k blocks after each block', () => {
    // k = 2: min(req[t+1], req[t+2]) for t = 0..8 is 301 at t = 7 only; q 0.95 needs 8.46 of 9
    const bar = fixedPriceBar(reqs, 100, { k: 2, q: 0.95 })
    expect(bar).toMatchObject({ low: 100, high: 301 })
    expect(bar.coverage).toBeCloseTo(0.94, 12)
    expect(fixedPriceBar([5, 7], 1, { k: 3, q: 0.9 }).overpayment).toBeNull()
  })
})

describe('the state-conditioned bar in hindsight (bench/calibration.ts)', () => {
  // k = 1, floor 100; after blocks 0..4 the chain is in state 0, after 5..9 in state 1. The next
  // block's requirement: state 0 sees four 0s and 200, state 1 four 0s and 1000.
  const reqs = [0, 0, 0, 0, 0, 200, 0, 0, 0, 0, 1000]
  const states = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]

  it('prices each state where one more inclusion costs the same, not at one common level', () => {
    // 9 of 10 inclusions: state 0 at 200 (4 overpay 100 each) and state 1 at the floor. One price
    // for all (the fixed-price bar) pays 200 on all 9 blocks it includes: 800 over 9
    expect(stateBar(reqs, states, 100, { k: 1, q: 0.9 })).toEqual({ coverage: 0.9, overpayment: 400 / 9 })
    expect(fixedPriceBar(reqs, 100, { k: 1, q: 0.9 }, 0).overpayment).toBeCloseTo(800 / 9, 9)
    // 9.5: then half of state 1's blocks at 1000, its 4 floor blocks overpaying 900 each
    const bar = stateBar(reqs, states, 100, { k: 1, q: 0.95 })
    expect(bar.coverage).toBeCloseTo(0.95, 12)
    expect(bar.overpayment).toBeCloseTo((400 + 0.5 * 3600) / 9.5, 9)
  })

  it('is the fixed-price bar at q when the chain stays in one state', () => {
    const one = [0, 0, 0, 0, 0, 0, 0, 0, 501, 301, 0]
    for (const q of [0.9, 0.95]) {
      const bar = stateBar(one, one.map(() => 3), 100, { k: 1, q })
      expect(bar.overpayment).toBeCloseTo(fixedPriceBar(one, 100, { k: 1, q }, 0).overpayment as number, 9)
    }
    expect(stateBar([5, 7], [0, 0], 1, { k: 3, q: 0.9 })).toEqual({ coverage: null, overpayment: null })
  })
})

describe('the state-conditioned bar out of sample (bench/calibration.ts)', () => {
  it('is the in-sample bar when the two halves of the run are alike', () => {
    // the same ten blocks twice, in the same states: the allocation fitted on one half is the other's
    const half = [0, 0, 0, 0, 200, 0, 0, 0, 0, 1000]
    const halfStates = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    const reqs = [0, ...half, ...half]
    const states = [...halfStates, ...halfStates, 1]
    for (const q of [0.9, 0.95]) {
      const oos = stateBarOutOfSample(reqs, states, 100, { k: 1, q })
      const inSample = stateBar(reqs, states, 100, { k: 1, q })
      expect(oos.coverage).toBeCloseTo(q, 12)
      expect(oos.overpayment).toBeCloseTo(inSample.overpayment as number, 9)
    }
  })

  it('pays for an allocation that fitted the noise of the half it was fitted on', () => {
    // k = 1, floor 100. First half: the dear block (1000) follows a state-0 block; second half: a state-1 block.
    const reqs = [0, 0, 0, 0, 0, 1000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1000]
    const states = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    // in sample each state has nine floor blocks and one at 1000: 19 of 20 need one state at 1000, its 9 floor blocks overpaying 900
    expect(stateBar(reqs, states, 100, { k: 1, q: 0.95 }).overpayment).toBeCloseTo(8100 / 19, 9)
    // fitted on the first half, state 0 is raised to 1000 (5 floor blocks of the second half overpay 900, none more
    // included); then every state at the run's largest minimum, half of the way: state 1's 4 floor blocks overpay 900
    // on half the blocks. 9.5 inclusions and 4500 + 1800 overpaid in each half.
    const oos = stateBarOutOfSample(reqs, states, 100, { k: 1, q: 0.95 })
    expect(oos.coverage).toBeCloseTo(0.95, 12)
    expect(oos.overpayment).toBeCloseTo(12600 / 19, 9)
  })

  it('has nothing to score on a run too short for the horizon', () => {
    expect(stateBarOutOfSample([5, 7], [0, 0], 1, { k: 3, q: 0.9 })).toEqual({ coverage: null, overpayment: null })
  })
})
