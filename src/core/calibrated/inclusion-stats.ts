import { cutoffPrice, type Requirement } from '../requirement.js'
import type { U64 } from '../u64.js'

/** The empirical chance that a price would have been included within k blocks. */
export interface InclusionProbability {
  /** Share of the recent submission points at which the price was included within k blocks, or `null` with no sample. */
  probability: number | null
  /** Submission points counted (blocks t whose next k blocks are known). */
  samples: number
}

/** The empirical wait of a price, in blocks. */
export interface ExpectedWait {
  /** Mean blocks until inclusion over the submission points where it was included, or `null` when it never was. */
  blocks: number | null
  /** Submission points where the price was included before the data ended. */
  samples: number
  /** Submission points still waiting when the data ended (left out of the mean). */
  censored: number
}

/**
 * The minima of every k consecutive requirements, oldest first: out[t] = min(reqs[t..t+k−1]).
 * Monotone deque, O(n).
 */
export function kBlockMinima(reqs: readonly Requirement[], k: number): Requirement[] {
  const out: Requirement[] = []
  const dq: number[] = []
  let head = 0
  for (let j = 0; j < reqs.length; j++) {
    const v = reqs[j] as Requirement
    while (dq.length > head && (reqs[dq[dq.length - 1] as number] as Requirement) >= v) dq.pop()
    dq.push(j)
    if ((dq[head] as number) <= j - k) head++
    if (j >= k - 1) out.push(reqs[dq[head] as number] as Requirement)
  }
  return out
}

/**
 * P(included within k | price), read off the recorded requirements (oldest first): the share of
 * submission points t (right after block t−1, the first point before `reqs[0]`) where
 * `price >= min(reqs[t..t+k−1])`. O(n).
 *
 * @example inclusionProbability([0, 151, 0], 150, 1) // { probability: 0.6666666666666666, samples: 3 }
 */
export function inclusionProbability(reqs: readonly Requirement[], price: U64, k: number): InclusionProbability {
  const minima = kBlockMinima(reqs, k)
  let hit = 0
  for (const m of minima) if (price >= m) hit++
  return { probability: minima.length === 0 ? null : hit / minima.length, samples: minima.length }
}

/**
 * The least price that would have been included within k blocks at a share of at least q of the
 * submission points (the empirical q-quantile of the k-block minima), raised to `floor`; `null`
 * with no sample. O(n log n).
 *
 * @example priceForInclusion([0, 151, 0, 301], 1, 0.75, 100) // 151
 */
export function priceForInclusion(reqs: readonly Requirement[], k: number, q: number, floor: U64): U64 | null {
  const minima = kBlockMinima(reqs, k).map((m) => cutoffPrice(m, floor))
  if (minima.length === 0) return null
  minima.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const need = Math.min(minima.length, Math.max(1, Math.ceil(q * minima.length - 1e-9)))
  return minima[need - 1] as U64
}

/**
 * Mean blocks a transaction at `price` waited: from each submission point, the least d >= 1 with
 * `price >= reqs[t + d − 1]`. Points that were still waiting at the end are counted as censored.
 * One backward pass, O(n).
 *
 * @example expectedWait([151, 0, 151, 151], 150) // { blocks: 1.5, samples: 2, censored: 2 }
 */
export function expectedWait(reqs: readonly Requirement[], price: U64): ExpectedWait {
  let next = -1
  let sum = 0
  let samples = 0
  let censored = 0
  for (let t = reqs.length - 1; t >= 0; t--) {
    if (price >= (reqs[t] as Requirement)) next = t
    if (next < 0) censored++
    else {
      sum += next - t + 1
      samples++
    }
  }
  return { blocks: samples === 0 ? null : sum / samples, samples, censored }
}
