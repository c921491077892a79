import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PromiseLearner } from '../../src/core/calibrated/promise-learner.js'
import type { PromiseLearnerOptions } from '../../src/core/calibrated/promise-types.js'
import type { U64 } from '../../src/core/u64.js'
import type { OrderStatisticWindow } from '../../src/core/window.js'
import { fcRuns } from '../budget.js'
import { rng } from '../helpers/rng.js'

/** Each run replays a stream through two learners: a tenth of the property budget (at least 10; `test:deep` raises it). */
const RUNS = fcRuns(0.1, 10)

const PROMISES = [
  { k: 1, q: 0.95 },
  { k: 3, q: 0.9 },
  { k: 10, q: 0.5 },
  { k: 3, q: 0.99 },
]

/**
 * Requirements in stretches: calm (all 0) of up to 400 blocks, so runs longer than the small
 * windows happen; busy at a level near the floor, far above it, or below it (cutoff the floor);
 * and mixed. Seeded, so a failing seed replays.
 */
function stream(seed: number, n: number): number[] {
  const r = rng(seed)
  const out: number[] = []
  while (out.length < n) {
    const len = 1 + Math.floor(r() * (r() < 0.5 ? 400 : 40))
    const kind = Math.floor(r() * 5)
    const level = kind === 1 ? 101 : kind === 2 ? 5000 : kind === 3 ? 60 : 100 + Math.floor(2000 * r())
    for (let s = 0; s < len && out.length < n; s++) out.push(kind === 0 ? 0 : kind === 4 ? (r() < 0.3 ? level + Math.floor(r() * 300) : 0) : r() < 0.9 ? level : 0)
  }
  return out
}

/** A window's contents as a reader sees them. */
function contents(w: OrderStatisticWindow): unknown {
  return { values: Array.from({ length: w.length }, (_, r) => w.valueAt(r)), flagged: w.flaggedCount, newest: w.newestSeq }
}

/**
 * The learner's own state that the readers do not show whole (every expert's level, loss and
 * in-flight quotes; the windows' contents): a calm run's replay must leave it exactly as
 * applying each block would, or later blocks would drift apart. Read through a cast, since it is
 * private on purpose.
 */
function internals(l: PromiseLearner): unknown {
  l.level(0)
  const s = l as unknown as Record<string, unknown>
  const windows = (xs: unknown): unknown => (Array.isArray(xs) ? xs.map(windows) : contents(xs as OrderStatisticWindow))
  return {
    alpha: (s['alpha'] as Float64Array[]).map((a) => Array.from(a)),
    loss: (s['loss'] as Float64Array[]).map((a) => Array.from(a)),
    quotes: s['expertQuotes'],
    offset: Array.from(s['offset'] as Float64Array),
    chosen: Array.from(s['chosen'] as Int32Array),
    floorRule: Array.from(s['floorRule'] as Uint8Array),
    condSeq: Array.from(s['condSeq'] as Int32Array),
    minAt: s['minAt'],
    cutAt: Array.from(s['cutAt'] as Float64Array),
    marginal: windows(s['marginal']),
    conditional: windows(s['conditional']),
    scaled: windows(s['scaledWindows']),
    floorLedger: Object.fromEntries(Object.entries(s['floorLedger'] as Record<string, Float64Array | Int32Array>).map(([k, a]) => [k, Array.from(a)])),
  }
}

/** Every answer a reader can get from promise i (coverage, calibration, level, explanation, inverse queries), and the state behind them. */
function readAll(l: PromiseLearner, i: number): unknown {
  return {
    internals: internals(l),
    coverage: l.coverage(i),
    calibration: l.calibration(i),
    level: l.level(i),
    samples: l.samples(i),
    floorBound: l.floorBound(i),
    explain: l.explain(i),
    probability: [100, 101, 150, 1000, 5000].map((p) => l.probabilityOf(i, p)),
    priceAt: [0.5, 0.8, 0.9, 0.99].map((q) => l.priceAt(i, q)),
  }
}

/**
 * Feeds `reqs` to a learner with calm runs and to one without, each serving its own quotes, and
 * expects the two to read alike on every promise; returns both, the one with calm runs first.
 */
function fedAlike(reqs: readonly number[]): [PromiseLearner, PromiseLearner] {
  const fast = new PromiseLearner(PROMISES, { floor: 100 })
  const slow = new PromiseLearner(PROMISES, { floor: 100, calmRuns: false })
  for (const req of reqs) {
    for (const l of [fast, slow]) {
      l.observe(req)
      l.promises.forEach((_, i) => l.serve(i, l.quote(i)))
    }
  }
  for (let i = 0; i < PROMISES.length; i++) expect(readAll(fast, i)).toEqual(readAll(slow, i))
  return [fast, slow]
}

describe('PromiseLearner calm runs', () => {
  it('counting calm blocks and applying them later gives exactly the answers of applying every block at once, whenever they are read', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 200, max: 2500 }),
        fc.constantFrom<PromiseLearnerOptions['windows']>([20, 120], [120, 1000], [50, 2000]),
        fc.constantFrom(0, 0.002, 0.05),
        fc.boolean(),
        (seed, n, windows, readRate, capServed) => {
          const reqs = stream(seed, n)
          const fast = new PromiseLearner(PROMISES, { floor: 100, windows })
          const slow = new PromiseLearner(PROMISES, { floor: 100, windows, calmRuns: false })
          const r = rng(seed ^ 0x5bd1e995)
          for (const req of reqs) {
            fast.observe(req)
            slow.observe(req)
            for (let i = PROMISES.length - 1; i >= 0; i--) {
              const q = fast.quote(i)
              expect(q).toBe(slow.quote(i))
              // served as quoted, or below it (a capped tier), or at an unrelated price: outcomes are scored on what was served
              const served: U64 = capServed ? (i === 0 ? Math.min(Number(q), 120) : Number(q) + (req % 3)) : q
              fast.serve(i, served)
              slow.serve(i, served)
            }
            if (readRate > 0 && r() < readRate) for (let i = 0; i < PROMISES.length; i++) expect(readAll(fast, i)).toEqual(readAll(slow, i))
          }
          for (let i = 0; i < PROMISES.length; i++) expect(readAll(fast, i)).toEqual(readAll(slow, i))
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('a calm run that starts a few blocks after a busy stretch files its blocks calm in the chain state ring, which holds more slots than max(k) + 1', () => {
    // busy blocks whose cutoff is the floor leave every quote at the floor, so a run starts 11 calm blocks later while the ring's
    // other slots still hold busy states; the samples settled after the run must be filed under the calm state all the same
    for (const calm of [11, 12, 13, 14, 15, 16, 20]) {
      fedAlike([...new Array(3000).fill(0), ...new Array(5).fill(60), ...new Array(calm).fill(0), 900, 0, 0, 0])
    }
  })

  it('a long calm run is applied exactly after the windows have turned over, and clear() forgets a pending run', () => {
    const [fast, slow] = fedAlike([...Array.from({ length: 300 }, (_, j) => (j % 3 === 0 ? 400 + j : 0)), ...new Array(5000).fill(0), 900, 0, 0])
    for (let j = 0; j < 2000; j++) {
      fast.observe(0)
      fast.promises.forEach((_, i) => fast.serve(i, fast.quote(i)))
    }
    fast.clear()
    slow.clear()
    for (let i = 0; i < PROMISES.length; i++) expect(readAll(fast, i)).toEqual(readAll(slow, i))
  })
})
