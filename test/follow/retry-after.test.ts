import { describe, expect, it } from 'vitest'
import { parseRetryAfter } from '../../src/follow/retry-after.js'

const NOW = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['3', 3000],
    [' 120 ', 120_000],
  ])('delay-seconds %j waits %i ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms)
  })
  it('an HTTP date waits until that date, from the given clock', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', NOW)).toBe(5000)
  })
  it('an HTTP date in the past waits 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', NOW)).toBe(0)
  })
  it.each([null, '', '-1', '1.5', '1e3', 'soon', 'Wed, 99 Foo 2015'])('%j is no instruction (null)', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeNull()
  })
})
