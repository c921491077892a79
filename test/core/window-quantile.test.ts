import { describe, expect, it } from 'vitest'
import { SCALED_TOP_LEVEL, scaledQuantile, windowQuantile } from '../../src/core/calibrated/window-quantile.js'
import { createWindow } from '../../src/core/window.js'

/** A window holding `values` (pushed in order). */
function windowOf(values: readonly number[]) {
  const w = createWindow(Math.max(1, values.length))
  values.forEach((v, i) => w.push(v, i, v <= 100))
  return w
}

describe('windowQuantile', () => {
  it('is the least held value with at least ⌈level·n⌉ values at or below it, the floor when empty or level ≤ 0, the maximum above 1', () => {
    const w = windowOf([500, 100, 300, 200, 400])
    expect(windowQuantile(w, 0.6, 100)).toBe(300) // 3 of 5
    expect(windowQuantile(w, 0.61, 100)).toBe(400)
    expect(windowQuantile(w, 0.2, 100)).toBe(100)
    expect(windowQuantile(w, 0, 100)).toBe(100)
    expect(windowQuantile(w, 1.3, 100)).toBe(500)
    expect(windowQuantile(createWindow(4), 0.9, 100)).toBe(100)
  })
})

describe('scaledQuantile', () => {
  it('is the going rate times the ratios quantile, rounded up, at least the floor; the plain quantile where the product is not a safe integer', () => {
    const ratios = windowOf([0.5, 1, 1.5, 2])
    const plain = windowOf([150, 300, 450, 600])
    expect(scaledQuantile(ratios, 0.75, 333, plain, 100)).toBe(500) // ⌈1.5 · 333⌉
    expect(scaledQuantile(ratios, 0.25, 100, plain, 120)).toBe(120) // 0.5 · 100 is below the floor
    expect(scaledQuantile(ratios, 0, 333, plain, 100)).toBe(100)
    expect(scaledQuantile(ratios, 0.75, 2 ** 60, plain, 100)).toBe(450)
  })

  it('above the top level is at most the larger of the top-level quote and the largest sample unscaled: one outlying ratio does not set the price', () => {
    // 99 samples at the going rate and one filed against a stale rate, 14 times it (switching chain, seed 5)
    const ratios = windowOf([...Array.from({ length: 99 }, () => 1), 14])
    const plain = windowOf([...Array.from({ length: 99 }, () => 300), 1400])
    expect(SCALED_TOP_LEVEL).toBeLessThan(1)
    expect(scaledQuantile(ratios, 1.02, 600, plain, 100)).toBe(1400) // not 14 · 600 = 8400: the largest requirement held
    expect(scaledQuantile(ratios, 1.02, 2000, plain, 100)).toBe(2000) // a going rate above every sample: the top-level quote
    expect(scaledQuantile(ratios, 1.02, 50, plain, 100)).toBe(700) // 14 · 50 is below every cap: uncapped
    expect(scaledQuantile(ratios, 0.5, 600, plain, 100)).toBe(600)
  })
})
