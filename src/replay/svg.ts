/** A tick on an axis: where (data value) and what it says. */
export interface Tick {
  value: number
  label: string
}

/** Maps data values to pixels, with ticks for its axis. */
export interface Scale {
  (value: number): number
  ticks: Tick[]
}

/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Short number labels: 1500 → 1.5k, 2000000 → 2M. */
export function shortNumber(v: number): string {
  const a = Math.abs(v)
  const fmt = (x: number, unit: string) => `${Number(x.toPrecision(3))}${unit}`
  if (a >= 1e12) return v.toExponential(1)
  if (a >= 1e9) return fmt(v / 1e9, 'G')
  if (a >= 1e6) return fmt(v / 1e6, 'M')
  if (a >= 1e3) return fmt(v / 1e3, 'k')
  return `${Number(v.toPrecision(3))}`
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
  const raw = (d1 - d0) / count
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = ([1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag)
  f.ticks = []
  for (let v = Math.ceil(d0 / step) * step; v <= d1 + step * 1e-9; v += step) f.ticks.push({ value: v, label: label(Number(v.toPrecision(12))) })
  return f
}

/** A log10 scale (domain > 0) with ticks at powers of ten, plus 2 and 5 when it spans few decades. */
export function logScale(domain: [number, number], range: [number, number]): Scale {
  const lo = Math.log10(Math.max(domain[0], 1e-12))
  let hi = Math.log10(Math.max(domain[1], domain[0], 1e-12))
  if (hi - lo < 0.3) hi = lo + 0.3
  const [r0, r1] = range
  const f = ((v: number) => r0 + ((Math.log10(Math.max(v, 1e-12)) - lo) / (hi - lo)) * (r1 - r0)) as Scale
  // the sparsest ladder of round values that still gives at least 4 ticks
  for (const mults of [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    f.ticks = []
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) {
      for (const m of mults) {
        const v = m * 10 ** e
        const lv = Math.log10(v)
        if (lv >= lo - 1e-9 && lv <= hi + 1e-9) f.ticks.push({ value: v, label: shortNumber(v) })
      }
    }
    if (f.ticks.length >= 4) break
  }
  return f
}

/** sign(v)·log10(1 + |v|): a log-like scale that includes 0 and negatives (overpayments). */
export function symlogScale(domain: [number, number], range: [number, number]): Scale {
  const t = (v: number) => Math.sign(v) * Math.log10(1 + Math.abs(v))
  const lo = Math.min(t(domain[0]), 0)
  const hi = Math.max(t(domain[1]), lo + 1)
  const [r0, r1] = range
  const f = ((v: number) => r0 + ((t(v) - lo) / (hi - lo)) * (r1 - r0)) as Scale
  f.ticks = [{ value: 0, label: '0' }]
  for (let e = 0; e <= Math.ceil(hi); e++) {
    const v = 10 ** e
    if (t(v) <= hi + 1e-9) f.ticks.push({ value: v, label: shortNumber(v) })
    if (-v >= domain[0] && t(-v) >= lo - 1e-9) f.ticks.unshift({ value: -v, label: shortNumber(-v) })
  }
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

/** Plot area geometry shared by a chart's pieces. */
export interface Frame {
  width: number
  height: number
  left: number
  right: number
  top: number
  bottom: number
}

export const FRAME: Frame = { width: 920, height: 320, left: 70, right: 190, top: 34, bottom: 52 }

/** The x and y pixel ranges of the plot area. */
export function plotRange(f: Frame): { x: [number, number]; y: [number, number] } {
  return { x: [f.left, f.width - f.right], y: [f.height - f.bottom, f.top] }
}

/** Axes, grid, labels and title around a plot body; the legend goes in the right margin. */
export function chart(options: {
  id: string
  title: string
  xLabel: string
  yLabel: string
  sx: Scale
  sy: Scale
  body: string
  legend: { label: string; color: string; dashed?: boolean }[]
  frame?: Frame
  xTicks?: Tick[]
}): string {
  const f = options.frame ?? FRAME
  const { x, y } = plotRange(f)
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${f.width} ${f.height}" width="${f.width}" height="${f.height}" role="img" aria-label="${escapeXml(options.title)}" data-chart="${escapeXml(options.id)}">`)
  parts.push(`<text x="${f.left}" y="20" class="title">${escapeXml(options.title)}</text>`)
  for (const t of options.sy.ticks) {
    const py = options.sy(t.value).toFixed(1)
    parts.push(`<line x1="${x[0]}" x2="${x[1]}" y1="${py}" y2="${py}" class="grid"/><text x="${x[0] - 6}" y="${py}" class="ytick">${escapeXml(t.label)}</text>`)
  }
  const xTicks = options.xTicks ?? options.sx.ticks
  const room = Math.floor((x[1] - x[0]) / Math.max(xTicks.length, 1) / 6.2)
  for (const t of xTicks) {
    const px = options.sx(t.value).toFixed(1)
    parts.push(`<line x1="${px}" x2="${px}" y1="${y[0]}" y2="${y[0] + 4}" class="axis"/><text x="${px}" y="${y[0] + 16}" class="xtick">${escapeXml(fit(t.label, room))}<title>${escapeXml(t.label)}</title></text>`)
  }
  parts.push(`<line x1="${x[0]}" x2="${x[1]}" y1="${y[0]}" y2="${y[0]}" class="axis"/><line x1="${x[0]}" x2="${x[0]}" y1="${y[0]}" y2="${y[1]}" class="axis"/>`)
  parts.push(`<text x="${(x[0] + x[1]) / 2}" y="${f.height - 10}" class="xlabel">${escapeXml(options.xLabel)}</text>`)
  parts.push(`<text transform="translate(16 ${(y[0] + y[1]) / 2}) rotate(-90)" class="ylabel">${escapeXml(options.yLabel)}</text>`)
  parts.push(`<g>${options.body}</g>`)
  options.legend.forEach((l, i) => {
    const ly = f.top + 8 + i * 18
    const lx = f.width - f.right + 14
    const text = `<text x="${lx + 28}" y="${ly + 4}" class="legend">${escapeXml(fit(l.label, Math.floor((f.right - 46) / 6.2)))}<title>${escapeXml(l.label)}</title></text>`
    parts.push(`<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${l.color}" stroke-width="3"${l.dashed ? ' stroke-dasharray="4 3"' : ''}/>${text}`)
  })
  parts.push('</svg>')
  return parts.join('')
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
