/**
 * The calibration benchmark's result file (bench/results/calibration.json, written by
 * bench/calibration.ts) and the page made from it (docs/calibration.md, by `npm run bench:report`
 * through bench/report.ts). The file has its own shape, `CalibrationResult` below: the group
 * shape of bench/results.ts holds timings with baselines and per-round ratios, while this group
 * holds deterministic coverage and overpayment per chain and promise. The run context (commit,
 * Node, cores, load at start and end) is the same as a group's.
 *
 * The checks are issue 20's "done when", evaluated here from the raw rows so that the file holds
 * only measurements and the thresholds live in one place (`CHECKS`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const CALIBRATION_FILE = 'calibration.json'
export const CALIBRATION_JSON = join(ROOT, 'bench', 'results', CALIBRATION_FILE)
export const CALIBRATION_PAGE = join(ROOT, 'docs', 'calibration.md')

/** Coverage and mean overpayment (octas/gas unit, over included transactions) of one track. */
export interface Scored {
  coverage: number | null
  overpayment: number | null
}

/** One chain and one promise "included within k blocks with probability q". */
export interface PromiseRow {
  chain: string
  k: number
  q: number
  /** The floor alone met the promise on this share of blocks (≥ q: floor-bound, not attainable). */
  floor_rate: number | null
  attainable: boolean
  /** The calibrated tiers' learner for this promise; `above_floor_share`: blocks it quoted above the floor. */
  learner: Scored & { above_floor_share: number }
  /** The plain conformal baseline, window 120, γ 0.005. */
  aci: Scored
  /** The best fixed (window, γ) in hindsight: least overpayment among grid points covering at least q − 1 point. */
  best: Scored & { window: number; lr: number }
  /**
   * The bar of fixed prices in hindsight: the cheapest mix of fixed prices covering at least q − 1
   * point. On a chain of independent blocks no online quote pays less on average (up to the
   * chain's memory and sampling noise).
   */
  fixed: FixedBar
  /**
   * The same bar covering exactly q. On a chain of independent blocks, no quote that keeps the
   * promise exactly pays less on average: where its geometric mean ÷ aci is above the cost target,
   * the target needs a quote that gives up coverage.
   */
  fixed_at_q: FixedBar
  /**
   * The state-conditioned bar in hindsight: a price per chain state (the learner's own: calm, or
   * busy by the newest cutoff's tercile), all covering exactly q together at the least overpayment.
   * What reading those states is worth at most to a quote that keeps the promise exactly
   * (optimistic: fitted to the run it is scored on). Absent from results written before it existed.
   */
  state_bar?: Scored
  /**
   * The same allocation out of sample (`stateBarOutOfSample`): the per-state prices' shape fitted
   * on one half of the run and scored on the other, the common level set to cover exactly q. What
   * reading the states is worth to a quote that must learn the allocation. Absent from results
   * written before it existed.
   */
  state_bar_oos?: Scored
  ratio_to_aci: number | null
  ratio_to_best: number | null
}

/** A mix of two fixed prices: `low` on the share `low_share` of blocks, `high` on the rest. */
export interface FixedBar extends Scored {
  low: number
  high: number
  low_share: number
}

/** One tier of one served strategy (`target` = the calibrated estimator, `aci`, `aptos`, `geth`) at one k. */
export interface TierRow extends Scored {
  chain: string
  strategy: string
  tier: string
  k: number
}

/** After a burst: mean blocks from its last full block until the tier is within 10% of its pre-burst price. */
export interface RecoveryRow {
  chain: string
  target_regular: number | null
  aci_regular: number | null
  aptos_market: number | null
  bursts: number
}

/** A chain the benchmark scored. */
export interface ChainRow {
  chain: string
  blocks: number
  /** Share of its blocks that were full. */
  full_share: number
}

/** bench/results/calibration.json. */
export interface CalibrationResult {
  group: 'calibration'
  commit: string
  date: string
  node: string
  cores: number
  /** 1-minute load average when the run started and when it ended (the figures do not depend on it). */
  load_average: { start: number; end: number }
  /** Wall seconds of the whole run. */
  seconds: number
  /** Blocks per generated chain, and the generator's seed. */
  blocks: number
  seed: number
  chains: ChainRow[]
  promises: PromiseRow[]
  tiers: TierRow[]
  recovery: RecoveryRow[]
}

/** Issue 20's "done when" thresholds. */
export const CHECKS = Object.freeze({
  /** Coverage of an attainable promise within [q − below, q + above]. */
  below: 0.01,
  above: 0.02,
  /** A floor-bound promise quoted above the floor on at most this share of blocks. */
  floorBoundAbove: 0.01,
  /** Per promise (attainable, q ≥ minQ): overpayment ≤ perPromise × aci's. */
  minQ: 0.8,
  perPromise: 1.1,
  /** Geometric mean over those promises: ≤ geoAci × aci's and ≤ geoBest × the best in hindsight. */
  geoAci: 0.85,
  geoBest: 1.25,
})

/** The checks of one chain. */
export interface Verdict {
  chain: string
  /** Attainable promises whose coverage is outside [q − 1, q + 2] points. */
  off_coverage: string[]
  /** Floor-bound promises quoted above the floor on more than 1% of blocks. */
  floor_bound_above: string[]
  /** Attainable q ≥ 0.8 promises paying more than 1.1× aci. */
  over_aci: string[]
  geomean_to_aci: number | null
  geomean_to_best: number | null
  /** The same geometric mean for the bar of fixed prices in hindsight, the floor of cost on chains of independent blocks (not a check). */
  fixed_geomean_to_aci: number | null
  /** The same for the bar covering exactly q (`PromiseRow.fixed_at_q`). */
  fixed_at_q_geomean_to_aci: number | null
  /** The same for the state-conditioned bar at q (`PromiseRow.state_bar`). */
  state_bar_geomean_to_aci: number | null
  /** The same for the state-conditioned bar out of sample (`PromiseRow.state_bar_oos`). */
  state_bar_oos_geomean_to_aci: number | null
  /** The regular tier back within 10% at least as fast as the Aptos market tier (null: no burst). */
  recovery_met: boolean | null
}

const promiseName = (r: PromiseRow) => `${r.q}@${r.k}`

/** Whether an attainable promise's coverage is within [q − 1, q + 2] points (null when not attainable or unscored). */
export function coverageMet(r: PromiseRow): boolean | null {
  if (!r.attainable || r.learner.coverage === null) return null
  return r.learner.coverage >= r.q - CHECKS.below - 1e-12 && r.learner.coverage <= r.q + CHECKS.above + 1e-12
}

/** Whether a promise's overpayment is within 1.1× aci's (null when the check does not apply). */
export function costMet(r: PromiseRow): boolean | null {
  if (!costRow(r)) return null
  return (r.ratio_to_aci as number) <= CHECKS.perPromise
}

function costRow(r: PromiseRow): boolean {
  return r.attainable && r.q >= CHECKS.minQ && r.ratio_to_aci !== null && r.ratio_to_best !== null
}

/** Geometric mean of the positive values (a zero ratio, both paying nothing, carries no information). */
export function geomean(xs: readonly number[]): number | null {
  const pos = xs.filter((x) => x > 0)
  return pos.length === 0 ? null : Math.exp(pos.reduce((a, x) => a + Math.log(x), 0) / pos.length)
}

/** The checks of `chain` over its rows. */
export function verdict(chain: string, rows: readonly PromiseRow[], recovery: RecoveryRow | undefined): Verdict {
  const mine = rows.filter((r) => r.chain === chain)
  const cost = mine.filter(costRow)
  const rec = recovery === undefined || recovery.bursts === 0 || recovery.target_regular === null || recovery.aptos_market === null ? null : recovery.target_regular <= recovery.aptos_market
  return {
    chain,
    off_coverage: mine.filter((r) => coverageMet(r) === false).map(promiseName),
    floor_bound_above: mine.filter((r) => !r.attainable && r.learner.above_floor_share > CHECKS.floorBoundAbove).map(promiseName),
    over_aci: cost.filter((r) => costMet(r) === false).map(promiseName),
    geomean_to_aci: geomean(cost.map((r) => r.ratio_to_aci as number)),
    geomean_to_best: geomean(cost.map((r) => r.ratio_to_best as number)),
    fixed_geomean_to_aci: barGeomean(cost, (r) => r.fixed),
    fixed_at_q_geomean_to_aci: barGeomean(cost, (r) => r.fixed_at_q),
    state_bar_geomean_to_aci: barGeomean(cost, (r) => r.state_bar),
    state_bar_oos_geomean_to_aci: barGeomean(cost, (r) => r.state_bar_oos),
    recovery_met: rec,
  }
}

/** Geometric mean over `rows` of a fixed-price bar's overpayment ÷ aci's (rows where either is missing or aci paid nothing are left out). */
function barGeomean(rows: readonly PromiseRow[], bar: (r: PromiseRow) => Scored | undefined): number | null {
  return geomean(rows.flatMap((r) => {
    const f = bar(r)?.overpayment ?? null
    return f === null || r.aci.overpayment === null || r.aci.overpayment === 0 ? [] : [f / r.aci.overpayment]
  }))
}

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`)
const num = (x: number | null, d = 1) => (x === null ? '–' : x.toFixed(d))
const mark = (ok: boolean | null) => (ok === null ? '' : ok ? '✓' : '✗')
const scored = (s: Scored) => `${pct(s.coverage)} · ${num(s.overpayment)}`
/** "301" for one price, "100 (10%) · 301" for a mix. */
const fixedPair = (f: FixedBar) => (f.low === f.high || f.low_share === 0 ? `${f.high}` : `${f.low} (${(f.low_share * 100).toFixed(0)}%) · ${f.high}`)
/** Markdown cells must not break the table. */
const cell = (text: string) => text.replace(/\|/g, '\\|')

/** The per-chain checks as one table (markdown). */
export function renderVerdicts(r: CalibrationResult): string {
  const out = [
    '| chain | coverage within [−1, +2] points | floor-bound above floor on ≤ 1% of blocks | each q ≥ 0.8 ≤ 1.1× aci | geomean ÷ aci ≤ 0.85 | geomean ÷ best ≤ 1.25 | burst recovery ≤ Aptos market | fixed-price bar ÷ aci, at q − 1 point / at q (geomean, not a check) | state-conditioned bar at q ÷ aci, in / out of sample (geomean, not a check) |',
    '|---|---|---|---|---:|---:|---|---:|---:|',
  ]
  for (const c of r.chains) {
    const v = verdict(c.chain, r.promises, r.recovery.find((x) => x.chain === c.chain))
    const list = (xs: string[]) => (xs.length === 0 ? '✓' : `✗ ${xs.join(' ')}`)
    const ratio = (x: number | null, max: number) => (x === null ? '–' : `${mark(x <= max)} ${x.toFixed(2)}`)
    out.push(
      `| ${cell(c.chain)} | ${list(v.off_coverage)} | ${list(v.floor_bound_above)} | ${list(v.over_aci)} | ${ratio(v.geomean_to_aci, CHECKS.geoAci)} | ${ratio(v.geomean_to_best, CHECKS.geoBest)} | ${v.recovery_met === null ? '– (no burst)' : mark(v.recovery_met)} | ${num(v.fixed_geomean_to_aci, 2)} / ${num(v.fixed_at_q_geomean_to_aci, 2)} | ${num(v.state_bar_geomean_to_aci, 2)} / ${num(v.state_bar_oos_geomean_to_aci, 2)} |`,
    )
  }
  return out.join('\n')
}

/** One chain's promises (markdown): the calibrated learner, aci, the best in hindsight, with the checks. */
export function renderPromises(r: CalibrationResult, chain: string): string {
  const out = [
    '| promise | floor keeps | calibrated | aci (120, 0.005) | best (window, γ) | best | fixed prices | fixed-price bar | fixed prices at q | fixed-price bar at q | state-conditioned bar at q | out of sample | calibrated ÷ aci | calibrated ÷ best | coverage check | cost check |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ]
  for (const p of r.promises.filter((x) => x.chain === chain)) {
    const coverage = p.attainable ? mark(coverageMet(p)) : `${mark(p.learner.above_floor_share <= CHECKS.floorBoundAbove)} above floor on ${pct(p.learner.above_floor_share)}`
    out.push(
      `| ${promiseName(p)}${p.attainable ? '' : ' (floor-bound)'} | ${pct(p.floor_rate)} | ${scored(p.learner)} | ${scored(p.aci)} | (${p.best.window}, ${p.best.lr}) | ${scored(p.best)} | ${fixedPair(p.fixed)} | ${scored(p.fixed)} | ${fixedPair(p.fixed_at_q)} | ${scored(p.fixed_at_q)} | ${p.state_bar === undefined ? '–' : scored(p.state_bar)} | ${p.state_bar_oos === undefined ? '–' : scored(p.state_bar_oos)} | ${num(p.ratio_to_aci, 2)} | ${num(p.ratio_to_best, 2)} | ${coverage} | ${mark(costMet(p))} |`,
    )
  }
  return out.join('\n')
}

/** One chain's served tiers (markdown): a row per strategy and tier, coverage · mean overpayment per k. */
export function renderTiers(r: CalibrationResult, chain: string): string {
  const rows = r.tiers.filter((x) => x.chain === chain)
  const ks = [...new Set(rows.map((x) => x.k))].sort((a, b) => a - b)
  const out = [`| strategy | tier | ${ks.map((k) => `within ${k}`).join(' | ')} |`, `|---|---|${ks.map(() => '---:').join('|')}|`]
  const keys = [...new Map(rows.map((x) => [`${x.strategy}|${x.tier}`, x])).values()]
  for (const key of keys) {
    const cells = ks.map((k) => {
      const t = rows.find((x) => x.strategy === key.strategy && x.tier === key.tier && x.k === k)
      return t === undefined ? '–' : scored(t)
    })
    out.push(`| ${cell(key.strategy)} | ${key.tier} | ${cells.join(' | ')} |`)
  }
  return out.join('\n')
}

/** The burst recovery table (markdown), chains with bursts only. */
export function renderRecovery(r: CalibrationResult): string {
  const out = ['| chain | bursts | calibrated regular | aci regular | Aptos market | calibrated ≤ Aptos |', '|---|---:|---:|---:|---:|---|']
  for (const x of r.recovery.filter((x) => x.bursts > 0)) {
    const met = x.target_regular === null || x.aptos_market === null ? null : x.target_regular <= x.aptos_market
    out.push(`| ${cell(x.chain)} | ${x.bursts} | ${num(x.target_regular)} | ${num(x.aci_regular)} | ${num(x.aptos_market)} | ${mark(met)} |`)
  }
  return out.join('\n')
}

/** The tables alone (what `npm run bench -- calibration` prints): checks, recovery, then per chain its promises and tiers. */
export function renderCalibrationTables(r: CalibrationResult): string {
  const parts = ['## Checks (issue 20, "done when")', '', renderVerdicts(r), '', '## After a burst', '', 'Mean blocks from a burst\'s last full block until the tier is within 10% of its price just before the burst.', '', renderRecovery(r), '']
  for (const c of r.chains) {
    parts.push(`## ${c.chain}`, '', `${c.blocks.toLocaleString('en-US')} blocks, ${pct(c.full_share)} full.`, '', '### Promises: coverage · mean overpayment (octas/gas unit)', '', renderPromises(r, c.chain), '')
    parts.push('### Tiers as served: coverage · mean overpayment (octas/gas unit)', '', renderTiers(r, c.chain), '')
  }
  return parts.join('\n')
}

/** docs/calibration.md. */
export function renderCalibration(r: CalibrationResult): string {
  const head = [
    '# Calibration: promises kept at the lowest price',
    '',
    '<!-- Generated by `npm run bench:report` from bench/results/calibration.json: edit the benchmark, not this page. -->',
    '',
    'Per chain and per promise "included within k blocks with probability q": the coverage achieved',
    '(the share of blocks t whose price, submitted right after t, was included in one of blocks',
    't+1..t+k) and the mean overpayment of an included transaction, p − p*, where p* is the least',
    'price at or above the floor that would have met the same k. Every track is scored by the',
    "backtest's scorer. Columns:",
    '',
    "- **calibrated**: the calibrated tiers' learner for that promise (a tier and `priceFor` with the",
    '  same (k, q) quote the same price);',
    '- **aci (120, 0.005)**: the plain adaptive-conformal baseline, one empirical quantile of the',
    '  recent k-block minimum cutoffs, window 120 blocks, learning rate γ 0.005 (Gibbs & Candès 2021);',
    '- **best (window, γ)**: the fixed pair in hindsight over windows 50…2000 × γ 0.001…0.1 with the',
    '  least overpayment among those covering at least q − 1 point; it sees the whole run, so no',
    '  online method can be expected to beat it;',
    '- **fixed-price bar**: the cheapest mix of fixed prices in hindsight (a low price on a share of',
    '  blocks, a high one on the rest) covering at least q − 1 point. On a chain whose blocks are',
    '  drawn independently (the i.i.d. chains), a price quoted before the blocks it is scored on is',
    '  independent of them, so its expected coverage and overpayment are those of such a mix: no',
    '  online quote pays less on average, up to what the chain remembers (the mempool carries a',
    '  backlog into the next blocks) and sampling noise. On a chain that changes it is a poor quote.',
    '  The checks table gives its geometric mean ÷ aci over the cost checks\' promises;',
    '- **fixed-price bar at q**: the same bar covering exactly q. A quote that keeps a promise on an',
    '  i.i.d. chain (coverage q in expectation) pays at least this bar in expectation, so where its',
    '  geometric mean ÷ aci is above 0.85 the target is out of reach of any quote that keeps the',
    '  promise exactly: reaching it there means trading coverage (down to the check\'s q − 1 point)',
    '  for price, and the bar at q − 1 point says how far that trade can go. A promise the bar keeps at',
    '  no cost is left out of its geometric mean, like every ratio of 0, so the mean at q can come out',
    '  below the mean at q − 1 point when the floor alone covers q − 1 point of a promise but not q;',
    '- **state-conditioned bar at q**: the chain remembers (the mempool carries a backlog into the next',
    '  blocks), so the state after a block says something about the next ones and a quote that reads it',
    '  can pay less than the fixed-price bar. This bar prices each of the learner\'s chain states (calm,',
    '  or busy with the newest cutoff in the low, middle or high tercile of the newest 120 full',
    '  blocks\') in hindsight, at the prices that cover exactly q over the run with the least',
    '  overpayment: each state priced where one more inclusion costs the same, rather than at one',
    '  common quantile level. Fitted to the run it is scored on, it is optimistic: what reading those',
    '  states is worth at most to a quote that keeps the promise exactly. Where its geometric mean',
    '  ÷ aci is near or above 0.85, these states alone cannot reach the target;',
    '- **out of sample**: the same allocation fitted on one half of the run and scored on the other,',
    '  both ways round, with only the common level (which an online quote calibrates as it goes) set',
    '  on the half scored to cover exactly q. A price per state fitted to the blocks it is scored on',
    '  also fits their noise (any split of the blocks into groups lowers the in-sample bar), so this',
    '  is what reading the states is worth to a quote that must learn the allocation from the past.',
    '  It is a bar for chains that stay one market: on one that changes, the half fitted is another',
    '  market, and the bar comes out far from the in-sample one either way (above it where the',
    '  allocation fitted does not reach q on the other half, below it where the level set per half',
    '  follows a drift better than one level for the whole run);',
    '- **tiers as served**: `target` (the calibrated estimator; `sweep=false` leaves out the backtest\'s',
    '  extra calibration sweep), `aci`, `aptos` (the node\'s mode) and `geth`, each tier at k = 1, 3 and 10.',
    '',
    'A promise is floor-bound when the floor price alone kept it over the chain; it is then not',
    'attainable in the sense of the checks and should be quoted at the floor.',
    '',
    `Commit ${r.commit}, ${r.date.slice(0, 16).replace('T', ' ')} UTC, Node ${r.node}, ${r.cores} cores, load average ${r.load_average.start.toFixed(2)} at start and ${r.load_average.end.toFixed(2)} at end; ${r.blocks.toLocaleString('en-US')} blocks per generated chain, seed ${r.seed}, ${Math.round(r.seconds)} s. The figures are deterministic: the load changes only the time.`,
    '',
    'Regenerate: `npm run bench -- calibration` (or `npx tsx bench/calibration.ts`; `BLOCKS=N`,',
    '`SEED=S`), then `npm run bench:report`.',
    '',
  ]
  return `${[...head, renderCalibrationTables(r)].join('\n').trimEnd()}\n`
}

/** Checks that `x` has the fields of a `CalibrationResult`, naming the file and field when not. */
export function asCalibrationResult(x: unknown, file: string): CalibrationResult {
  const r = x as Partial<CalibrationResult>
  if (r.group !== 'calibration') throw new Error(`${file}: group: expected "calibration"`)
  for (const field of ['commit', 'date', 'node'] as const) if (typeof r[field] !== 'string') throw new Error(`${file}: ${field}: expected a string`)
  for (const field of ['cores', 'seconds', 'blocks', 'seed'] as const) if (typeof r[field] !== 'number') throw new Error(`${file}: ${field}: expected a number`)
  if (typeof r.load_average?.start !== 'number' || typeof r.load_average.end !== 'number') throw new Error(`${file}: load_average: expected { start, end }`)
  for (const field of ['chains', 'promises', 'tiers', 'recovery'] as const) if (!Array.isArray(r[field])) throw new Error(`${file}: ${field}: expected an array`)
  return r as CalibrationResult
}

/**
 * Writes docs/calibration.md from bench/results/calibration.json, or with `check` compares and
 * sets exit code 1 when the page is not what the file makes. No result file: nothing to do.
 */
export function renderCalibrationPage(check: boolean, json: string = CALIBRATION_JSON, page: string = CALIBRATION_PAGE): void {
  if (!existsSync(json)) return
  const text = renderCalibration(asCalibrationResult(JSON.parse(readFileSync(json, 'utf8')), join('bench', 'results', CALIBRATION_FILE)))
  if (!check) {
    writeFileSync(page, text)
    console.log(`wrote ${page}`)
  } else if (!existsSync(page) || readFileSync(page, 'utf8') !== text) {
    console.error('docs/calibration.md is not what bench/results/calibration.json makes: run npm run bench:report')
    process.exitCode = 1
  }
}
