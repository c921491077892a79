import { describe, expect, it } from 'vitest'
import { DEFAULT_BUCKETS, nextBucket } from '../../src/core/next-bucket.js'

describe('nextBucket', () => {
  // Vectors from the Aptos reference notes §6.1
  const vectors: [number | bigint, number | bigint][] = [
    [0, 150], [99, 150], [100, 150], [149, 150], [150, 300], [299, 300], [300, 500], [500, 1000],
    [1000, 3000], [3000, 5000], [5000, 10000], [10000, 100000], [100000, 1000000], [999999, 1000000],
    [1000000, 1000000], [2000000, 2000000], [18446744073709551615n, 18446744073709551615n],
  ]
  it.each(vectors)('next_bucket(%s) = %s', (price, expected) => {
    expect(nextBucket(price, DEFAULT_BUCKETS)).toBe(expected)
  })

  it('is the first bucket strictly greater, with custom buckets holding bigints', () => {
    const buckets = [10, 20, 9007199254740993n]
    expect(nextBucket(20, buckets)).toBe(9007199254740993n)
    expect(nextBucket(9007199254740993n, buckets)).toBe(9007199254740993n)
    expect(nextBucket(9007199254740992n, buckets)).toBe(9007199254740993n)
  })
})
