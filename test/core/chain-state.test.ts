import { describe, expect, it } from 'vitest'
import { BUSY_HIGH, BUSY_LOW, BUSY_MID, CALM, ChainStateRing } from '../../src/core/calibrated/chain-state.js'

describe('ChainStateRing', () => {
  it('names a full block by the tercile of its cutoff among the recent full blocks, a block that is not full calm', () => {
    const c = new ChainStateRing(100, 4)
    // too few full blocks for terciles: the middle one
    c.push(500, 0)
    expect(c.state).toBe(BUSY_MID)
    c.push(0, 1)
    expect(c.state).toBe(CALM)
    for (let j = 2; j < 32; j++) c.push(200 + 10 * j, j) // cutoffs 220…510 (and 500)
    c.push(150, 32)
    expect(c.state).toBe(BUSY_LOW)
    c.push(380, 33)
    expect(c.state).toBe(BUSY_MID)
    c.push(5000, 34)
    expect(c.state).toBe(BUSY_HIGH)
    // the ring keeps the last `span` blocks' states
    expect([c.stateAt(32), c.stateAt(33), c.stateAt(34), c.stateAt(-1)]).toEqual([BUSY_LOW, BUSY_MID, BUSY_HIGH, CALM])
  })

  it('reads the going rate as a running geometric mean of full blocks\' cutoffs, half way to each new one, unchanged by blocks that are not full', () => {
    const c = new ChainStateRing(100, 3)
    expect(c.levelAt(-1)).toBe(100)
    c.push(300, 0)
    expect(c.going).toBeCloseTo(300, 9)
    c.push(900, 1)
    c.push(0, 2)
    expect(c.levelAt(2)).toBeCloseTo(Math.sqrt(300 * 900), 9)
    c.push(600, 3)
    expect(c.going).toBeCloseTo(Math.sqrt(Math.sqrt(300 * 900) * 600), 9)
    c.push(0, 4)
    expect(c.levelAt(4)).toBe(c.levelAt(3))
    c.clear()
    expect([c.state, c.going, c.predictive]).toEqual([CALM, 100, false])
  })

  it('says the going rate predicts a market whose level moves, and not one whose blocks draw their own level', () => {
    // a level that climbs 0.2% a block with ±5% scatter: the newest blocks say more than a slow mean
    const moving = new ChainStateRing(100, 3)
    for (let j = 0; j < 600; j++) moving.push(Math.round(1000 * Math.exp(0.002 * j) * (0.95 + 0.1 * (((j * 7919) % 101) / 100))), j)
    expect(moving.predictive).toBe(true)
    // each block's level drawn on its own (a factor up to 3 apart): a mean of a few blocks misses by more than a slow one
    const independent = new ChainStateRing(100, 3)
    for (let j = 0; j < 600; j++) independent.push(Math.round(1000 * Math.exp(1.1 * (((j * 7919) % 101) / 100 - 0.5))), j)
    expect(independent.predictive).toBe(false)
  })
})
