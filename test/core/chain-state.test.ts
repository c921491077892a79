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

  it('reads the going rate as the median cutoff of the newest three full blocks, unchanged by blocks that are not full', () => {
    const c = new ChainStateRing(100, 3)
    expect(c.levelAt(-1)).toBe(100)
    c.push(300, 0)
    c.push(900, 1)
    c.push(0, 2)
    c.push(600, 3)
    expect(c.going).toBe(600)
    expect(c.levelAt(2)).toBe(900) // median of 300 and 900: the upper middle
    c.push(0, 4)
    expect(c.levelAt(4)).toBe(600)
    c.clear()
    expect([c.state, c.going]).toEqual([CALM, 100])
  })
})
