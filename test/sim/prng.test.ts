import { describe, expect, it } from 'vitest'
import { createRng, xoshiro128StarStar } from '../../src/sim/prng.js'

describe('xoshiro128**', () => {
  it('matches the reference output for state [1, 2, 3, 4]', () => {
    // From the reference C implementation (prng.di.unimi.it/xoshiro128starstar.c).
    const rng = xoshiro128StarStar(Uint32Array.of(1, 2, 3, 4))
    expect(Array.from({ length: 6 }, () => rng.u32())).toEqual([11520, 0, 5927040, 70819200, 2031721883, 1637235492])
  })

  it('the same seed and stream give the same numbers; other seeds or streams do not', () => {
    const draw = (seed: number, stream: number) => {
      const r = createRng(seed, stream)
      return Array.from({ length: 8 }, () => r.u32())
    }
    expect(draw(42, 0)).toEqual(draw(42, 0))
    expect(draw(42, 0)).not.toEqual(draw(43, 0))
    expect(draw(42, 0)).not.toEqual(draw(42, 1))
    expect(draw(2 ** 32, 0)).not.toEqual(draw(0, 0))
    expect(draw(Number.MAX_SAFE_INTEGER, 0)).toEqual(draw(Number.MAX_SAFE_INTEGER, 0))
  })

  it('float is in [0, 1) and int(n) in [0, n), roughly uniform', () => {
    const rng = createRng(7)
    const counts = new Array<number>(10).fill(0)
    for (let i = 0; i < 20_000; i++) {
      const f = rng.float()
      expect(f >= 0 && f < 1).toBe(true)
      const k = rng.int(10)
      counts[k]!++
    }
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200)
  })
})
