import { reasonInWords, TIER_KEYS, TIERS, type HistoryBlock, type TierPoint } from './figures.js'

const SVG_NS = 'http://www.w3.org/2000/svg'
const H = 280
/** Room for the y tick labels and the axis title on the left, the x ticks and title below. */
const LEFT = 70
const BOTTOM = 40
const TOP = 10
const RIGHT = 8
const DIM = '#9fb0c0'
const GRID = '#26313d'
const TIER_COLOURS = { deprioritized: '#8fd694', regular: '#6fd0ff', prioritized: '#f0b849' } as const

/** An SVG element with its attributes and, optionally, its text. */
function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v))
  if (text !== undefined) node.textContent = text
  return node
}

/** A y scale over [lo, hi]: logarithmic when the range spans more than 20x (one spike would flatten the rest). */
function yScale(lo: number, hi: number) {
  const log = hi / Math.max(1, lo) > 20
  const f = (p: number) => (log ? Math.log10(Math.max(1, p)) : p)
  const fLo = log ? f(lo) - 0.1 : 0
  const fHi = f(hi) * (log ? 1.02 : 1.1) || 1
  return { log, y: (p: number) => TOP + (H - TOP - BOTTOM) * (1 - (f(p) - fLo) / (fHi - fLo)) }
}

/** Axes with units: price ticks (lo, hi) and the y title, first and last height and the x title. */
function axes(svg: SVGSVGElement, width: number, lo: number, hi: number, y: (p: number) => number, first: string, last: string): void {
  for (const tick of lo === hi ? [lo] : [lo, hi]) {
    svg.append(el('line', { x1: LEFT, x2: width - RIGHT, y1: y(tick), y2: y(tick), stroke: GRID }))
    svg.append(el('text', { x: LEFT - 6, y: y(tick) + 4, fill: DIM, 'font-size': 11, 'text-anchor': 'end' }, String(tick)))
  }
  svg.append(el('text', { x: 12, y: (H - BOTTOM) / 2, fill: DIM, 'font-size': 11, 'text-anchor': 'middle', transform: `rotate(-90 12 ${(H - BOTTOM) / 2})` }, 'octas / gas unit'))
  svg.append(el('text', { x: LEFT, y: H - BOTTOM + 16, fill: DIM, 'font-size': 11 }, first))
  svg.append(el('text', { x: width - RIGHT, y: H - BOTTOM + 16, fill: DIM, 'font-size': 11, 'text-anchor': 'end' }, last))
  svg.append(el('text', { x: (LEFT + width - RIGHT) / 2, y: H - 6, fill: DIM, 'font-size': 11, 'text-anchor': 'middle' }, 'block height'))
}

/** The full-or-not words of a block for a tooltip: `full block (reached the block gas limit)`. */
export function fullness(block: HistoryBlock | undefined): string {
  if (block === undefined) return 'block data not held'
  return `${block.full ? 'full block' : 'not full'} (${reasonInWords(block.reason)})`
}

/**
 * The fee history as bars, one per block, oldest left: the least price the block let in, in
 * the full-block colour or the not-full one; each bar's tooltip names its height, price,
 * fullness and why. Returns whether the scale is logarithmic.
 */
export function drawHistory(svg: SVGSVGElement, blocks: readonly HistoryBlock[]): boolean {
  svg.replaceChildren()
  const width = Math.max(200, svg.clientWidth || 900)
  svg.setAttribute('viewBox', `0 0 ${width} ${H}`)
  if (blocks.length === 0) return false
  const prices = blocks.map((b) => Number(b.min_inclusion_price))
  const lo = Math.min(...prices)
  const hi = Math.max(...prices)
  const { log, y } = yScale(lo, hi)
  axes(svg, width, lo, hi, y, (blocks[0] as HistoryBlock).block_height, (blocks[blocks.length - 1] as HistoryBlock).block_height)
  const step = (width - LEFT - RIGHT) / blocks.length
  blocks.forEach((b, i) => {
    const top = y(Number(b.min_inclusion_price))
    const bar = el('rect', { x: LEFT + i * step + step * 0.1, y: top, width: Math.max(1, step * 0.8), height: Math.max(1, H - BOTTOM - top), fill: b.full ? '#f2706b' : '#8394a5' })
    bar.append(el('title', {}, `block ${b.block_height}: least price let in ${b.min_inclusion_price} octas/gas, ${fullness(b)}, ${b.user_txns} user transactions`))
    svg.append(bar)
  })
  return log
}

/**
 * The calibrated tier prices per block as three lines, oldest left, over the same heights as
 * the history where both hold them; each block has a hit area whose tooltip names its height,
 * the three prices and whether the block was full and why. Returns whether the scale is
 * logarithmic.
 */
export function drawTiers(svg: SVGSVGElement, points: readonly TierPoint[], history: ReadonlyMap<string, HistoryBlock>): boolean {
  svg.replaceChildren()
  const width = Math.max(200, svg.clientWidth || 900)
  svg.setAttribute('viewBox', `0 0 ${width} ${H}`)
  if (points.length === 0) return false
  const all = points.flatMap((p) => TIERS.map((t) => Number(p.calibrated[TIER_KEYS[t]])))
  const lo = Math.min(...all)
  const hi = Math.max(...all)
  const { log, y } = yScale(lo, hi)
  axes(svg, width, lo, hi, y, (points[0] as TierPoint).block_height, (points[points.length - 1] as TierPoint).block_height)
  const step = (width - LEFT - RIGHT) / Math.max(1, points.length - 1)
  const x = (i: number) => LEFT + (points.length === 1 ? (width - LEFT - RIGHT) / 2 : i * step)
  for (const tier of TIERS) {
    const d = points.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(Number(p.calibrated[TIER_KEYS[tier]])).toFixed(1)}`).join('')
    svg.append(el('path', { d, fill: 'none', stroke: TIER_COLOURS[tier], 'stroke-width': 2 }))
  }
  const hit = points.length === 1 ? width - LEFT - RIGHT : step
  points.forEach((p, i) => {
    const area = el('rect', { class: 'hit', x: x(i) - hit / 2, y: TOP, width: hit, height: H - TOP - BOTTOM, fill: 'transparent' })
    const prices = TIERS.map((t) => `${t} ${String(p.calibrated[TIER_KEYS[t]])}`).join(', ')
    area.append(el('title', {}, `block ${p.block_height}: ${prices} octas/gas, ${fullness(history.get(p.block_height))}`))
    svg.append(area)
  })
  return log
}
