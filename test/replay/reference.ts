import type { U64 } from '../../src/core/u64.js'
import type { Requirement } from '../../src/core/requirement.js'

/** What the plain reference computes for one track. */
export interface RefScore {
  evaluated: number[]
  included: number[]
  /** Overpayments p − p* of the included evaluations, ascending, per k. */
  overpayment: number[][]
  delay: { included: number; sum_delay: number; max_delay: number; censored: number }
}

/**
 * The scoring rules written the obvious way, over whole arrays: for each t and k, scan blocks
 * t+1..t+k; for each t, scan forward for the first block that includes p. O(N²) — for tests.
 */
export function refScore(reqs: Requirement[], prices: U64[], ks: number[], floor: U64): RefScore {
  const n = reqs.length
  const big = (v: number | bigint) => BigInt(v)
  const out: RefScore = { evaluated: ks.map(() => 0), included: ks.map(() => 0), overpayment: ks.map(() => []), delay: { included: 0, sum_delay: 0, max_delay: 0, censored: 0 } }
  for (let t = 0; t < n; t++) {
    const p = big(prices[t] as U64)
    ks.forEach((k, x) => {
      if (t + k > n - 1) return
      out.evaluated[x]!++
      let hit = false
      let least: bigint | null = null
      for (let j = t + 1; j <= t + k; j++) {
        const r = big(reqs[j] as Requirement)
        if (p > r - 1n) hit = true // p >= r, i.e. not full (r = 0) or p > cheapest (r = cheapest + 1)
        if (least === null || r < least) least = r
      }
      if (hit) {
        out.included[x]!++
        const pStar = (least as bigint) < big(floor) ? big(floor) : (least as bigint)
        out.overpayment[x]!.push(Number(p - pStar))
      }
    })
    let j = t + 1
    while (j < n && p < big(reqs[j] as Requirement)) j++
    if (j < n) {
      out.delay.included++
      out.delay.sum_delay += j - t
      out.delay.max_delay = Math.max(out.delay.max_delay, j - t)
    } else out.delay.censored++
  }
  for (const o of out.overpayment) o.sort((a, b) => a - b)
  return out
}

/**
 * The cost-coverage frontier written the obvious way: a point is on it iff no other point is at
 * least as good on both counts (coverage up, overpayment down) and better on one; equal points
 * once; by coverage ascending. O(n²) — for tests.
 */
export function refFrontier<P extends { coverage: number; overpayment: number }>(points: readonly P[]): P[] {
  const beaten = (p: P) => points.some((o) => o.coverage >= p.coverage && o.overpayment <= p.overpayment && (o.coverage > p.coverage || o.overpayment < p.overpayment))
  const seen = new Set<string>()
  const kept: P[] = []
  for (const p of points) {
    const key = `${p.coverage}|${p.overpayment}`
    if (beaten(p) || seen.has(key)) continue
    seen.add(key)
    kept.push(p)
  }
  return kept.sort((a, b) => a.coverage - b.coverage)
}
