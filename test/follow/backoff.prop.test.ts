import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backoffDelay, DEFAULT_RETRY_POLICY, resolveRetryPolicy, type RetryPolicy } from '../../src/follow/backoff.js'
import { InvalidConfigError } from '../../src/core/errors.js'
import { fcRuns } from '../budget.js'

// Pure arithmetic, so twice the typical budget.
const runs = fcRuns(2)

const policy = fc
  .record({ baseDelayMs: fc.integer({ min: 0, max: 10_000 }), extra: fc.integer({ min: 0, max: 100_000 }) })
  .map(({ baseDelayMs, extra }): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, baseDelayMs, maxDelayMs: baseDelayMs + extra }))

describe('backoffDelay', () => {
  it('lies in [cap/2, cap] with cap = min(maxDelayMs, baseDelayMs * 2^retry)', () => {
    fc.assert(
      fc.property(policy, fc.integer({ min: 0, max: 200 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (p, retry, r) => {
        const cap = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** retry)
        const d = backoffDelay(retry, p, () => r)
        expect(d).toBeGreaterThanOrEqual(Math.floor(cap / 2))
        expect(d).toBeLessThanOrEqual(Math.ceil(cap))
      }),
      { numRuns: runs },
    )
  })
  it('never shrinks from one retry to the next for the same draw (the cap only grows)', () => {
    fc.assert(
      fc.property(policy, fc.integer({ min: 0, max: 100 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (p, retry, r) => {
        expect(backoffDelay(retry + 1, p, () => r)).toBeGreaterThanOrEqual(backoffDelay(retry, p, () => r))
      }),
      { numRuns: runs },
    )
  })
  it('default policy: 0.2, 0.4, 0.8 … 10 s caps, so all 8 retries wait 16.3–32.6 s in total', () => {
    const caps = Array.from({ length: 8 }, (_, i) => backoffDelay(i, DEFAULT_RETRY_POLICY, () => 0.9999999))
    expect(caps).toEqual([200, 400, 800, 1600, 3200, 6400, 10_000, 10_000])
    const floors = Array.from({ length: 8 }, (_, i) => backoffDelay(i, DEFAULT_RETRY_POLICY, () => 0))
    expect(floors.reduce((a, b) => a + b)).toBe(16_300)
  })
  it('a policy with a cap below its base is refused, naming the key', () => {
    expect(() => resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 50 })).toThrow(InvalidConfigError)
    expect(() => resolveRetryPolicy({ retries: -1 })).toThrow(/retry\.retries/)
  })
})
