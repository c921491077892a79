import { describe, expect, it } from 'vitest'
import { ringSize } from '../../src/core/ring-size.js'

describe('ringSize', () => {
  it('is the least power of two at or above n', () => {
    expect([1, 2, 3, 4, 5, 11, 16, 17, 1000].map(ringSize)).toEqual([1, 2, 4, 4, 8, 16, 16, 32, 1024])
  })

  it('masks a slot as the modulo of its size would, past 2^31 too (a ring of 11 blocks needs 16 slots)', () => {
    const size = ringSize(11)
    for (const t of [0, 10, 11, 15, 16, 2 ** 31 + 5, 2 ** 40 + 3]) expect(t & (size - 1)).toBe(t % size)
  })
})
