import type { EstimatorMode } from '../../service/estimate-feed.js'

/** What the page is told about the server it is served by. */
export interface GasPageOptions {
  /** Whether `/v1/gas/stream` is served; when not, the page polls. */
  stream: boolean
  /** Which estimator `/v1/estimate_gas_price` answers from. */
  serves: EstimatorMode
  /** Polling interval (ms) when the stream is off or fails. */
  pollMs: number
  /** Prefix of the ledger headers (the page reads `<prefix>BLOCK-HEIGHT` when polling). */
  headerPrefix: string
}

/**
 * The live gas page served at `GET /`: one self-contained HTML document (no CDN, no external
 * file; inline style and script only, which its content security policy enforces). It reads
 * the API like any client: `/v1/estimate_gas_price` and `/v1/gas/estimate` for the tiers,
 * `/v1/gas/history` for the fee-history chart, and `/v1/gas/stream` (Server-Sent Events) to
 * update live. When the stream is off (`serve --stream off`), or the stream cannot be opened
 * at all (a proxy that refuses it), it polls `/v1/estimate_gas_price` every `pollMs` instead
 * and says so. u64 values are kept as digit strings, so what it shows is exact.
 */
export function gasPageHtml(options: GasPageOptions): string {
  const attr = (value: string | number) => String(value).replaceAll('&', '&amp;').replaceAll('"', '&quot;')
  const attrs = `data-stream="${options.stream ? 'on' : 'off'}" data-serves="${attr(options.serves)}" data-poll-ms="${attr(options.pollMs)}" data-header-prefix="${attr(options.headerPrefix)}"`
  return GAS_PAGE_HTML.replace('<body>', `<body ${attrs}>`)
}

const GAS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ledger-gas · live gas</title>
<style>
  :root { --bg: #0f1419; --panel: #182029; --ink: #e6edf3; --dim: #8b98a5; --accent: #4cc2ff; --full: #f2706b; --open: #5b6b7a; --ok: #56d364; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--ink); }
  header { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; padding: 18px 24px; border-bottom: 1px solid #26313d; }
  header h1 { margin: 0; font-size: 20px; }
  header .meta { color: var(--dim); }
  header .live { margin-left: auto; color: var(--dim); }
  header .live.on::before { content: "●"; color: var(--ok); margin-right: 6px; }
  main { padding: 20px 24px; display: grid; gap: 20px; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
  section { background: var(--panel); border-radius: 10px; padding: 16px 18px; }
  section.wide { grid-column: 1 / -1; }
  h2 { margin: 0 0 4px; font-size: 16px; }
  .sub { color: var(--dim); font-size: 13px; margin-bottom: 12px; }
  .tiers { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; }
  .tier { background: #111820; border-radius: 8px; padding: 10px 12px; }
  .tier .name { color: var(--dim); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
  .tier .price { font-size: 26px; font-variant-numeric: tabular-nums; margin: 2px 0; word-break: break-all; }
  .tier .unit { color: var(--dim); font-size: 12px; }
  .tier .promise { font-size: 12px; color: var(--accent); margin-top: 4px; }
  .tier .coverage { font-size: 12px; color: var(--dim); }
  svg { width: 100%; height: 260px; display: block; }
  .legend { display: flex; gap: 16px; font-size: 12px; color: var(--dim); margin-top: 6px; flex-wrap: wrap; }
  .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
  .error { color: var(--full); }
</style>
</head>
<body>
<header>
  <h1>ledger-gas · live gas</h1>
  <span class="meta">block <b id="block-height">…</b></span>
  <span class="meta">/v1/estimate_gas_price serves the <b id="serves">…</b> estimator</span>
  <span class="live" id="live">connecting…</span>
</header>
<main>
  <section>
    <h2>Aptos estimator</h2>
    <div class="sub">The node's algorithm (AIP-34): the minimum price that got into recent full blocks.</div>
    <div class="tiers">
      <div class="tier"><div class="name">deprioritized</div><div class="price" id="aptos-deprioritized">…</div><div class="unit">octas / gas unit</div></div>
      <div class="tier"><div class="name">regular</div><div class="price" id="aptos-regular">…</div><div class="unit">octas / gas unit</div></div>
      <div class="tier"><div class="name">prioritized</div><div class="price" id="aptos-prioritized">…</div><div class="unit">octas / gas unit</div></div>
    </div>
  </section>
  <section>
    <h2>Calibrated estimator</h2>
    <div class="sub">Each tier promises inclusion within k blocks with probability q, and reports how the promise has held.</div>
    <div class="tiers">
      <div class="tier"><div class="name">deprioritized</div><div class="price" id="calibrated-deprioritized">…</div><div class="unit">octas / gas unit</div><div class="promise" id="promise-deprioritized"></div><div class="coverage" id="coverage-deprioritized"></div></div>
      <div class="tier"><div class="name">regular</div><div class="price" id="calibrated-regular">…</div><div class="unit">octas / gas unit</div><div class="promise" id="promise-regular"></div><div class="coverage" id="coverage-regular"></div></div>
      <div class="tier"><div class="name">prioritized</div><div class="price" id="calibrated-prioritized">…</div><div class="unit">octas / gas unit</div><div class="promise" id="promise-prioritized"></div><div class="coverage" id="coverage-prioritized"></div></div>
    </div>
  </section>
  <section class="wide">
    <h2>Fee history</h2>
    <div class="sub" id="history-summary">The least price each recent block let in (min inclusion price), oldest left.</div>
    <svg id="chart" role="img" aria-label="min inclusion price per block"></svg>
    <div class="legend"><span><i style="background:var(--full)"></i>full block (price set by the block)</span><span><i style="background:var(--open)"></i>not full (the floor was enough)</span><span id="scale"></span></div>
  </section>
</main>
<script>
"use strict";
// u64 values arrive as JSON integers: big ones are kept as digit strings, so nothing is rounded.
function parseExact(text) { return JSON.parse(text.replace(/([:\\[,])\\s*(\\d{16,})(?=[,\\]}])/g, '$1"$2"')) }
async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } })
  if (!res.ok) throw new Error(path + ': ' + res.status)
  return parseExact(await res.text())
}
const $ = (id) => document.getElementById(id)
const SERVER = document.body.dataset
const TIERS = ['deprioritized', 'regular', 'prioritized']
const HISTORY_BLOCKS = 300
const KEYS = { deprioritized: 'deprioritized_gas_estimate', regular: 'gas_estimate', prioritized: 'prioritized_gas_estimate' }
function showAptos(e) { for (const t of TIERS) $('aptos-' + t).textContent = String(e[KEYS[t]]) }
function showCalibratedPrices(e) { for (const t of TIERS) $('calibrated-' + t).textContent = String(e[KEYS[t]]) }
function showCalibrated(c) {
  for (const t of TIERS) {
    const tier = c[t]
    $('calibrated-' + t).textContent = String(tier.price)
    $('promise-' + t).textContent = 'included within ' + tier.promise.k + ' block' + (tier.promise.k === 1 ? '' : 's') + ' with p ≥ ' + tier.promise.q
    const cov = tier.coverage
    $('coverage-' + t).textContent = cov.evaluated === 0 ? 'no quote settled yet' : 'held ' + (100 * cov.rate).toFixed(1) + '% of ' + cov.evaluated + ' quotes' + (tier.floor_bound ? ' · floor-bound' : '')
  }
}
function svg(tag, attrs, text) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag)
  for (const k in attrs) el.setAttribute(k, attrs[k])
  if (text !== undefined) el.textContent = text
  return el
}
function drawHistory(blocks) {
  const chart = $('chart')
  chart.replaceChildren()
  if (blocks.length === 0) { $('history-summary').textContent = 'No blocks yet.'; return }
  const W = chart.clientWidth || 900, H = 260, L = 64, B = 22, T = 8
  chart.setAttribute('viewBox', '0 0 ' + W + ' ' + H)
  const prices = blocks.map((b) => Number(b.min_inclusion_price))
  const lo = Math.min(...prices), hi = Math.max(...prices)
  const log = hi / Math.max(1, lo) > 20
  const f = (p) => (log ? Math.log10(Math.max(1, p)) : p)
  const fLo = log ? f(lo) - 0.1 : 0, fHi = f(hi) * (log ? 1.02 : 1.1) || 1
  const y = (p) => T + (H - T - B) * (1 - (f(p) - fLo) / (fHi - fLo))
  const step = (W - L) / blocks.length
  for (const tick of [lo, hi]) {
    chart.append(svg('line', { x1: L, x2: W, y1: y(tick), y2: y(tick), stroke: '#26313d' }))
    chart.append(svg('text', { x: L - 6, y: y(tick) + 4, fill: '#8b98a5', 'font-size': 11, 'text-anchor': 'end' }, String(tick)))
  }
  let full = 0
  const reasons = {}
  blocks.forEach((b, i) => {
    const p = Number(b.min_inclusion_price)
    if (b.full) { full++; reasons[b.reason] = (reasons[b.reason] || 0) + 1 }
    const top = y(p)
    const bar = svg('rect', { x: L + i * step + step * 0.1, y: top, width: Math.max(1, step * 0.8), height: Math.max(1, H - B - top), fill: b.full ? '#f2706b' : '#5b6b7a' })
    bar.append(svg('title', {}, 'block ' + b.block_height + ': min inclusion price ' + b.min_inclusion_price + (b.full ? ', full (' + b.reason + ')' : ', not full (' + b.reason + ')') + ', ' + b.user_txns + ' user txns, cheapest ' + (b.cheapest_gas_unit_price ?? '-')))
    chart.append(bar)
  })
  chart.append(svg('text', { x: L, y: H - 6, fill: '#8b98a5', 'font-size': 11 }, String(blocks[0].block_height)))
  chart.append(svg('text', { x: W, y: H - 6, fill: '#8b98a5', 'font-size': 11, 'text-anchor': 'end' }, String(blocks[blocks.length - 1].block_height)))
  const why = Object.entries(reasons).map(([r, n]) => r + ' ' + n).join(', ')
  $('history-summary').textContent = full + ' of the last ' + blocks.length + ' blocks were full' + (why ? ' (' + why + ')' : '') + '; bars show the least price each block let in, oldest left.'
  $('scale').textContent = log ? 'log scale' : 'linear scale'
}
let refreshing = null
function refresh() {
  // One refresh at a time; a burst of blocks ends with one more to catch the last.
  if (refreshing) { refreshing.again = true; return }
  refreshing = { again: false }
  Promise.all([getJson('/v1/gas/estimate').then(showCalibrated), getJson('/v1/gas/history?blocks=' + HISTORY_BLOCKS).then(drawHistory)])
    .catch((e) => { $('history-summary').textContent = String(e); $('history-summary').className = 'sub error' })
    .finally(() => { const again = refreshing.again; refreshing = null; if (again) refresh() })
}
function live(text, on, title) { $('live').textContent = text; $('live').className = on ? 'live on' : 'live'; $('live').title = title || '' }
// The estimate and the height it is at, from one answer (its ledger header), so they always agree.
async function served() {
  const res = await fetch('/v1/estimate_gas_price', { headers: { accept: 'application/json' } })
  if (!res.ok) throw new Error('/v1/estimate_gas_price: ' + res.status)
  return { estimate: parseExact(await res.text()), height: res.headers.get(SERVER.headerPrefix + 'BLOCK-HEIGHT') }
}
function listen() {
  const source = new EventSource('/v1/gas/stream')
  source.addEventListener('open', () => live('live', true))
  source.addEventListener('error', () => {
    // CLOSED: the browser gave up (the stream answered other than 200), so poll instead.
    if (source.readyState === EventSource.CLOSED) poll('the stream could not be opened')
    else live('reconnecting…', false)
  })
  source.addEventListener('estimate', (ev) => {
    const d = parseExact(ev.data)
    $('block-height').textContent = String(d.block_height)
    $('serves').textContent = d.serves
    showAptos(d.aptos)
    showCalibratedPrices(d.calibrated)
    document.body.dataset.lastEventId = ev.lastEventId
    refresh()
  })
}
let polling = false
function poll(why) {
  if (polling) return
  polling = true
  const every = Number(SERVER.pollMs) || 1000
  const title = why + '; polling /v1/estimate_gas_price every ' + every + ' ms'
  live('live (polling)', true, title)
  const tick = () => served().then((s) => {
    if (s.height !== null && s.height !== $('block-height').textContent) {
      $('block-height').textContent = s.height
      showAptos(s.estimate)
      refresh()
    }
    live('live (polling)', true, title)
  }, () => live('polling: the server did not answer', false, title)).finally(() => setTimeout(tick, every))
  setTimeout(tick, every)
}
async function start() {
  $('serves').textContent = SERVER.serves
  const [now] = await Promise.all([served(), refresh()])
  showAptos(now.estimate)
  $('block-height').textContent = now.height ?? String((await getJson('/v1')).block_height)
  if (SERVER.stream === 'on') listen()
  else poll('the stream is off on this server')
}
start().catch((e) => { $('live').textContent = String(e); $('live').className = 'live error' })
</script>
</body>
</html>
`
