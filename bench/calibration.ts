/**
 * Promises kept at the lowest price (issue 20): per chain and per promise "included within k
 * blocks with probability q", the achieved coverage and the mean overpayment of an included
 * transaction (p − p*, p* the least price ≥ the floor that would have met the same k; the
 * backtest's `Scorer`, so every track is scored identically) for
 *
 * - `learner`: the calibrated estimator's learner (`PromiseLearner`), one per promise;
 * - `aci`: the plain adaptive-conformal baseline, window 120, γ 0.005 (Gibbs & Candès 2021);
 * - `best`: the best fixed (window, γ) in hindsight over `GRID_WINDOWS` × `GRID_LR`: the least
 *   mean overpayment among the grid points whose coverage is at least q − 1 point (the bar to
 *   reach; it sees the whole run, no online method can);
 * - `fixed`: the bar of fixed prices in hindsight (`fixedPriceBar`): the least mean overpayment of
 *   any mix of fixed prices covering at least q − 1 point; `fixed_at_q` the same bar covering
 *   exactly q. On a chain whose blocks are drawn
 *   independently, a price quoted before the blocks it is scored on is independent of them, so its
 *   expected coverage and overpayment are those of a mix of fixed prices: no online quote pays less
 *   on average, up to what the chain remembers (a mempool carries a backlog into the next blocks)
 *   and sampling noise. On a chain that changes it is a poor quote;
 *
 * and, per chain and k, the three tiers of `target` (the calibrated estimator as served: tiers
 * ordered), `aci`, `aptos` and `geth`. On chains with bursts it also reports, per burst, the
 * blocks until the regular tier is back within 10% of its pre-burst price, for `target`, `aci`
 * and the Aptos mode's market tier.
 *
 * A promise is attainable when the floor alone did not keep it over the run (`Scorer.floorRate`
 * < q). The targets (issue 20, "Done when") are checked by bench/render-calibration.ts (`CHECKS`).
 *
 * Real data: the 500-block Aptos mainnet slice in test/fixtures.
 *
 * Run: npx tsx bench/calibration.ts [scenario ...] (BLOCKS=N, default 3000; SEED=S), or
 * `npm run bench -- calibration`: it prints the tables and writes bench/results/calibration.json
 * (the shape `CalibrationResult` of bench/render-calibration.ts), which `npm run bench:report`
 * renders into docs/calibration.md with the checks marked.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BlockInput } from '../src/core/block.js'
import type { TierPromise } from '../src/core/calibrated/calibrated-config.js'
import { resolveConfig } from '../src/core/config.js'
import { ChainStateRing } from '../src/core/calibrated/chain-state.js'
import { ConformalQuotes } from '../src/core/calibrated/conformal-quotes.js'
import { PromiseLearner } from '../src/core/calibrated/promise-learner.js'
import { priceBlock } from '../src/core/price-block.js'
import { blockRequirement, type Requirement } from '../src/core/requirement.js'
import type { U64 } from '../src/core/u64.js'
import { parseBlockJson } from '../src/ledger/store/parse-block.js'
import { parseStrategies } from '../src/replay/strategies/parse-strategies.js'
import { Scorer } from '../src/replay/scorer.js'
import { TIERS } from '../src/replay/strategies/strategy.js'
import { generateChain } from '../src/sim/index.js'
import { CALIBRATION_JSON, renderCalibrationTables, type CalibrationResult, type ChainRow, type FixedBar, type PromiseRow, type RecoveryRow, type Scored, type TierRow } from './render-calibration.js'
import { commitId } from './results.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const FIXTURE_APTOS = join(ROOT, 'test', 'fixtures', 'aptos-mainnet-aphd', 'blocks-500.jsonl')

/** Regime switching, calm with rare bursts, slow drift, i.i.d. 10/50/90% full (the real sample is added). */
export const DEFAULT_SCENARIOS = ['switching', 'bursts', 'drift', 'iid-10', 'iid-50', 'iid-90']

/** The promises scored on every chain. */
export const PROMISES: readonly TierPromise[] = Object.freeze([1, 3, 10].flatMap((k) => [0.5, 0.8, 0.9, 0.95].map((q) => ({ k, q }))))

/** The hindsight grid (issue 20: window 50…2,000, γ 0.001…0.1); it holds the baseline (120, 0.005). */
export const GRID_WINDOWS: readonly number[] = [50, 120, 250, 500, 1000, 2000]
export const GRID_LR: readonly number[] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
const ACI = { window: 120, lr: 0.005 }

/** Strategies scored per tier (`target` is the calibrated estimator as served). */
const STRATEGIES = 'target:sweep=false,aci,aptos,geth'

/** The per-promise online methods: observe a requirement, quote, serve what was quoted. */
interface Quoter {
  observe(req: Requirement): void
  quote(i: number): U64
  serve(i: number, price: U64): void
}

interface ChainResult {
  promises: PromiseRow[]
  tiers: TierRow[]
  recovery: RecoveryRow
  blocks: number
  full_share: number
}

function scoreChain(chain: string, blocks: readonly BlockInput[]): ChainResult {
  const config = resolveConfig()
  const floor = config.min_gas_unit_price
  const strategies = parseStrategies(STRATEGIES, config)
  const grid: { window: number; lr: number; quotes: ConformalQuotes }[] = []
  for (const window of GRID_WINDOWS) for (const lr of GRID_LR) grid.push({ window, lr, quotes: new ConformalQuotes(PROMISES, window, lr, floor) })
  const learner: Quoter = new PromiseLearner(PROMISES, { floor })
  const P = PROMISES.length
  // tracks: strategies' tiers, then the learner's promises, then each grid point's promises
  const tracks = strategies.length * 3 + P + grid.length * P
  const scorer = new Scorer(tracks, [1, 3, 10], floor)
  const prices = new Array<U64>(tracks).fill(floor)
  const aboveFloor = new Array<number>(P).fill(0)
  const regular = { target: [] as number[], aci: [] as number[], aptos: [] as number[] }
  const full: boolean[] = []
  const reqs: Requirement[] = []
  // the chain state after each block, as the learner's conditioned experts read it
  const ring = new ChainStateRing(floor, 2)
  const states: number[] = []
  for (const b of blocks) {
    const priced = priceBlock(b, config)
    const req = blockRequirement(priced)
    ring.push(req, reqs.length)
    states.push(ring.state)
    reqs.push(req)
    full.push(priced.full)
    let o = 0
    for (const s of strategies) {
      s.ingest(b, priced)
      const e = s.estimate()
      prices[o++] = e.deprioritized_gas_estimate
      prices[o++] = e.gas_estimate
      prices[o++] = e.prioritized_gas_estimate
      const r = Number(e.gas_estimate)
      if (s.kind === 'target') regular.target.push(r)
      else if (s.kind === 'aci') regular.aci.push(r)
      else if (s.kind === 'aptos') regular.aptos.push(r)
    }
    for (const m of [learner, ...grid.map((g) => g.quotes)]) {
      m.observe(req)
      for (let i = 0; i < P; i++) {
        const p = m.quote(i)
        m.serve(i, p)
        if (m === learner && p > floor) aboveFloor[i] = (aboveFloor[i] as number) + 1
        prices[o++] = p
      }
    }
    scorer.push(req, prices)
  }
  scorer.close()
  const at = (track: number, k: number) => {
    const x = scorer.ks.indexOf(k)
    const t = scorer.score(track)
    const ev = t.evaluated[x] as number
    return { coverage: ev === 0 ? null : (t.included[x] as number) / ev, overpayment: t.overpayment[x]?.mean ?? null }
  }
  const tiers: TierRow[] = []
  strategies.forEach((s, si) => {
    for (const k of [1, 3, 10]) TIERS.forEach((tier, ti) => tiers.push({ chain, strategy: s.name, tier, k, ...at(si * 3 + ti, k) }))
  })
  const base = strategies.length * 3
  const promises = PROMISES.map((pr, i): PromiseRow => {
    const floorRate = scorer.floorRate(scorer.ks.indexOf(pr.k))
    const attainable = floorRate !== null && floorRate < pr.q
    const l = at(base + i, pr.k)
    const points = grid.map((g, gi) => ({ window: g.window, lr: g.lr, ...at(base + P * (gi + 1) + i, pr.k) }))
    const aci = points.find((g) => g.window === ACI.window && g.lr === ACI.lr) as (typeof points)[number]
    const keeping = points.filter((g) => g.coverage !== null && g.coverage >= pr.q - 0.01)
    const pool = keeping.length > 0 ? keeping : points.filter((g) => g.coverage === Math.max(...points.map((x) => x.coverage ?? 0)))
    const best = pool.reduce((a, g) => ((g.overpayment ?? Infinity) < (a.overpayment ?? Infinity) ? g : a))
    const ratio = (a: number | null, b: number | null) => (a === null || b === null ? null : b === 0 ? (a === 0 ? 1 : null) : a / b)
    return {
      chain,
      k: pr.k,
      q: pr.q,
      floor_rate: floorRate,
      attainable,
      learner: { ...l, above_floor_share: blocks.length === 0 ? 0 : (aboveFloor[i] as number) / blocks.length },
      aci: { coverage: aci.coverage, overpayment: aci.overpayment },
      best,
      fixed: fixedPriceBar(reqs, floor, pr),
      fixed_at_q: fixedPriceBar(reqs, floor, pr, 0),
      state_bar: stateBar(reqs, states, floor, pr),
      state_bar_oos: stateBarOutOfSample(reqs, states, floor, pr),
      ratio_to_aci: ratio(l.overpayment, aci.overpayment),
      ratio_to_best: ratio(l.overpayment, best.overpayment),
    }
  })
  return { promises, tiers, recovery: recovery(chain, full, regular), blocks: blocks.length, full_share: full.filter(Boolean).length / Math.max(1, full.length) }
}

/** A candidate fixed price c: N(c) of the k-block minima included, S(c) their summed overpayment. */
interface HullPoint {
  c: number
  N: number
  S: number
}

/**
 * The lower convex hull of (N, S) over the floor and every distinct minimum above it, by
 * ascending price (`mins` sorted): N(c) = #{m ≤ c}, S(c) = Σ_{m ≤ c} (c − max(f, m)). A mix of
 * two neighbouring prices gives any point between them, so the hull is every (inclusions, cost)
 * a mix of fixed prices can reach at least cost.
 */
function priceHull(mins: readonly number[], f: number): HullPoint[] {
  const hull: HullPoint[] = []
  let i = 0
  let sumStar = 0
  for (const c of [f, ...new Set(mins.filter((m) => m > f))]) {
    while (i < mins.length && (mins[i] as number) <= c) sumStar += Math.max(f, mins[i++] as number)
    const p = { c, N: i, S: i * c - sumStar }
    while (hull.length >= 2) {
      const a = hull[hull.length - 2] as HullPoint
      const b = hull[hull.length - 1] as HullPoint
      if ((b.S - a.S) * (p.N - a.N) >= (p.S - a.S) * (b.N - a.N)) hull.pop()
      else break
    }
    hull.push(p)
  }
  return hull
}

/** m_k(t) = min(req_{t+1..t+k}) for every block t with k blocks after it: what a price quoted right after t had to meet. */
function kBlockMinima(reqs: readonly Requirement[], k: number): number[] {
  const mins: number[] = []
  for (let t = 0; t + k < reqs.length; t++) {
    let m = Number(reqs[t + 1])
    for (let j = 2; j <= k; j++) m = Math.min(m, Number(reqs[t + j]))
    mins.push(m)
  }
  return mins
}

/** The minima `mins[i]` (quoted after block `first + i`) grouped by the chain state after that block, each group sorted ascending. */
function byState(mins: readonly number[], states: readonly number[], first = 0): Map<number, number[]> {
  const groups = new Map<number, number[]>()
  mins.forEach((m, i) => {
    const s = states[first + i] as number
    const list = groups.get(s) ?? []
    list.push(m)
    groups.set(s, list)
  })
  for (const list of groups.values()) list.sort((a, b) => a - b)
  return groups
}

/**
 * The segments of one state's lower hull (`priceHull` of its sorted minima) from (0, 0), nothing
 * included: the floor's own inclusions are a segment of zero cost. Each raises the price to `c`,
 * gaining `dN` inclusions for `dS` more overpayment; their slopes rise (the hull is convex).
 */
function hullSegments(mins: readonly number[], f: number): { c: number; dN: number; dS: number }[] {
  const hull = [{ c: f, N: 0, S: 0 }, ...priceHull(mins, f)]
  const segments: { c: number; dN: number; dS: number }[] = []
  for (let h = 1; h < hull.length; h++) {
    const a = hull[h - 1] as HullPoint
    const b = hull[h] as HullPoint
    if (b.N > a.N) segments.push({ c: b.c, dN: b.N - a.N, dS: b.S - a.S })
  }
  return segments
}

/**
 * The bar of fixed prices in hindsight for one promise, by the Scorer's rules: a price c is
 * included at block t when c ≥ m_k(t) = min(req_{t+1..t+k}) and then overpays c − max(floor, m_k(t)).
 * Each candidate price (the floor and every m_k(t) above it) gives a point (N(c) included, S(c)
 * summed overpayment); a mix of prices gives any point of their lower convex hull. The bar is the
 * least S/N on that hull with N ≥ (q − below)·n, and the two prices that make it (`low` on the share
 * `low_share` of blocks, `high` on the rest; equal when one price is best). `below` is the
 * coverage the bar may give up: 1 point, as the checks allow a tier, or 0 for the bar at exactly q.
 */
export function fixedPriceBar(reqs: readonly Requirement[], floor: U64, { k, q }: TierPromise, below = 0.01): FixedBar {
  const f = Number(floor)
  const mins = kBlockMinima(reqs, k)
  const n = mins.length
  if (n === 0) return { low: f, high: f, low_share: 0, coverage: null, overpayment: null }
  mins.sort((a, b) => a - b)
  const hull = priceHull(mins, f)
  const need = (q - below) * n
  // a count within rounding of `need` meets it (0.95·n is not exact in binary)
  const meets = (N: number) => N >= need - 1e-9
  let best: FixedBar = { low: f, high: f, low_share: 0, coverage: null, overpayment: null }
  const consider = (low: HullPoint, high: HullPoint, w: number) => {
    const N = w * low.N + (1 - w) * high.N
    const over = N === 0 ? 0 : (w * low.S + (1 - w) * high.S) / N
    if (best.overpayment === null || over < best.overpayment) best = { low: low.c, high: high.c, low_share: w, coverage: N / n, overpayment: over }
  }
  for (let h = 0; h < hull.length; h++) {
    const b = hull[h] as HullPoint
    if (!meets(b.N)) continue
    consider(b, b, 0)
    const a = hull[h - 1]
    const w = a === undefined || meets(a.N) ? 0 : (b.N - need) / (b.N - a.N)
    if (a !== undefined && w > 0) consider(a, b, w)
  }
  if (best.coverage === null) {
    const top = hull[hull.length - 1] as HullPoint
    consider(top, top, 0)
  }
  return best
}

/**
 * The state-conditioned bar in hindsight for one promise: a price (or a mix of two) per chain
 * state after block t (`states[t]`, the learner's own: calm, or busy by the newest cutoff's
 * tercile), chosen so that the whole run covers exactly q at the least summed overpayment. Each
 * state's candidate prices form a lower convex hull of (N, S) points as in `fixedPriceBar`; the
 * cheapest way to reach q·n inclusions takes the hulls' segments in order of overpayment per
 * inclusion gained, whichever state they are in, splitting the last one. So every state is priced
 * where one more inclusion costs the same, not at one common quantile level. It fits each state's
 * prices to the run it is scored on, so it is optimistic: what reading those states is worth at
 * most, on average, to a quote that keeps the promise exactly.
 */
export function stateBar(reqs: readonly Requirement[], states: readonly number[], floor: U64, { k, q }: TierPromise): Scored {
  const f = Number(floor)
  const all = kBlockMinima(reqs, k)
  const n = all.length
  if (n === 0) return { coverage: null, overpayment: null }
  const segments = [...byState(all, states).values()].flatMap((mins) => hullSegments(mins, f))
  segments.sort((a, b) => a.dS / a.dN - b.dS / b.dN)
  const need = q * n
  let N = 0
  let S = 0
  for (const g of segments) {
    // a count within rounding of `need` meets it (0.95·n is not exact in binary)
    if (N >= need - 1e-9) break
    const take = Math.min(1, (need - N) / g.dN)
    N += take * g.dN
    S += take * g.dS
  }
  return { coverage: N / n, overpayment: N === 0 ? 0 : S / N }
}

/**
 * The state-conditioned bar out of sample for one promise: `stateBar`'s allocation fitted on one
 * half of the run and scored on the other, both ways round (the halves' inclusions and overpayment
 * summed). On the fitted half, each state's hull and the merged order of their segments, by
 * overpayment per inclusion gained, give a path of per-state prices from all at the floor to all
 * at their top; on the scored half, the one step along that path (a mix of two neighbouring
 * steps) whose inclusions are exactly q of that half's blocks is taken. So what is fitted in
 * hindsight is only the allocation's shape, which an online quote learns from the past, and the
 * common level, which an online quote calibrates as it goes, is set on the half scored: what
 * reading the states is worth to a quote that must learn the allocation. A price per state fitted
 * on the run it is scored on also fits the run's noise (a random split of the blocks into as many
 * groups lowers the in-sample bar too), which this bar does not.
 */
export function stateBarOutOfSample(reqs: readonly Requirement[], states: readonly number[], floor: U64, { k, q }: TierPromise): Scored {
  const f = Number(floor)
  const mins = kBlockMinima(reqs, k)
  const half = mins.length >> 1
  if (half === 0) return { coverage: null, overpayment: null }
  const a = byState(mins.slice(0, half), states)
  const b = byState(mins.slice(half), states, half)
  const one = crossFitted(a, b, f, q)
  const two = crossFitted(b, a, f, q)
  const N = one.N + two.N
  return { coverage: N / mins.length, overpayment: N === 0 ? 0 : (one.S + two.S) / N }
}

/** `stateBarOutOfSample`'s one direction: the allocation path fitted on `fit`, its step at q found and scored on `test`. */
function crossFitted(fit: ReadonlyMap<number, readonly number[]>, test: ReadonlyMap<number, readonly number[]>, f: number, q: number): { N: number; S: number } {
  // the path: segments of every state's hull on the fitted half, cheapest overpayment per inclusion first
  const steps: { s: number; c: number; slope: number }[] = []
  for (const [s, mins] of fit) for (const g of hullSegments(mins, f)) steps.push({ s, c: g.c, slope: g.dS / g.dN })
  steps.sort((u, v) => u.slope - v.slope)
  // the scored half per state: sorted minima and prefix sums of max(f, m), for N(c) and S(c) by binary search
  const tested = new Map<number, { mins: readonly number[]; prefix: number[] }>()
  let n = 0
  for (const [s, mins] of test) {
    n += mins.length
    const prefix = [0]
    for (const m of mins) prefix.push((prefix[prefix.length - 1] as number) + Math.max(f, m))
    tested.set(s, { mins, prefix })
  }
  const at = (s: number, c: number) => {
    const t = tested.get(s)
    if (t === undefined) return { N: 0, S: 0 }
    let lo = 0
    let hi = t.mins.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((t.mins[mid] as number) <= c) lo = mid + 1
      else hi = mid
    }
    return { N: lo, S: lo * c - (t.prefix[lo] as number) }
  }
  // every state at the floor first; each step raises one state's price
  const price = new Map<number, number>()
  let N = 0
  let S = 0
  for (const s of tested.keys()) {
    price.set(s, f)
    const x = at(s, f)
    N += x.N
    S += x.S
  }
  const need = q * n
  if (N >= need - 1e-9) return { N, S }
  for (const step of steps) {
    const old = at(step.s, price.get(step.s) ?? f)
    const now = at(step.s, step.c)
    price.set(step.s, step.c)
    const N2 = N - old.N + now.N
    const S2 = S - old.S + now.S
    if (N2 >= need - 1e-9) {
      // a mix of the step before and this one, with exactly q·n inclusions
      const w = N2 === N ? 1 : (need - N) / (N2 - N)
      return { N: N + w * (N2 - N), S: S + w * (S2 - S) }
    }
    N = N2
    S = S2
  }
  // the fitted path's top does not reach q on the scored half: last, every state at the run's largest minimum (what a
  // quote at its window's maximum gives), which includes every block, so the bar still covers exactly q
  let top = f
  for (const half of [fit, test]) for (const mins of half.values()) top = Math.max(top, mins[mins.length - 1] ?? f)
  let N2 = 0
  let S2 = 0
  for (const s of tested.keys()) {
    const x = at(s, top)
    N2 += x.N
    S2 += x.S
  }
  const w = N2 === N ? 1 : (need - N) / (N2 - N)
  return { N: N + w * (N2 - N), S: S + w * (S2 - S) }
}

/**
 * Bursts: a run of full blocks after at least 50 blocks that were not full, ending at the last
 * full block before 20 that are not. For each, the blocks after its end until the price is within
 * 10% of its value just before the burst (censored bursts, still high at the data's end, are
 * counted up to the end).
 */
function recovery(chain: string, full: readonly boolean[], prices: { target: number[]; aci: number[]; aptos: number[] }): RecoveryRow {
  const bursts: { start: number; end: number }[] = []
  let quiet = 0
  for (let i = 0; i < full.length; i++) {
    if (!full[i]) {
      quiet++
      continue
    }
    if (quiet >= 50 && i > 0) {
      let end = i
      let gap = 0
      for (let j = i; j < full.length && gap < 20; j++) {
        if (full[j]) {
          end = j
          gap = 0
        } else gap++
      }
      bursts.push({ start: i, end })
      i = end
    }
    quiet = 0
  }
  const mean = (series: number[]) => {
    if (bursts.length === 0) return null
    let sum = 0
    for (const { start, end } of bursts) {
      const pre = series[start - 1] as number
      let t = end
      while (t < series.length - 1 && (series[t] as number) > 1.1 * pre) t++
      sum += t - end
    }
    return sum / bursts.length
  }
  return { chain, target_regular: mean(prices.target), aci_regular: mean(prices.aci), aptos_market: mean(prices.aptos), bursts: bursts.length }
}

function scenarioBlocks(scenario: string, blocks: number, seed: number): BlockInput[] {
  // One block at a time: holding every generated block makes each major GC mark all of them.
  const parsed: BlockInput[] = []
  for (const g of generateChain({ blocks, seed, scenario: scenario as never })) parsed.push(parseBlockJson(g.block))
  return parsed
}

function aptosMainnet(path: string): BlockInput[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const b = JSON.parse(line) as { height: number; txns: { gas_unit_price: number; gas_used: number | null }[] | null }
      const txns = b.txns ?? []
      return { block_height: b.height, epoch: 0, gas_unit_prices: txns.map((t) => t.gas_unit_price), gas_used: txns.map((t) => t.gas_used ?? 0) }
    })
}

/** Scores each scenario (a generated chain of `blocks` blocks, `seed`) and the real Aptos slice. */
export function runCalibrationBench(scenarios: readonly string[], blocks: number, seed: number): Pick<CalibrationResult, 'chains' | 'promises' | 'tiers' | 'recovery'> {
  const promises: PromiseRow[] = []
  const tiers: TierRow[] = []
  const recovery: RecoveryRow[] = []
  const chains: ChainRow[] = []
  const run = (chain: string, data: BlockInput[]) => {
    const r = scoreChain(chain, data)
    promises.push(...r.promises)
    tiers.push(...r.tiers)
    recovery.push(r.recovery)
    chains.push({ chain, blocks: r.blocks, full_share: r.full_share })
  }
  for (const s of scenarios) run(s, scenarioBlocks(s, blocks, seed))
  run('aptos-mainnet (500-block slice)', aptosMainnet(FIXTURE_APTOS))
  return { chains, promises, tiers, recovery }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_SCENARIOS
  const blocks = Number(process.env.BLOCKS ?? 3000)
  const seed = Number(process.env.SEED ?? 1)
  const start = loadavg()[0] as number
  const started = Date.now()
  const rows = runCalibrationBench(scenarios, blocks, seed)
  const result: CalibrationResult = {
    group: 'calibration',
    commit: commitId(),
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    load_average: { start, end: loadavg()[0] as number },
    seconds: (Date.now() - started) / 1000,
    blocks,
    seed,
    ...rows,
  }
  console.log(`\n# Calibration: ${blocks} blocks per scenario, seed ${seed}; ${result.seconds.toFixed(0)} s; load average ${start.toFixed(2)} at start, ${result.load_average.end.toFixed(2)} at end\n`)
  console.log(renderCalibrationTables(result))
  mkdirSync(dirname(CALIBRATION_JSON), { recursive: true })
  writeFileSync(CALIBRATION_JSON, `${JSON.stringify(result, null, 2)}\n`)
  console.log(`wrote ${CALIBRATION_JSON}; npm run bench:report renders docs/calibration.md from it`)
}
