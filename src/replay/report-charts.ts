import type { BacktestResult } from './backtest.js'
import type { QuantileSketch } from './quantile-sketch.js'
import type { BacktestJson } from './result-json.js'
import { FRAME, chart, colorAt, escapeXml, linearScale, logScale, pathData, plotRange, symlogScale, type Tick } from './svg.js'
import { TIERS, type Tier } from './strategy.js'

const TIER_COLORS: Record<Tier, string> = { deprioritized: '#009E73', regular: '#0072B2', prioritized: '#D55E00' }
const CUTOFF_COLOR = '#8a8a8a'
const K_COLORS = ['#9ecae1', '#4292c6', '#08519c', '#08306b', '#c6dbef', '#6baed6', '#2171b5']
const percent = (v: number) => `${Math.round(v * 100)}%`

/**
 * A strategy's three tiers after each block against the realised cutoff of that block
 * (max(min_gas_unit_price, cheapest + 1) when full, else the floor), on a log price axis. The
 * series are min/max-decimated (`DownsampledSeries`), so every spike stays visible.
 */
export function timeSeriesChart(result: BacktestResult, strategy: number): string {
  const s = result.strategies[strategy]
  if (s === undefined) throw new RangeError(`no strategy ${strategy}`)
  const tiers = TIERS.map((tier, j) => ({ label: tier, color: TIER_COLORS[tier], points: result.series.points(1 + strategy * TIERS.length + j), width: 1.6 }))
  const series = [{ label: 'realised cutoff', color: CUTOFF_COLOR, points: result.series.points(0), width: 1.2 }, ...tiers]
  // a later tier drawn over an identical earlier one hides it: say so in the legend
  const legend = series.map((x, i) => {
    const same = tiers.filter((t, j) => j + 1 < i && samePoints(t.points, x.points)).map((t) => t.label)
    const label = same.length === 0 ? x.label : same.length === 2 ? `${x.label} (all equal)` : `${x.label} = ${same[0]}`
    return { label, color: x.color }
  })
  const all = series.flatMap((x) => x.points)
  const ys = all.map((p) => p.y).filter((y) => y > 0)
  const lo = ys.length === 0 ? 1 : Math.max(1, Math.min(...ys) / 1.3)
  const hi = ys.length === 0 ? 10 : Math.max(...ys) * 1.3
  const x0 = all.length === 0 ? 0 : Math.min(...all.map((p) => p.x))
  const x1 = all.length === 0 ? 1 : Math.max(...all.map((p) => p.x))
  const r = plotRange(FRAME)
  const sx = linearScale([x0, x1], r.x, 8)
  const sy = logScale([lo, hi], r.y)
  const body = series
    .map((x) => {
      const pts = x.points.map((p) => ({ x: p.x, y: Math.max(p.y, lo) }))
      return `<path class="series" data-series="${escapeXml(x.label)}" data-points="${pts.length}" d="${pathData(pts, sx, sy)}" fill="none" stroke="${x.color}" stroke-width="${x.width}" stroke-linejoin="round"/>`
    })
    .join('')
  return chart({
    id: `timeseries:${s.name}`,
    title: `${s.name}: tiers after each block vs the realised cutoff`,
    xLabel: 'block height',
    yLabel: 'gas unit price (octas/gas unit, log scale)',
    sx,
    sy,
    body,
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
  const rates = json.strategies.flatMap((s) => s.tiers.filter((x) => x.tier === tier).flatMap((t) => ks.map((k) => t.inclusion_rate[String(k)] ?? 1)))
  // rates of useful strategies crowd near 100%: start the axis at the decile below the lowest bar
  const base = Math.max(0, Math.min(0.9, Math.floor(Math.min(1, ...rates) * 10) / 10))
  const sy = linearScale([base, 1], r.y, 5, percent)
  const groupW = (r.x[1] - r.x[0]) / Math.max(n, 1)
  const barW = Math.min(28, (groupW * 0.8) / ks.length)
  const parts: string[] = []
  const xTicks: Tick[] = []
  json.strategies.forEach((s, i) => {
    const t = s.tiers.find((x) => x.tier === tier)
    const centre = r.x[0] + groupW * (i + 0.5)
    xTicks.push({ value: i + 0.5, label: s.name })
    ks.forEach((k, j) => {
      const rate = t?.inclusion_rate[String(k)] ?? null
      if (rate === null) return
      const x = centre - (barW * ks.length) / 2 + j * barW
      const y = sy(rate)
      parts.push(
        `<rect class="bar" data-series="${escapeXml(`${s.name}|k=${k}`)}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(r.y[0] - y).toFixed(1)}" fill="${K_COLORS[j % K_COLORS.length]}"><title>${escapeXml(`${s.name} ${tier}: ${(rate * 100).toFixed(1)}% within ${k} block(s)`)}</title></rect>`,
      )
    })
  })
  return chart({
    id: `inclusion:${tier}`,
    title: `${tier}: inclusion rate within k blocks`,
    xLabel: 'strategy',
    yLabel: base > 0 ? `inclusion rate (axis starts at ${percent(base)})` : 'inclusion rate (share of blocks t)',
    sx,
    sy,
    xTicks,
    body: parts.join(''),
    legend: ks.map((k, j) => ({ label: `within ${k} block${k === 1 ? '' : 's'}`, color: K_COLORS[j % K_COLORS.length] as string })),
  })
}

/** Empirical CDF of the overpayment p − p* at k (included evaluations), one line per strategy, for one tier. */
export function overpaymentChart(result: BacktestResult, tier: Tier, k: number): string {
  const at = result.scoredKs.indexOf(k)
  const curves = result.strategies.map((s, i) => {
    const sketch = s.tiers.find((t) => t.tier === tier)?.score.overpayment[at] as QuantileSketch
    return { name: s.name, color: colorAt(i), cdf: sketch.cdf(300) }
  })
  const xs = curves.flatMap((c) => c.cdf.map((p) => p.value))
  const r = plotRange(FRAME)
  const xMax = xs.length === 0 ? 10 : Math.max(10, ...xs)
  const sx = symlogScale([xs.length === 0 ? 0 : Math.min(0, ...xs), xMax], r.x)
  const sy = linearScale([0, 1], r.y, 5, percent)
  const body = curves
    .filter((c) => c.cdf.length > 0)
    .map((c) => {
      const first = c.cdf[0] as { value: number }
      // a step CDF from 0 at the smallest value, carried at 100% to the right edge
      const pts = [{ x: first.value, y: 0 }, ...c.cdf.map((p) => ({ x: p.value, y: p.fraction })), { x: xMax, y: 1 }]
      return `<path class="series" data-series="${escapeXml(c.name)}" data-points="${pts.length}" d="${pathData(pts, sx, sy, true)}" fill="none" stroke="${c.color}" stroke-width="1.8"/>`
    })
    .join('')
  return chart({
    id: `overpayment:${tier}`,
    title: `${tier}: overpayment at k=${k} (included transactions)`,
    xLabel: 'overpayment p − p* (octas/gas unit, symmetric log scale)',
    yLabel: 'share of included txns ≤ x',
    sx,
    sy,
    body,
    legend: curves.map((c) => ({ label: c.cdf.length === 0 ? `${c.name} (none included)` : c.name, color: c.color })),
  })
}

/**
 * Promised probability q against the achieved inclusion rate at the promised k: one point per
 * promising tier, and one line per strategy and k through its calibration sweep. Points on the
 * diagonal keep their promise; below it, they break it.
 */
export function calibrationChart(json: BacktestJson): string {
  const r = plotRange(FRAME)
  const values: number[] = []
  for (const s of json.strategies) {
    for (const t of s.tiers) if (t.promised !== null && t.achieved !== null) values.push(t.promised.q, t.achieved)
    for (const c of s.calibration) if (c.achieved !== null) values.push(c.q, c.achieved)
  }
  const lo = Math.min(0.5, Math.floor(Math.min(1, ...values) * 10) / 10)
  const sx = linearScale([lo, 1], r.x, 5, percent)
  const sy = linearScale([lo, 1], r.y, 5, percent)
  const parts = [`<path class="reference" d="M${sx(lo).toFixed(1)} ${sy(lo).toFixed(1)}L${sx(1).toFixed(1)} ${sy(1).toFixed(1)}" stroke="#999" stroke-dasharray="5 4" fill="none"/>`]
  const legend: { label: string; color: string; dashed?: boolean }[] = [{ label: 'promise kept exactly', color: '#999', dashed: true }]
  let c = 0
  let promising = 0
  json.strategies.forEach((s) => {
    const ks = [...new Set([...s.calibration.map((x) => x.k), ...s.tiers.flatMap((t) => (t.promised === null ? [] : [t.promised.k]))])].sort((a, b) => a - b)
    if (ks.length === 0) return
    // alternate dashes between strategies: equal curves stay distinguishable
    const dash = promising++ % 2 === 1 ? ' stroke-dasharray="6 3"' : ''
    for (const k of ks) {
      const color = colorAt(c++)
      const pts = s.calibration.filter((x) => x.k === k && x.achieved !== null).map((x) => ({ x: x.q, y: x.achieved as number }))
      if (pts.length > 0) parts.push(`<path class="series" data-series="${escapeXml(`${s.name}|k=${k}`)}" data-points="${pts.length}" d="${pathData(pts, sx, sy)}" fill="none" stroke="${color}" stroke-width="1.6"${dash}/>`)
      for (const p of pts) parts.push(`<circle class="sweep" cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="2.5" fill="${color}"/>`)
      legend.push({ label: `k=${k} ${s.name}`, color, dashed: dash !== '' })
      for (const t of s.tiers) {
        if (t.promised === null || t.promised.k !== k || t.achieved === null) continue
        parts.push(
          `<circle class="point" data-series="${escapeXml(`${s.name}|${t.tier}`)}" cx="${sx(t.promised.q).toFixed(1)}" cy="${sy(t.achieved).toFixed(1)}" r="6" fill="none" stroke="${color}" stroke-width="2"><title>${escapeXml(`${s.name} ${t.tier}: promised ${t.promised.q} within ${k}, achieved ${(t.achieved * 100).toFixed(1)}%`)}</title></circle>`,
        )
      }
    }
  })
  if (promising === 0) parts.push(`<text x="${(r.x[0] + r.x[1]) / 2}" y="${(r.y[0] + r.y[1]) / 2}" class="xlabel">no strategy made a promise (add a target strategy)</text>`)
  return chart({
    id: 'calibration',
    title: 'Calibration: promised vs achieved inclusion within the promised k',
    xLabel: 'promised probability q',
    yLabel: 'achieved inclusion rate',
    sx,
    sy,
    body: parts.join(''),
    legend,
  })
}
