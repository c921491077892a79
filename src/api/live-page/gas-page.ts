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
  /** Age (s) of the newest block past which the page shows the ledger as stale (the server's health threshold). */
  staleAfterSecs: number
}

/** Where the page's script and style sheet are served (one file each, from this server). */
export const PAGE_SCRIPT_PATH = '/gas-page.js'
export const PAGE_STYLE_PATH = '/gas-page.css'
/** Where the page reads the tier prices of the newest blocks. */
export const PAGE_TIERS_PATH = '/gas-page/tiers'

const TIERS = [
  ['deprioritized', 'Deprioritized', 'cheapest, may wait'],
  ['regular', 'Regular', 'the usual choice'],
  ['prioritized', 'Prioritized', 'for urgent transactions'],
] as const

const attr = (value: string | number) => String(value).replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

function aptosTier([id, name]: (typeof TIERS)[number]): string {
  return `<div class="tier" role="group" aria-labelledby="aptos-name-${id}"><h3 id="aptos-name-${id}">${name}</h3><div class="price" id="aptos-${id}">…</div><div class="unit">octas per gas unit</div><div class="cost" id="aptos-cost-${id}"></div></div>`
}

function calibratedTier([id, name, hint]: (typeof TIERS)[number]): string {
  return `<div class="tier" role="group" aria-labelledby="calibrated-name-${id}"><h3 id="calibrated-name-${id}">${name}</h3><div class="price" id="calibrated-${id}">…</div><div class="unit">octas per gas unit · ${hint}</div><div class="cost" id="cost-${id}"></div><div class="promise" id="promise-${id}"></div><div class="coverage" id="coverage-${id}"></div><div class="inverse" id="inverse-${id}"></div></div>`
}

/**
 * The live gas page served at `GET /`: an HTML document whose behaviour is one script file
 * (`/gas-page.js`, bundled from `browser/main.ts`) and whose look is one style sheet
 * (`/gas-page.css`), both from this server; its content security policy allows nothing else
 * (no inline script or style, no eval, no other origin). It reads the API like any client:
 * `/v1` for the newest block and its chain time, `/v1/estimate_gas_price`, `/v1/gas/estimate`,
 * `/v1/gas/inclusion` and `/v1/gas/price` for the tiers, `/v1/gas/history` for the fee history,
 * `/gas-page/tiers` for the tier prices of the newest blocks, and `/v1/gas/stream` to update
 * live (or polls, when the stream is off or cannot be opened). It says how old the newest block
 * is, and shows the ledger as stale, never live, when that block is older than
 * `staleAfterSecs`. u64 values are kept as digit strings, so what it shows is exact.
 */
export function gasPageHtml(options: GasPageOptions): string {
  const data = `data-stream="${options.stream ? 'on' : 'off'}" data-serves="${attr(options.serves)}" data-poll-ms="${attr(options.pollMs)}" data-header-prefix="${attr(options.headerPrefix)}" data-stale-after-secs="${attr(options.staleAfterSecs)}"`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ledger-gas · live gas</title>
<link rel="stylesheet" href="${PAGE_STYLE_PATH}">
<script src="${PAGE_SCRIPT_PATH}" defer></script>
</head>
<body ${data}>
<a class="skip" href="#main">Skip to the prices</a>
<header>
  <h1>ledger-gas · live gas</h1>
  <span class="meta">block <b id="block-height">…</b></span>
  <span class="meta">/v1/estimate_gas_price serves the <b id="serves">…</b> estimator</span>
  <span class="status" id="live" role="status" aria-live="polite">connecting…</span>
</header>
<p class="freshness" id="freshness">Newest block: <span id="chain-time">…</span>, <span id="block-age">…</span> · <span id="updated-ago">not updated yet</span> · stale after <span id="stale-threshold">${attr(options.staleAfterSecs)}</span> s (this server's health threshold)</p>
<p class="stale-note" id="stale-note" role="alert" hidden></p>
<main id="main">
  <section aria-labelledby="calibrated-title">
    <h2 id="calibrated-title">Calibrated estimate</h2>
    <p class="sub">Each tier makes a promise: a transaction at its price is included within k blocks with probability at least q. It shows how often the promise held.</p>
    <div class="tiers">${TIERS.map(calibratedTier).join('')}</div>
    <p class="modes" id="modes">Two modes: the <b>price</b> is learned online so that the promise keeps holding over time (its record is the “held” line); the <b>window figures</b> ask the same learner, through <code>/v1/gas/inclusion</code> and <code>/v1/gas/price</code>, the chance this price gets in and the least price that keeps the promise, so the two agree.</p>
  </section>
  <section aria-labelledby="aptos-title">
    <h2 id="aptos-title">Aptos estimator</h2>
    <p class="sub">The node's own algorithm (AIP-34): the least price that got into recent full blocks.</p>
    <div class="tiers">${TIERS.map(aptosTier).join('')}</div>
    <p class="modes" id="typical-gas">A typical transfer: …</p>
  </section>
  <section class="wide" aria-labelledby="charts-title">
    <h2 id="charts-title">Recent blocks</h2>
    <div class="charts">
      <figure>
        <figcaption id="tier-summary">Calibrated tier prices per block, oldest left.</figcaption>
        <svg class="chart" id="tier-chart" role="img" aria-labelledby="tier-summary"></svg>
        <ul class="legend" aria-label="tier chart legend"><li><span class="swatch deprioritized"></span>deprioritized</li><li><span class="swatch regular"></span>regular</li><li><span class="swatch prioritized"></span>prioritized</li><li id="tier-scale"></li></ul>
      </figure>
      <figure>
        <figcaption id="history-summary">The least price each recent block let in, oldest left.</figcaption>
        <svg class="chart" id="chart" role="img" aria-labelledby="history-summary"></svg>
        <ul class="legend" aria-label="fee history legend"><li><span class="swatch full"></span>full block (the block set the price)</li><li><span class="swatch open"></span>not full (the minimum price was enough)</li><li id="scale"></li></ul>
      </figure>
    </div>
  </section>
</main>
</body>
</html>
`
}
