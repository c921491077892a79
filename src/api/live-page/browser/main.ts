import { drawHistory, drawTiers } from './chart.js'
import { age, aptCost, chainTime, coverageText, freshness, inverseText, parseExact, plural, promiseText, reasonInWords, TIER_KEYS, TIERS, typicalGas, type Estimation, type HistoryBlock, type Tier, type TierPoint } from './figures.js'

/** A tier of `GET /v1/gas/estimate`. */
interface CalibratedQuote {
  price: number | string
  promise: { k: number; q: number }
  coverage: { evaluated: number; included: number; rate: number | null }
  floor_bound: boolean
}
type CalibratedEstimate = Record<Tier, CalibratedQuote>

/** What the server told the page about itself (data attributes of `<body>`). */
const SERVER = document.body.dataset
const STALE_AFTER_SECS = Number(SERVER.staleAfterSecs) || 30
const POLL_MS = Number(SERVER.pollMs) || 1000
const HISTORY_BLOCKS = 300

/** How the page gets its updates; the status shows this only while the newest block is fresh. */
type Feed = { kind: 'connecting' } | { kind: 'stream' } | { kind: 'polling'; title: string } | { kind: 'down'; text: string; title: string }

const state: { feed: Feed; newest: { height: string; timestamp: string } | null; updatedAt: number | null; typicalGas: number | null; aptos: Estimation | null } = {
  feed: { kind: 'connecting' },
  newest: null,
  updatedAt: null,
  typicalGas: null,
  aptos: null,
}

function $(id: string): HTMLElement {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`the page has no #${id}`)
  return found
}

function chartOf(id: string): SVGSVGElement {
  return $(id) as unknown as SVGSVGElement
}

async function getJson<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json' } })
  if (!res.ok) throw new Error(`${path}: ${res.status}`)
  return parseExact(await res.text()) as T
}

function costText(price: number | string): string {
  return state.typicalGas === null ? '' : `≈ ${aptCost(state.typicalGas, price)} APT for a typical transfer`
}

function showAptos(e: Estimation): void {
  state.aptos = e
  for (const t of TIERS) {
    $(`aptos-${t}`).textContent = String(e[TIER_KEYS[t]])
    $(`aptos-cost-${t}`).textContent = costText(e[TIER_KEYS[t]])
  }
}

function showCalibratedPrices(e: Estimation): void {
  for (const t of TIERS) $(`calibrated-${t}`).textContent = String(e[TIER_KEYS[t]])
}

function showCalibrated(c: CalibratedEstimate): void {
  for (const t of TIERS) {
    const tier = c[t]
    $(`calibrated-${t}`).textContent = String(tier.price)
    $(`cost-${t}`).textContent = costText(tier.price)
    $(`promise-${t}`).textContent = promiseText(tier.promise.k, tier.promise.q)
    $(`coverage-${t}`).textContent = coverageText(tier.coverage, tier.floor_bound)
  }
}

/** The window figures of each tier, asked of the API at the tier's own price and promise. */
async function showInverse(c: CalibratedEstimate): Promise<void> {
  await Promise.all(
    TIERS.map(async (t) => {
      const { price, promise } = c[t]
      const [inclusion, window] = await Promise.all([
        getJson<{ probability: number | null }>(`/v1/gas/inclusion?price=${price}&k=${promise.k}`),
        getJson<{ price: number | string | null }>(`/v1/gas/price?k=${promise.k}&q=${promise.q}`),
      ])
      $(`inverse-${t}`).textContent = inverseText(inclusion.probability, promise.k, window.price)
    }),
  )
}

function showHistory(blocks: readonly HistoryBlock[]): void {
  const log = drawHistory(chartOf('chart'), blocks)
  if (blocks.length === 0) {
    $('history-summary').textContent = 'No blocks yet.'
    return
  }
  const reasons = new Map<string, number>()
  let full = 0
  for (const b of blocks) {
    if (!b.full) continue
    full++
    reasons.set(b.reason, (reasons.get(b.reason) ?? 0) + 1)
  }
  const why = [...reasons].map(([r, n]) => `${reasonInWords(r)}: ${n}`).join(', ')
  $('history-summary').textContent = `${full} of the last ${blocks.length} blocks were full${why === '' ? '' : ` (${why})`}; bars show the least price each block let in (octas per gas unit), oldest left.`
  $('scale').textContent = log ? 'log scale' : 'linear scale'
  $('typical-gas').textContent =
    state.typicalGas === null
      ? 'A typical transfer: no user transaction in the window yet.'
      : `A typical transfer uses about ${state.typicalGas} gas units (median per transaction over the last ${plural(blocks.length, 'block')}); the APT figures are that many units at each tier's price.`
}

function showTiers(points: readonly TierPoint[], blocks: readonly HistoryBlock[]): void {
  const byHeight = new Map(blocks.map((b) => [b.block_height, b]))
  const log = drawTiers(chartOf('tier-chart'), points, byHeight)
  $('tier-summary').textContent =
    points.length === 0 ? 'No tier prices yet.' : `Calibrated tier prices (octas per gas unit) over the last ${plural(points.length, 'block')}, oldest left; hover a block for its prices and whether it was full.`
  $('tier-scale').textContent = points.length === 0 ? '' : log ? 'log scale' : 'linear scale'
}

/** The freshness line and the status: stale whenever the newest block is past the threshold, whatever the feed. */
function render(): void {
  const now = Date.now()
  const status = $('live')
  const note = $('stale-note')
  let stale = false
  if (state.newest !== null) {
    const f = freshness(state.newest.timestamp, now, STALE_AFTER_SECS)
    stale = f.stale
    $('chain-time').textContent = `block ${state.newest.height} at ${chainTime(state.newest.timestamp)}`
    $('block-age').textContent = `${age(f.ageSecs)} old`
    if (stale) {
      note.textContent = `Stale: the newest block is ${age(f.ageSecs)} old, past this server's threshold of ${STALE_AFTER_SECS} s. The prices below describe the chain as it was then.`
      note.hidden = false
    } else note.hidden = true
  }
  if (state.updatedAt !== null) $('updated-ago').textContent = `updated ${Math.max(0, Math.floor((now - state.updatedAt) / 1000))} s ago`
  const feed = state.feed
  let text: string
  let className: string
  let title = ''
  if (feed.kind === 'down') {
    ;[text, className, title] = [feed.text, 'status error', feed.title]
  } else if (stale) {
    ;[text, className, title] = ['stale', 'status stale', `the newest block is older than ${STALE_AFTER_SECS} s (this server's health threshold)`]
  } else if (feed.kind === 'stream') {
    ;[text, className] = ['live', 'status on']
  } else if (feed.kind === 'polling') {
    ;[text, className, title] = ['live (polling)', 'status on', feed.title]
  } else {
    ;[text, className] = ['connecting…', 'status']
  }
  // Written only on change: the status is a live region, announced each time it is set.
  if (status.textContent !== text) status.textContent = text
  status.className = className
  status.title = title
}

let refreshing: { again: boolean } | null = null
/** Reads everything the page shows but the Aptos prices; one at a time, and a burst of blocks ends with one more. */
function refresh(): Promise<void> {
  if (refreshing !== null) {
    refreshing.again = true
    return Promise.resolve()
  }
  const run = { again: false }
  refreshing = run
  return Promise.all([
    getJson<{ block_height: string; ledger_timestamp: string }>('/v1'),
    getJson<CalibratedEstimate>('/v1/gas/estimate'),
    getJson<HistoryBlock[]>(`/v1/gas/history?blocks=${HISTORY_BLOCKS}`),
    getJson<TierPoint[]>('/gas-page/tiers'),
  ])
    .then(async ([ledger, calibrated, history, tiers]) => {
      state.newest = { height: String(ledger.block_height), timestamp: String(ledger.ledger_timestamp) }
      state.typicalGas = typicalGas(history)
      showCalibrated(calibrated)
      if (state.aptos !== null) showAptos(state.aptos)
      showHistory(history)
      showTiers(tiers, history)
      state.updatedAt = Date.now()
      render()
      await showInverse(calibrated)
    })
    .catch((e: unknown) => {
      $('history-summary').textContent = String(e)
      $('history-summary').className = 'error'
    })
    .finally(() => {
      refreshing = null
      if (run.again) void refresh()
    })
}

/** The served estimate and the height it is at, from one answer (its ledger header), so they always agree. */
async function served(): Promise<{ estimate: Estimation; height: string | null }> {
  const res = await fetch('/v1/estimate_gas_price', { headers: { accept: 'application/json' } })
  if (!res.ok) throw new Error(`/v1/estimate_gas_price: ${res.status}`)
  return { estimate: parseExact(await res.text()) as Estimation, height: res.headers.get(`${SERVER.headerPrefix ?? 'X-NODE-'}BLOCK-HEIGHT`) }
}

function listen(): void {
  const source = new EventSource('/v1/gas/stream')
  source.addEventListener('open', () => {
    state.feed = { kind: 'stream' }
    render()
  })
  source.addEventListener('error', () => {
    // CLOSED: the browser gave up (the stream answered other than 200), so poll instead.
    if (source.readyState === EventSource.CLOSED) poll('the stream could not be opened')
    else {
      state.feed = { kind: 'down', text: 'reconnecting…', title: 'the event stream was interrupted' }
      render()
    }
  })
  source.addEventListener('estimate', (ev) => {
    const d = parseExact((ev as MessageEvent<string>).data) as { block_height: string; serves: string; aptos: Estimation; calibrated: Estimation }
    $('block-height').textContent = String(d.block_height)
    $('serves').textContent = d.serves
    showAptos(d.aptos)
    showCalibratedPrices(d.calibrated)
    document.body.dataset.lastEventId = (ev as MessageEvent<string>).lastEventId
    state.feed = { kind: 'stream' }
    void refresh()
  })
}

let polling = false
function poll(why: string): void {
  if (polling) return
  polling = true
  const title = `${why}; polling /v1/estimate_gas_price every ${POLL_MS} ms`
  state.feed = { kind: 'polling', title }
  render()
  const tick = () =>
    served()
      .then(
        (s) => {
          if (s.height !== null && s.height !== $('block-height').textContent) {
            $('block-height').textContent = s.height
            showAptos(s.estimate)
            void refresh()
          }
          state.feed = { kind: 'polling', title }
        },
        () => {
          state.feed = { kind: 'down', text: 'polling: the server did not answer', title }
        },
      )
      .finally(() => {
        render()
        setTimeout(tick, POLL_MS)
      })
  setTimeout(tick, POLL_MS)
}

async function start(): Promise<void> {
  $('serves').textContent = SERVER.serves ?? ''
  const [now] = await Promise.all([served(), refresh()])
  showAptos(now.estimate)
  $('block-height').textContent = now.height ?? state.newest?.height ?? '…'
  setInterval(render, 1000)
  if (SERVER.stream === 'on') listen()
  else poll('the stream is off on this server')
}

start().catch((e: unknown) => {
  state.feed = { kind: 'down', text: String(e), title: '' }
  render()
})
