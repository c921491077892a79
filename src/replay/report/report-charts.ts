import type { BacktestResult } from '../backtest.js'
import type { QuantileSketch } from '../quantile-sketch.js'
import type { BacktestJson, TierJson } from '../result-json.js'
import { FRAME, chart, colorAt, dashAt, escapeXml, fitScale, linearScale, pathData, percent, plotRange, pushBelow, readableNumber, type LegendItem, type Tick } from './svg.js'
import { TIERS, type Tier } from '../strategies/strategy.js'

/**
 * How each tier is drawn over the realised cutoff: its own colour and dash, and a 2px vertical
 * offset (prioritized up, deprioritized down) so tiers with equal prices show as parallel lines
 * instead of one hiding the others. Listed in drawing order: the dotted line goes last, on top.
 */
const TIER_STYLE: readonly { tier: Tier; color: string; dash?: string; width: number; offset: number }[] = [
  { tier: 'prioritized', color: '#D55E00', width: 1.8, offset: -2 },
  { tier: 'regular', color: '#0072B2', dash: '8 4', width: 1.8, offset: 0 },
  { tier: 'deprioritized', color: '#009E73', dash: '2 3', width: 2.2, offset: 2 },
]
const CUTOFF_STYLE = { color: '#9a9a9a', width: 6, opacity: 0.45 }
const K_COLORS = ['#9ecae1', '#4292c6', '#08519c', '#08306b', '#c6dbef', '#6baed6', '#2171b5']

/** The note that marks a floor-bound tier, in the calibration chart and the tier table. */
export const FLOOR_BOUND_NOTE = 'floor-bound: the minimum price already keeps this promise'

/** Whether a tier is floor-bound (a promise the minimum price alone kept). */
export function isFloorBound(tier: TierJson): boolean {
  return tier.floor_bound === true
}

/** "n=1,999", or "n=1,990–1,999" when the counts differ. */
function sampleSize(counts: readonly number[]): string {
  if (counts.length === 0) return 'n=0'
  const lo = Math.min(...counts)
  const hi = Math.max(...counts)
  return lo === hi ? `n=${readableNumber(lo)}` : `n=${readableNumber(lo)}–${readableNumber(hi)}`
}

/**
 * A strategy's three tiers after each block against the realised cutoff of that block
 * (max(min_gas_unit_price, cheapest + 1) when full, else the floor). The price axis is fitted to
 * the drawn values, with ticks at their least and greatest and at each mempool bucket in
 * between (`buckets`), on a log scale when they span a decade or more. The series are
 * min/max-decimated (`DownsampledSeries`), so every spike stays visible.
 */
export function timeSeriesChart(result: BacktestResult, strategy: number, buckets: readonly number[] = result.config.buckets.map(Number)): string {
  const s = result.strategies[strategy]
  if (s === undefined) throw new RangeError(`no strategy ${strategy}`)
  const cutoff = result.series.points(0)
  const tiers = TIER_STYLE.map((style) => ({ ...style, points: result.series.points(1 + strategy * TIERS.length + TIERS.indexOf(style.tier)) }))
  const all = [cutoff, ...tiers.map((t) => t.points)].flat()
  const ys = all.map((p) => p.y)
  const xs = all.map((p) => p.x)
  const r = plotRange(FRAME)
  // the data's first and last heights, which decimation may not draw
  const x0 = result.first_block_height === null ? Math.min(0, ...xs) : Number(result.first_block_height)
  const x1 = result.last_block_height === null ? Math.max(1, ...xs) : Number(result.last_block_height)
  const sx = fitScale(x0, x1, r.x, { axis: 'x', kind: 'linear' })
  const sy = fitScale(ys.length === 0 ? 0 : Math.min(...ys), ys.length === 0 ? 1 : Math.max(...ys), r.y, { axis: 'y', marks: buckets })
  const body = [
    `<path class="series" data-series="realised cutoff" data-points="${cutoff.length}" d="${pathData(cutoff, sx, sy)}" fill="none" stroke="${CUTOFF_STYLE.color}" stroke-width="${CUTOFF_STYLE.width}" stroke-opacity="${CUTOFF_STYLE.opacity}" stroke-linejoin="round"/>`,
    ...tiers.map(
      (t) =>
        `<path class="series" data-series="${t.tier}" data-points="${t.points.length}" d="${pathData(t.points, sx, sy)}" transform="translate(0 ${t.offset})" fill="none" stroke="${t.color}" stroke-width="${t.width}"${t.dash === undefined ? '' : ` stroke-dasharray="${t.dash}"`} stroke-linejoin="round"/>`,
    ),
  ]
  const legend: LegendItem[] = [
    { label: 'realised cutoff of the block', ...CUTOFF_STYLE },
    ...tiers.map((t) => ({ label: t.tier, color: t.color, width: t.width, ...(t.dash === undefined ? {} : { dash: t.dash }) })),
  ]
  // say which tiers coincide all along, as the offsets alone may look like noise
  const equal = tiers.flatMap((t, i) => tiers.slice(i + 1).filter((o) => samePoints(o.points, t.points)).map((o) => [t.tier, o.tier]))
  if (equal.length === 3) legend.push({ label: 'all three tiers are equal throughout', color: 'none', marker: 'none' })
  else for (const [a, b] of equal) legend.push({ label: `${a} = ${b} throughout`, color: 'none', marker: 'none' })
  return chart({
    id: `timeseries:${s.name}`,
    title: `${s.name}: tier prices after each block vs the realised cutoff (n=${readableNumber(result.blocks)} blocks)`,
    xLabel: 'block height',
    yLabel: `gas unit price (octas/gas unit${sy.kind === 'linear' ? '' : ', log scale'})`,
    sx,
    sy,
    body: body.join(''),
    legend,
  })
}

function samePoints(a: readonly { x: number; y: number }[], b: readonly { x: number; y: number }[]): boolean {
  return a.length === b.length && a.every((p, i) => p.x === b[i]?.x && p.y === b[i]?.y)
}

/** Inclusion rate within each requested k, grouped by strategy, for one tier. */
export function inclusionChart(json: BacktestJson, tier: Tier): string {
  const r = plotRange(FRAME)
  const n = json.strategies.length
  const ks = json.k
  const sx = linearScale([0, Math.max(n, 1)], r.x)
  const tiers = json.strategies.map((s) => s.tiers.find((x) => x.tier === tier))
  const rates = tiers.flatMap((t) => ks.flatMap((k) => t?.inclusion_rate[String(k)] ?? []))
  // rates of useful strategies crowd near 100%: start the axis at the decile below the lowest bar
  const base = Math.max(0, Math.min(0.9, Math.floor(Math.min(1, ...rates) * 10) / 10))
  const sy = linearScale([base, 1], r.y, 5, percent)
  const groupW = (r.x[1] - r.x[0]) / Math.max(n, 1)
  const barW = Math.min(28, (groupW * 0.8) / ks.length)
  const parts: string[] = []
  const xTicks: Tick[] = []
  json.strategies.forEach((s, i) => {
    const t = tiers[i]
    const centre = r.x[0] + groupW * (i + 0.5)
    xTicks.push({ value: i + 0.5, label: s.name, kind: 'mark' })
    ks.forEach((k, j) => {
      const rate = t?.inclusion_rate[String(k)] ?? null
      if (rate === null) return
      const x = centre - (barW * ks.length) / 2 + j * barW
      const y = sy(rate)
      // the rate over each bar: near 100% the bars differ by less than a grid step
      if (barW >= 24) parts.push(`<text class="barlabel" x="${(x + (barW - 2) / 2).toFixed(1)}" y="${(y - 3).toFixed(1)}">${(rate * 100).toFixed(1)}</text>`)
      parts.push(
        `<rect class="bar" data-series="${escapeXml(`${s.name}|k=${k}`)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(r.y[0] - y).toFixed(1)}" fill="${K_COLORS[j % K_COLORS.length]}"><title>${escapeXml(`${s.name} ${tier}: ${(rate * 100).toFixed(1)}% of ${readableNumber(t?.evaluated[String(k)] ?? 0)} blocks within ${k} block(s)`)}</title></rect>`,
      )
    })
  })
  const legend = ks.map((k, j) => ({
    label: `within ${k} block${k === 1 ? '' : 's'} (${sampleSize(tiers.flatMap((t) => t?.evaluated[String(k)] ?? []))} blocks t)`,
    color: K_COLORS[j % K_COLORS.length] as string,
    width: 10,
  }))
  return chart({
    id: `inclusion:${tier}`,
    title: `${tier}: inclusion rate within k blocks`,
    xLabel: 'strategy',
    yLabel: base > 0 ? `inclusion rate, % (axis starts at ${percent(base)})` : 'inclusion rate, %',
    sx,
    sy,
    xTicks,
    body: parts.join(''),
    legend,
  })
}

/** The round share at or a little below f, so a curve starting at f begins just above the axis. */
function floorShare(f: number): number {
  if (f < 0.5) return 0
  const step = f < 0.9 ? 0.1 : f < 0.99 ? 0.01 : 0.001
  return Math.max(0, Number((Math.floor(f / step - 1e-9) * step).toPrecision(6)))
}

/**
 * Empirical CDF of the overpayment p − p* at k (included evaluations), one line per strategy,
 * for one tier. Both axes are fitted to the curves: x from the least to the greatest
 * overpayment, y from just below the smallest share at a curve's first value (most included
 * transactions overpay nothing, so the curves start high).
 */
export function overpaymentChart(result: BacktestResult, tier: Tier, k: number): string {
  const at = result.scoredKs.indexOf(k)
  const curves = result.strategies.map((s, i) => {
    const sketch = s.tiers.find((t) => t.tier === tier)?.score.overpayment[at] as QuantileSketch
    return { name: s.name, color: colorAt(i), dash: dashAt(i), count: sketch.count, cdf: sketch.cdf(300) }
  })
  const drawn = curves.filter((c) => c.cdf.length > 0)
  const xs = drawn.flatMap((c) => c.cdf.map((p) => p.value))
  const r = plotRange(FRAME)
  const x0 = xs.length === 0 ? 0 : Math.min(...xs)
  const x1 = xs.length === 0 ? 1 : Math.max(...xs)
  const sx = fitScale(x0, x1, r.x, { axis: 'x' })
  const base = drawn.length === 0 ? 0 : floorShare(Math.min(...drawn.map((c) => (c.cdf[0] as { fraction: number }).fraction)))
  const sy = linearScale([base, 1], r.y, 5, percent)
  const body = drawn
    .map((c) => {
      const first = c.cdf[0] as { value: number }
      // a step CDF from the axis floor at the smallest value, carried at 100% to the right edge
      const pts = [{ x: first.value, y: base }, ...c.cdf.map((p) => ({ x: p.value, y: Math.max(p.fraction, base) })), { x: x1, y: 1 }]
      return `<path class="series" data-series="${escapeXml(c.name)}" data-points="${pts.length}" d="${pathData(pts, sx, sy, true)}" fill="none" stroke="${c.color}" stroke-width="2"${c.dash === undefined ? '' : ` stroke-dasharray="${c.dash}"`}/>`
    })
    .join('')
  const empty = drawn.length === 0 ? `<text x="${(r.x[0] + r.x[1]) / 2}" y="${(r.y[0] + r.y[1]) / 2}" class="xlabel">no transaction of this tier was included</text>` : ''
  return chart({
    id: `overpayment:${tier}`,
    title: `${tier}: overpayment at k=${k} (included transactions)`,
    xLabel: `overpayment p − p* (octas/gas unit${sx.kind === 'linear' ? '' : ', symmetric log scale'})`,
    yLabel: base > 0 ? `share of included txns ≤ x (axis starts at ${percent(base)})` : 'share of included txns ≤ x',
    sx,
    sy,
    body: body + empty,
    legend: curves.map((c) => ({
      label: c.count === 0 ? `${c.name} (none included)` : `${c.name} (n=${readableNumber(c.count)})`,
      color: c.color,
      width: 2,
      ...(c.dash === undefined ? {} : { dash: c.dash }),
    })),
  })
}

/**
 * Promised probability q against the achieved inclusion rate at the promised k: one ring per
 * promising tier (a square when the tier is floor-bound), and one line per strategy and k
 * through its calibration sweep. Points on the diagonal keep their promise exactly; in the
 * shaded area below it, they break it. The y axis is fitted to the achieved rates and the tiers'
 * promises, so rates crowded near 100% stay apart.
 */
export function calibrationChart(json: BacktestJson): string {
  const r = plotRange(FRAME)
  const qs: number[] = []
  const ys: number[] = []
  for (const s of json.strategies) {
    for (const t of s.tiers) {
      if (t.promised === null || t.achieved === null) continue
      qs.push(t.promised.q)
      ys.push(t.promised.q, t.achieved)
    }
    for (const c of s.calibration) {
      if (c.achieved === null) continue
      qs.push(c.q)
      ys.push(c.achieved)
    }
  }
  const xlo = Math.min(0.5, Math.floor(Math.min(1, ...qs) * 10) / 10)
  const ylo = Math.min(0.9, Math.floor(Math.min(1, ...ys) * 10) / 10)
  const sx = linearScale([xlo, 1], r.x, 5, percent)
  const sy = linearScale([ylo, 1], r.y, 5, percent)
  const d0 = Math.max(xlo, ylo)
  const P = (x: number, y: number) => `${sx(x).toFixed(1)} ${sy(y).toFixed(1)}`
  const parts = [
    // the area where achieved < promised, clipped to the plot: below the diagonal y = x
    `<path class="broken" d="M${P(d0, ylo)}L${P(1, ylo)}L${P(1, 1)}L${P(d0, d0)}Z" fill="#D55E00" fill-opacity="0.07" stroke="none"/>`,
    `<path class="reference" d="M${P(d0, d0)}L${P(1, 1)}" stroke="#999" stroke-dasharray="5 4" fill="none"/>`,
  ]
  const legend: LegendItem[] = [
    { label: 'promise kept exactly (achieved = q)', color: '#999', dash: '5 4', width: 1.5 },
    { label: 'promise broken (achieved < q)', color: '#D55E00', marker: 'area', opacity: 0.12 },
  ]
  const labels: { x: number; y: number; text: string; color: string }[] = []
  let line = 0
  let promising = 0
  let floorBound = false
  for (const s of json.strategies) {
    const ks = [...new Set([...s.calibration.map((x) => x.k), ...s.tiers.flatMap((t) => (t.promised === null ? [] : [t.promised.k]))])].sort((a, b) => a - b)
    if (ks.length === 0) continue
    promising++
    for (const k of ks) {
      // colour and dash both change per line: two strategies with the same sweep stay apart
      const dash = dashAt(line)
      const color = colorAt(line++)
      const sweep = s.calibration.filter((x) => x.k === k && x.achieved !== null)
      const pts = sweep.map((x) => ({ x: x.q, y: x.achieved as number }))
      const dashAttr = dash === undefined ? '' : ` stroke-dasharray="${dash}"`
      if (pts.length > 0) parts.push(`<path class="series" data-series="${escapeXml(`${s.name}|k=${k}`)}" data-points="${pts.length}" d="${pathData(pts, sx, sy)}" fill="none" stroke="${color}" stroke-width="1.8"${dashAttr}/>`)
      for (const p of pts) parts.push(`<circle class="sweep" cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="2.5" fill="${color}"/>`)
      const tiers = s.tiers.filter((t) => t.promised !== null && t.promised.k === k && t.achieved !== null)
      const n = sampleSize([...sweep.map((x) => x.evaluated), ...tiers.map((t) => t.evaluated[String(k)] ?? 0)])
      legend.push({ label: `${s.name}, k=${k} (${n})`, color, width: 1.8, ...(dash === undefined ? {} : { dash }) })
      for (const t of tiers) {
        const q = (t.promised as { q: number }).q
        const achieved = t.achieved as number
        const bound = isFloorBound(t)
        floorBound ||= bound
        const title = `<title>${escapeXml(`${s.name} ${t.tier}: promised ${q} within ${k}, achieved ${(achieved * 100).toFixed(1)}% of ${readableNumber(t.evaluated[String(k)] ?? 0)}${bound ? `; ${FLOOR_BOUND_NOTE}` : ''}`)}</title>`
        const cx = sx(q)
        const cy = sy(achieved)
        parts.push(
          bound
            ? `<rect class="point floor-bound" data-series="${escapeXml(`${s.name}|${t.tier}`)}" x="${(cx - 6).toFixed(1)}" y="${(cy - 6).toFixed(1)}" width="12" height="12" fill="${color}" fill-opacity="0.35" stroke="${color}" stroke-width="2">${title}</rect>`
            : `<circle class="point" data-series="${escapeXml(`${s.name}|${t.tier}`)}" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="6" fill="none" stroke="${color}" stroke-width="2">${title}</circle>`,
        )
        labels.push({ x: cx, y: cy, text: `${t.tier}${bound ? ' (floor-bound)' : ''}`, color })
      }
    }
  }
  parts.push(...pointLabels(labels, r.x[0]))
  if (promising === 0) parts.push(`<text x="${(r.x[0] + r.x[1]) / 2}" y="${(r.y[0] + r.y[1]) / 2}" class="xlabel">no strategy made a promise (add a target strategy)</text>`)
  else legend.push({ label: "a tier's promise and what it achieved", color: '#555', marker: 'ring' })
  if (floorBound) legend.push({ label: FLOOR_BOUND_NOTE, color: '#555', marker: 'square' })
  return chart({
    id: 'calibration',
    title: 'Calibration: promised vs achieved inclusion within the promised k',
    xLabel: 'promised probability q',
    yLabel: ylo > 0 ? `achieved inclusion rate (axis starts at ${percent(ylo)})` : 'achieved inclusion rate',
    sx,
    sy,
    body: parts.join(''),
    legend,
  })
}

/**
 * Tier names beside their rings: left of the ring (the sweep lines run right) unless that
 * crosses the y axis, and nudged apart vertically where two would overlap. `x` of a placed
 * label is its right end.
 */
function pointLabels(labels: { x: number; y: number; text: string; color: string }[], left: number): string[] {
  const placed: { x: number; y: number; w: number }[] = []
  return [...labels]
    .sort((a, b) => a.y - b.y)
    .map((l) => {
      const w = l.text.length * 6
      const leftOf = l.x - 10 - w >= left
      const x = leftOf ? l.x - 10 : l.x + 10 + w
      let y = l.y + 4
      // placed labels are above (sorted by y): push this one down until it touches none
      y = pushBelow(y, placed, (p) => Math.abs(p.x - x) < Math.max(p.w, w))
      placed.push({ x, y, w })
      return `<text class="pointlabel" x="${x.toFixed(1)}" y="${y.toFixed(1)}" style="fill:${l.color}">${escapeXml(l.text)}</text>`
    })
}
