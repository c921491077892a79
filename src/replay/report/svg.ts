/**
 * A tick on an axis: where (data value) and what it says. `kind` says why it is there: an end
 * of the data's range, a meaningful mark inside it (a mempool bucket), or a round value added
 * for the grid.
 */
export interface Tick {
  value: number
  label: string
  kind?: 'data' | 'mark' | 'round'
}

/** How values map to the axis: `symlog` is sign(v)·log10(1 + |v|), a log that includes 0. */
export type ScaleKind = 'linear' | 'log' | 'symlog'

/** Maps data values to pixels, with ticks for its axis. */
export interface Scale {
  (value: number): number
  ticks: Tick[]
  kind: ScaleKind
}

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Short number labels with SI prefixes, up to u64's 18.4E: 1500 → 1.5k, 2000000 → 2M. */
export function shortNumber(v: number): string {
  const a = Math.abs(v)
  const fmt = (x: number, unit: string) => `${Number(x.toPrecision(3))}${unit}`
  if (a >= 1e21) return v.toExponential(1)
  if (a >= 1e18) return fmt(v / 1e18, 'E')
  if (a >= 1e15) return fmt(v / 1e15, 'P')
  if (a >= 1e12) return fmt(v / 1e12, 'T')
  if (a >= 1e9) return fmt(v / 1e9, 'G')
  if (a >= 1e6) return fmt(v / 1e6, 'M')
  if (a >= 1e3) return fmt(v / 1e3, 'k')
  return `${Number(v.toPrecision(3))}`
}

/**
 * A number as people read it: integers in full with thousands separators (1,000,000), others to
 * 3 significant digits; beyond 10^10 the short form (12.3G), as the full one no longer fits an axis.
 *
 * @example readableNumber(100000) // '100,000'
 */
export function readableNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v)
  if (Math.abs(v) >= 1e10) return shortNumber(v)
  const rounded = Number.isInteger(v) ? v : Number(v.toPrecision(3))
  const [int, frac] = String(Math.abs(rounded)).split('.')
  const grouped = (int as string).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${rounded < 0 ? '−' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`
}

/** A share as a percentage with as many decimals as it needs (at most 2): 0.5 → 50%, 0.975 → 97.5%. */
export function percent(v: number): string {
  return `${Number((v * 100).toFixed(2))}%`
}

/** A linear scale with about `count` round ticks. */
export function linearScale(domain: [number, number], range: [number, number], count = 6, label: (v: number) => string = shortNumber): Scale {
  let [d0, d1] = domain
  if (d0 === d1) {
    d0 -= 1
    d1 += 1
  }
  const [r0, r1] = range
  const f = ((v: number) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0)) as Scale
  f.kind = 'linear'
  f.ticks = roundLinear(d0, d1, count).map((v) => ({ value: v, label: label(v), kind: 'round' }))
  return f
}

/** Round values (steps of 1, 2, 2.5 or 5 × 10^e) in [d0, d1], about `count` of them. */
function roundLinear(d0: number, d1: number, count: number): number[] {
  const raw = (d1 - d0) / count
  if (!(raw > 0)) return []
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag
  const out: number[] = []
  for (let i = Math.ceil(d0 / step - 1e-9); i * step <= d1 + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)))
  return out
}

function transform(kind: ScaleKind): (v: number) => number {
  if (kind === 'log') return (v) => Math.log10(Math.max(v, 1e-300))
  if (kind === 'symlog') return (v) => Math.sign(v) * Math.log10(1 + Math.abs(v))
  return (v) => v
}

/** Values m × 10^e (m in `mults`) of either sign whose magnitude lies in [lo, hi]. */
function decadeValues(lo: number, hi: number, mults: number[]): number[] {
  const out: number[] = []
  const top = Math.max(Math.abs(lo), Math.abs(hi))
  if (top < 1) return out
  for (let e = 0; e <= Math.ceil(Math.log10(top)); e++) {
    for (const m of mults) {
      const v = m * 10 ** e
      if (v >= lo && v <= hi) out.push(v)
      if (-v >= lo && -v <= hi) out.push(-v)
    }
  }
  return out
}

/** What `fitScale` needs besides the data's range. */
export interface FitOptions {
  /** Which axis: labels on x need room for their width, on y for a line of text. */
  axis: 'x' | 'y'
  /** Values that deserve a labelled tick when inside the data's range (e.g. the mempool buckets). */
  marks?: readonly number[]
  /** Force the kind; by default a log-like scale when the data span a decade or more. */
  kind?: ScaleKind
  label?: (v: number) => string
  /** Round ticks added for the grid stop at this many ticks in all (default 6 on y, 8 on x). */
  target?: number
}

/**
 * A scale fitted to data in [lo, hi]: ticks at lo and hi themselves, at each `marks` value in
 * between, then round values while they fit; a tick whose label would touch a more important
 * one is left out. The kind is log when lo ≥ 1 and hi/lo ≥ 10, symlog when the range reaches 0
 * (or below) and |values| reach 100, else linear. The domain is padded by 4% of the range on each
 * side so lines at the extremes stay off the frame.
 *
 * @example fitScale(100, 5000, [300, 30], { axis: 'y', marks: [0, 150, 300, 500, 1000, 3000] }).ticks.map((t) => t.label)
 * // ['100', '150', '300', '500', '1,000', '3,000', '5,000']
 */
export function fitScale(lo: number, hi: number, range: [number, number], options: FitOptions): Scale {
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo <= hi)) throw new RangeError(`fitScale: bad range [${lo}, ${hi}]`)
  const label = options.label ?? readableNumber
  const kind = options.kind ?? (lo >= 1 ? (hi / lo >= 10 ? 'log' : 'linear') : Math.max(Math.abs(lo), Math.abs(hi)) >= 100 ? 'symlog' : 'linear')
  const t = transform(kind)
  let t0 = t(lo)
  let t1 = t(hi)
  if (t1 - t0 < 1e-12) {
    // one value: a window around it, so it is drawn mid-axis
    const half = kind === 'linear' ? Math.max(Math.abs(lo) * 0.1, 1) : 0.1
    t0 -= half
    t1 += half
  } else {
    const pad = (t1 - t0) * 0.04
    t0 -= pad
    t1 += pad
  }
  const [r0, r1] = range
  const f = ((v: number) => r0 + ((t(v) - t0) / (t1 - t0)) * (r1 - r0)) as Scale
  f.kind = kind

  const candidates: Tick[] = [{ value: lo, label: label(lo), kind: 'data' }]
  if (hi !== lo) candidates.push({ value: hi, label: label(hi), kind: 'data' })
  for (const m of options.marks ?? []) if (m > lo && m < hi) candidates.push({ value: m, label: label(m), kind: 'mark' })
  const rounds =
    kind === 'linear'
      ? roundLinear(lo, hi, options.axis === 'y' ? 5 : 8)
      : [...(lo <= 0 && hi >= 0 ? [0] : []), ...decadeValues(lo, hi, [1]), ...decadeValues(lo, hi, [2, 5]), ...decadeValues(lo, hi, [3, 4, 6, 7, 8, 9])]
  const extra = rounds.filter((v) => v >= lo && v <= hi).map((v): Tick => ({ value: v, label: label(v), kind: 'round' }))

  const target = options.target ?? (options.axis === 'y' ? 6 : 8)
  const room = (a: Tick, b: Tick, slack: number) =>
    options.axis === 'y' ? 14 * slack : ((a.label.length + b.label.length) / 2) * CHAR_WIDTH * slack + 10
  const kept: Tick[] = []
  const fits = (c: Tick, slack: number) => kept.every((k) => k.value !== c.value && Math.abs(f(k.value) - f(c.value)) >= room(k, c, slack))
  for (const c of candidates) if (fits(c, 1)) kept.push(c)
  // round ticks only fill the grid: sparser, and never crowding the labelled values
  for (const c of extra) if (kept.length < target && fits(c, 1.6)) kept.push(c)
  f.ticks = kept.sort((a, b) => a.value - b.value)
  return f
}

/** An SVG path through the points (`stepped`: horizontal then vertical, for a CDF). */
export function pathData(points: readonly { x: number; y: number }[], sx: Scale, sy: Scale, stepped = false): string {
  let d = ''
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as { x: number; y: number }
    const x = sx(p.x).toFixed(1)
    const y = sy(p.y).toFixed(1)
    if (i === 0) d += `M${x} ${y}`
    else if (stepped) d += `H${x}V${y}`
    else d += `L${x} ${y}`
  }
  return d
}

/** Plot area geometry shared by a chart's pieces; the legend goes below, so the height grows with it. */
export interface Frame {
  width: number
  height: number
  left: number
  right: number
  top: number
  bottom: number
}

/** Width of a character of the 11px chart font, for laying out labels (a slight overestimate). */
export const CHAR_WIDTH = 6.3

export const FRAME: Frame = { width: 920, height: 330, left: 86, right: 24, top: 34, bottom: 52 }

/** The x and y pixel ranges of the plot area. */
export function plotRange(f: Frame): { x: [number, number]; y: [number, number] } {
  return { x: [f.left, f.width - f.right], y: [f.height - f.bottom, f.top] }
}

/** An entry of a chart's legend, drawn as a short sample of the line (or the marker) it names. */
export interface LegendItem {
  label: string
  color: string
  dash?: string
  width?: number
  opacity?: number
  marker?: 'line' | 'ring' | 'square' | 'area' | 'none' | 'triangle'
}

/** What `axes` draws around a plot area: the scales, their labels, and x ticks other than the scale's own. */
export interface AxesOptions {
  xLabel: string
  yLabel: string
  sx: Scale
  sy: Scale
  xTicks?: Tick[]
}

/**
 * Grid, ticks, tick labels, axis lines and axis labels of one plot area of frame `f`, in the
 * frame's coordinates; `extra` is the height that wrapped x tick labels add below the x label.
 */
export function axes(options: AxesOptions, f: Frame): { svg: string; extra: number } {
  const { x, y } = plotRange(f)
  const xTicks = options.xTicks ?? options.sx.ticks
  const room = Math.floor((x[1] - x[0]) / Math.max(xTicks.length, 1) / CHAR_WIDTH)
  const xLines = xTicks.map((t) => wrap(t.label, room))
  // every extra line of an x tick label pushes the axis label and the legend down
  const extra = 13 * (Math.max(1, ...xLines.map((l) => l.length)) - 1)
  const parts: string[] = []
  for (const t of options.sy.ticks) {
    const py = options.sy(t.value).toFixed(1)
    parts.push(`<line x1="${x[0]}" x2="${x[1]}" y1="${py}" y2="${py}" class="grid ${t.kind ?? 'round'}"/><line x1="${x[0] - 4}" x2="${x[0]}" y1="${py}" y2="${py}" class="axis"/><text x="${x[0] - 7}" y="${py}" class="ytick ${t.kind ?? 'round'}">${escapeXml(t.label)}</text>`)
  }
  xTicks.forEach((t, i) => {
    const px = options.sx(t.value).toFixed(1)
    const lines = (xLines[i] as string[]).map((l, j) => `<tspan x="${px}" y="${y[0] + 17 + 13 * j}">${escapeXml(l)}</tspan>`).join('')
    parts.push(`<line x1="${px}" x2="${px}" y1="${y[0]}" y2="${y[0] + 4}" class="axis"/><text x="${px}" y="${y[0] + 17}" class="xtick ${t.kind ?? 'round'}"><title>${escapeXml(t.label)}</title>${lines}</text>`)
  })
  parts.push(`<line x1="${x[0]}" x2="${x[1]}" y1="${y[0]}" y2="${y[0]}" class="axis"/><line x1="${x[0]}" x2="${x[0]}" y1="${y[0]}" y2="${y[1]}" class="axis"/>`)
  parts.push(`<text x="${(x[0] + x[1]) / 2}" y="${y[0] + 38 + extra}" class="xlabel">${escapeXml(options.xLabel)}</text>`)
  parts.push(`<text transform="translate(16 ${(y[0] + y[1]) / 2}) rotate(-90)" class="ylabel">${escapeXml(options.yLabel)}</text>`)
  return { svg: parts.join(''), extra }
}

/** Axes, grid, labels and title around a plot body; the legend wraps in rows below the x label. */
export function chart(options: AxesOptions & { id: string; title: string; body: string; legend: LegendItem[]; frame?: Frame }): string {
  const f = options.frame ?? FRAME
  const { x } = plotRange(f)
  const drawn = axes(options, f)
  const legend = layoutLegend(options.legend, f.left, x[1], f.height + 4 + drawn.extra)
  const height = legend.bottom + 6
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.width} ${height}" width="${f.width}" height="${height}" role="img" aria-label="${escapeXml(options.title)}" data-chart="${escapeXml(options.id)}">`)
  parts.push(`<text x="${f.left}" y="20" class="title">${escapeXml(options.title)}</text>`)
  parts.push(drawn.svg)
  parts.push(`<g>${options.body}</g>`)
  parts.push(legend.svg)
  parts.push('</svg>')
  return parts.join('')
}

/** Legend items left to right, wrapping at `right`; each is a 24px sample then its label. */
export function layoutLegend(items: LegendItem[], left: number, right: number, top: number): { svg: string; bottom: number } {
  const parts: string[] = []
  let lx = left
  let ly = top + 9
  const maxChars = Math.floor((right - left - 40) / CHAR_WIDTH)
  for (const item of items) {
    const label = fit(item.label, maxChars)
    const marker = item.marker ?? 'line'
    // a note (no marker) starts where a marker would
    const indent = marker === 'none' ? 0 : 32
    const w = indent + label.length * CHAR_WIDTH + 18
    if (lx > left && lx + w > right) {
      lx = left
      ly += 18
    }
    const opacity = item.opacity === undefined ? '' : ` stroke-opacity="${item.opacity}"`
    if (marker === 'ring') parts.push(`<circle cx="${lx + 12}" cy="${ly}" r="5" fill="none" stroke="${item.color}" stroke-width="2"/>`)
    else if (marker === 'square') parts.push(`<rect x="${lx + 7}" y="${ly - 5}" width="10" height="10" fill="${item.color}" fill-opacity="0.35" stroke="${item.color}" stroke-width="2"/>`)
    else if (marker === 'triangle') parts.push(`<path d="M${lx + 12} ${ly - 6.5}L${lx + 18} ${ly + 4.5}L${lx + 6} ${ly + 4.5}Z" fill="${item.color}" fill-opacity="0.35" stroke="${item.color}" stroke-width="1.5"/>`)
    else if (marker === 'area') parts.push(`<rect x="${lx}" y="${ly - 6}" width="24" height="12" fill="${item.color}" fill-opacity="${item.opacity ?? 0.15}"/>`)
    else if (marker === 'line') parts.push(`<line x1="${lx}" x2="${lx + 24}" y1="${ly}" y2="${ly}" stroke="${item.color}" stroke-width="${item.width ?? 2.5}"${item.dash === undefined ? '' : ` stroke-dasharray="${item.dash}"`}${opacity}/>`)
    parts.push(`<text x="${lx + indent}" y="${ly}" class="legend${marker === 'none' ? ' note' : ''}">${escapeXml(label)}${label === item.label ? '' : `<title>${escapeXml(item.label)}</title>`}</text>`)
    lx += w
  }
  return { svg: `<g class="legend">${parts.join('')}</g>`, bottom: items.length === 0 ? top : ly + 9 }
}

/**
 * `text` in lines of at most `chars` characters, broken after a ':' (strategy names are
 * `kind:key=value:…`); at most 3 lines, the last cut with an ellipsis if need be.
 */
export function wrap(text: string, chars: number): string[] {
  if (text.length <= chars) return [text]
  const lines: string[] = []
  let line = ''
  for (const piece of text.split(/(?<=:)/)) {
    if (line !== '' && line.length + piece.length > chars) {
      lines.push(line)
      line = ''
    }
    line += piece
  }
  lines.push(line)
  const kept = lines.slice(0, 3).map((l) => fit(l, chars))
  if (lines.length > 3) kept[2] = fit(`${lines[2]}…`, chars)
  return kept
}

/** `text` cut to at most `chars` characters, with an ellipsis when cut. */
export function fit(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`
}

/** Distinct colours for strategies (Okabe–Ito, colour-blind safe). */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442']

export function colorAt(i: number): string {
  return PALETTE[i % PALETTE.length] as string
}

/** Dash patterns to tell apart lines that may coincide: solid, dashed, dotted, dash-dot. */
export const DASHES: readonly (string | undefined)[] = [undefined, '8 4', '2 3', '10 3 2 3']

export function dashAt(i: number): string | undefined {
  return DASHES[i % DASHES.length]
}

/** Height of a label line: labels closer than this vertically overlap. */
const LABEL_LINE = 12

/**
 * The y of a label moved down until it overlaps none of `placed` (those `overlaps` says share its
 * x span and lie within a line of it): each overlap puts it a line below that label. Compared
 * against `o.y ± LABEL_LINE` as computed, never `|o.y − y| < LABEL_LINE`: once y = o.y + 12 that
 * difference can round to just under 12, and the label would be pushed to where it is forever.
 * Ends: y only grows, and each label can push it once.
 */
export function pushBelow<T extends { y: number }>(y: number, placed: readonly T[], overlaps: (o: T) => boolean): number {
  for (let moved = true; moved; ) {
    moved = false
    for (const o of placed) {
      if (y > o.y - LABEL_LINE && y < o.y + LABEL_LINE && overlaps(o)) {
        y = o.y + LABEL_LINE
        moved = true
      }
    }
  }
  return y
}
