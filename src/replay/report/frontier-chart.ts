import type { BacktestJson } from '../result-json.js'
import { axes, colorAt, escapeXml, fitScale, layoutLegend, percent, plotRange, pushBelow, readableNumber, type Frame, type LegendItem } from './svg.js'
import { TIERS, type Tier } from '../strategies/strategy.js'

/** One panel per k, side by side, three to a row: wide enough for its ticks at 1920 px. */
const PANEL: Frame = { width: 470, height: 380, left: 78, right: 18, top: 46, bottom: 52 }
const PER_ROW = 3
/** Room above the panels for the chart's title and its one-line reading guide. */
const HEAD = 48
const FRONTIER = { color: '#555', width: 2.2 }
const PROMISE = { color: '#777', dash: '6 4' }

/** How a tier is marked: its own shape, in its strategy's colour. */
const TIER_MARKER: Record<Tier, 'ring' | 'square' | 'triangle'> = { deprioritized: 'ring', regular: 'square', prioritized: 'triangle' }

/** A strategy's tier at one k: where it sits, and whether it promised something at that k. */
export interface FrontierPoint {
  strategy: string
  /** Index of the strategy in the result, for its colour. */
  index: number
  tier: Tier
  /** Inclusion rate within k blocks. */
  coverage: number
  /** Mean overpayment of the included transactions, octas/gas unit. */
  overpayment: number
  /** Included transactions the mean is over. */
  included: number
  /** The tier's promised q when it promised inclusion within this k. */
  q: number | null
}

/** The horizons of the chart: every k a tier promised, else every requested k. */
export function frontierKs(json: BacktestJson): number[] {
  const promised = json.strategies.flatMap((s) => s.tiers.flatMap((t) => (t.promised === null ? [] : [t.promised.k])))
  return [...new Set(promised.length > 0 ? promised : json.k)].sort((a, b) => a - b)
}

/** Every tier at k with both figures (a tier that got nothing included has no mean overpayment). */
export function frontierPoints(json: BacktestJson, k: number): FrontierPoint[] {
  return json.strategies.flatMap((s, index) =>
    s.tiers.flatMap((t) => {
      const coverage = t.inclusion_rate[String(k)] ?? null
      const o = t.overpayment_by_k[String(k)]
      if (coverage === null || o === undefined || o.mean === null) return []
      return [{ strategy: s.name, index, tier: t.tier, coverage, overpayment: o.mean, included: o.count, q: t.promised !== null && t.promised.k === k ? t.promised.q : null }]
    }),
  )
}

/**
 * The lower-right Pareto frontier: the points no other point beats on both counts (at least the
 * coverage for at most the overpayment, better on one), by coverage ascending (so overpayment
 * ascending too). Equal points are kept once. O(n log n).
 */
export function paretoFrontier<P extends { coverage: number; overpayment: number }>(points: readonly P[]): P[] {
  const sorted = [...points].sort((a, b) => b.coverage - a.coverage || a.overpayment - b.overpayment)
  const kept: P[] = []
  let least = Infinity
  for (const p of sorted) {
    // sorted by coverage descending: p is beaten iff some point seen already pays no more
    if (p.overpayment < least) {
      kept.push(p)
      least = p.overpayment
    }
  }
  return kept.reverse()
}

/**
 * The chart a researcher reads first: for each promise horizon k (`frontierKs`), one panel with
 * each strategy's tiers at their inclusion rate within k (x) and the mean overpayment of their
 * included transactions (y); lower right is better. The cost-coverage frontier (`paretoFrontier`)
 * is drawn as a staircase: at any coverage, the least overpayment any point reached at that
 * coverage or more. Each promised q at that k is a dashed vertical line, and a promising tier is
 * joined to its q by a thin line, so an over- or under-kept promise shows as its length. Colour
 * says the strategy, shape the tier. One static SVG with a title, a description naming the
 * frontier's points, and a `<title>` per point.
 */
export function frontierChart(json: BacktestJson): string {
  const ks = frontierKs(json)
  const cols = Math.max(1, Math.min(PER_ROW, ks.length))
  const rows = Math.ceil(ks.length / cols)
  const width = cols * PANEL.width
  const panels = ks.map((k, i) => panel(json, k, (i % cols) * PANEL.width, HEAD + Math.floor(i / cols) * PANEL.height))
  const extra = Math.max(0, ...panels.map((p) => p.extra))
  const legendItems: LegendItem[] = [
    ...json.strategies.map((s, i) => ({ label: s.name, color: colorAt(i), marker: 'area' as const, opacity: 0.9 })),
    ...TIERS.map((t) => ({ label: t, color: '#555', marker: TIER_MARKER[t] })),
    { label: 'cost-coverage frontier (no point is both further right and lower)', ...FRONTIER },
    { label: 'promised q (a promising tier is joined to its q)', color: PROMISE.color, dash: PROMISE.dash, width: 1.5 },
  ]
  const legend = layoutLegend(legendItems, PANEL.left, width - PANEL.right, HEAD + rows * PANEL.height + 4 + extra)
  const height = legend.bottom + 6
  const title = `Cost against coverage: mean overpayment vs inclusion rate within k blocks, per strategy and tier (${readableNumber(json.blocks)} blocks)`
  const desc = [
    'Each point is one tier of one strategy: x is the share of blocks t whose tier price, submitted right after t, was included within k blocks; y is the mean overpayment p − p* of those included. Lower right is better.',
    ...panels.map((p) => p.summary),
  ].join(' ')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-labelledby="frontier-title frontier-desc" data-chart="frontier">`,
    `<title id="frontier-title">${escapeXml(title)}</title><desc id="frontier-desc">${escapeXml(desc)}</desc>`,
    `<text x="${PANEL.left}" y="20" class="title">${escapeXml(title)}</text>`,
    `<text x="${PANEL.left}" y="38" class="subtitle">Lower right is better: more included, less overpaid. The frontier is the least overpayment reached at each coverage or more.</text>`,
    ...panels.map((p) => p.svg),
    legend.svg,
    '</svg>',
  ].join('')
}

/** One k's panel at (x, y) of the chart. */
function panel(json: BacktestJson, k: number, x: number, y: number): { svg: string; extra: number; summary: string } {
  const points = frontierPoints(json, k)
  const front = paretoFrontier(points)
  const qs = [...new Set(points.flatMap((p) => (p.q === null ? [] : [p.q])))].sort((a, b) => a - b)
  const r = plotRange(PANEL)
  const xs = [...points.map((p) => p.coverage), ...qs]
  const x0 = xs.length === 0 ? 0 : Math.min(...xs)
  const sx = fitScale(x0, 1, r.x, { axis: 'x', kind: 'linear', label: percent, marks: qs, target: 6 })
  const ys = points.map((p) => p.overpayment)
  const sy = fitScale(0, ys.length === 0 ? 1 : Math.max(...ys), r.y, { axis: 'y' })
  const drawn = axes({ xLabel: `inclusion rate within ${k} block${k === 1 ? '' : 's'}`, yLabel: `mean overpayment (octas/gas unit${sy.kind === 'linear' ? '' : ', symlog'})`, sx, sy }, PANEL)
  const parts: string[] = [`<g class="panel" data-k="${k}" transform="translate(${x} ${y})">`, `<text x="${PANEL.left}" y="16" class="paneltitle">k = ${k}</text>`, drawn.svg]
  for (const q of qs) {
    const promisers = points.filter((p) => p.q === q).map((p) => `${p.strategy} ${p.tier}`)
    parts.push(
      `<line class="promise" x1="${sx(q).toFixed(1)}" x2="${sx(q).toFixed(1)}" y1="${r.y[0]}" y2="${r.y[1] - 6}" stroke="${PROMISE.color}" stroke-dasharray="${PROMISE.dash}" stroke-width="1.5"><title>${escapeXml(`promised q = ${percent(q)} within ${k}: ${promisers.join(', ')}`)}</title></line>`,
      `<text class="promiselabel" x="${sx(q).toFixed(1)}" y="${r.y[1] - 10}">q ${percent(q)}</text>`,
    )
  }
  if (front.length > 0) {
    // the staircase: up at each frontier point's coverage, then right to the next one
    const steps = front.flatMap((p, i) => {
      const next = front[i + 1]
      return next === undefined ? [p] : [p, { coverage: p.coverage, overpayment: next.overpayment }]
    })
    const d = steps.map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.coverage).toFixed(1)} ${sy(p.overpayment).toFixed(1)}`).join('')
    parts.push(`<path class="frontier" data-points="${front.length}" d="${d}" fill="none" stroke="${FRONTIER.color}" stroke-width="${FRONTIER.width}" stroke-linejoin="round" stroke-opacity="0.8"/>`)
  }
  for (const p of points.filter((p) => p.q !== null)) {
    const py = sy(p.overpayment).toFixed(1)
    parts.push(`<line class="kept" x1="${sx(p.q as number).toFixed(1)}" x2="${sx(p.coverage).toFixed(1)}" y1="${py}" y2="${py}" stroke="${colorAt(p.index)}" stroke-width="1.2" stroke-opacity="0.7"/>`)
  }
  const onFront = new Set(front)
  for (const p of points) parts.push(marker(p, sx(p.coverage), sy(p.overpayment), onFront.has(p), k))
  parts.push(...frontLabels(front, sx, sy, r))
  if (points.length === 0) parts.push(`<text x="${(r.x[0] + r.x[1]) / 2}" y="${(r.y[0] + r.y[1]) / 2}" class="xlabel">no tier had a transaction included within ${k}</text>`)
  parts.push('</g>')
  const named = front.map((p) => `${p.strategy} ${p.tier} (${percent(p.coverage)}, ${readableNumber(p.overpayment)})`)
  const summary = `Within ${k}: ${points.length} points; the frontier runs through ${named.length === 0 ? 'no point' : named.join(', ')}${qs.length === 0 ? '' : `; promised q ${qs.map(percent).join(', ')}`}.`
  return { svg: parts.join(''), extra: drawn.extra, summary }
}

/** A tier's mark: its shape in its strategy's colour, solid on the frontier, paler off it. */
function marker(p: FrontierPoint, cx: number, cy: number, front: boolean, k: number): string {
  const color = colorAt(p.index)
  const fill = `fill="${color}" fill-opacity="${front ? 0.9 : 0.45}" stroke="${front ? '#222' : color}" stroke-width="${front ? 1.4 : 1}"`
  const title = `<title>${escapeXml(`${p.strategy} ${p.tier}: ${percent(p.coverage)} included within ${k}, mean overpayment ${readableNumber(p.overpayment)} octas/gas unit over ${readableNumber(p.included)} included${p.q === null ? '' : `; promised ${percent(p.q)}`}${front ? '; on the frontier' : ''}`)}</title>`
  const data = `class="point${front ? ' front' : ''}" data-series="${escapeXml(`${p.strategy}|${p.tier}`)}"`
  const shape = TIER_MARKER[p.tier]
  const x = cx.toFixed(1)
  const y = cy.toFixed(1)
  if (shape === 'ring') return `<circle ${data} cx="${x}" cy="${y}" r="5.5" ${fill}>${title}</circle>`
  if (shape === 'square') return `<rect ${data} x="${(cx - 5).toFixed(1)}" y="${(cy - 5).toFixed(1)}" width="10" height="10" ${fill}>${title}</rect>`
  return `<path ${data} d="M${x} ${(cy - 6.5).toFixed(1)}L${(cx + 6).toFixed(1)} ${(cy + 4.5).toFixed(1)}L${(cx - 6).toFixed(1)} ${(cy + 4.5).toFixed(1)}Z" ${fill}>${title}</path>`
}

/**
 * Names beside the frontier's points, left of the point (the frontier climbs to the right, so
 * the left is mostly empty) unless that crosses the y axis, then right of it, else above it;
 * pushed down while they touch one already placed.
 */
function frontLabels(front: readonly FrontierPoint[], sx: (v: number) => number, sy: (v: number) => number, r: { x: [number, number]; y: [number, number] }): string[] {
  const placed: { x0: number; x1: number; y: number }[] = []
  return [...front]
    .sort((a, b) => sy(a.overpayment) - sy(b.overpayment))
    .map((p) => {
      const text = `${p.strategy} ${p.tier}`
      const w = text.length * 6.4
      const cx = sx(p.coverage)
      const cy = sy(p.overpayment)
      const left = cx - 10 - w >= r.x[0] + 4
      const right = cx + 10 + w <= r.x[1]
      // neither side has room: centred above the point, so the label never covers it
      const x0 = left ? cx - 10 - w : right ? cx + 10 : Math.max(r.x[0] + 4, Math.min(cx - w / 2, r.x[1] - w))
      let y = left || right ? Math.min(cy + 4, r.y[0] - 4) : cy - 10
      y = pushBelow(y, placed, (o) => o.x0 < x0 + w && x0 < o.x1)
      placed.push({ x0, x1: x0 + w, y })
      return `<text class="pointlabel front" x="${x0.toFixed(1)}" y="${y.toFixed(1)}" style="fill:${colorAt(p.index)}">${escapeXml(text)}</text>`
    })
}
