import type { BacktestResult } from '../backtest.js'
import { frontierChart } from './frontier-chart.js'
import { FLOOR_BOUND_NOTE, calibrationChart, inclusionChart, isFloorBound, overpaymentChart, timeSeriesChart } from './report-charts.js'
import type { BacktestJson } from '../result-json.js'
import { escapeXml, readableNumber } from './svg.js'
import { TIERS } from '../strategies/strategy.js'

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:960px;color:#222;padding:0 12px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;padding-bottom:3px}
p.meta,figcaption,.note{color:#555;font-size:12.5px}
figure{margin:10px 0 18px}svg{max-width:100%;height:auto;background:#fff}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .title{font-size:13px;font-weight:600}
svg .ytick{text-anchor:end;dominant-baseline:middle}svg .xtick,svg .xlabel{text-anchor:middle}svg .ylabel{text-anchor:middle}
svg .ytick.data,svg .xtick.data{font-weight:700;fill:#111}svg .ytick.round,svg .xtick.round{fill:#777}
svg .grid{stroke:#eee}svg .grid.mark{stroke:#e2e2e2}svg .grid.data{stroke:#d8d8d8}svg .axis{stroke:#888}
svg text.legend{dominant-baseline:middle}svg text.legend.note{font-style:italic;fill:#555}svg text.pointlabel{text-anchor:end;font-size:10.5px;font-weight:600;paint-order:stroke;stroke:#fff;stroke-width:3px}
svg text.barlabel{text-anchor:middle;font-size:9.5px;fill:#444}
svg text.pointlabel.front{text-anchor:start}svg .subtitle{fill:#555;font-style:italic}svg .paneltitle{font-size:12.5px;font-weight:700}svg text.promiselabel{text-anchor:middle;font-size:10.5px;fill:#555}
figure.lead{width:min(1440px,calc(100vw - 48px));position:relative;left:50%;transform:translateX(-50%)}figure.lead svg{width:100%;height:auto}
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}code{font-size:12px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right;vertical-align:top}
table.summary td:nth-child(-n+3),table.summary th:nth-child(-n+3),table.config td,table.config th{text-align:left}
table.summary td,table.summary th{white-space:nowrap}table.summary td:first-child{white-space:normal;overflow-wrap:anywhere;max-width:200px}.wide{overflow-x:auto}table.config td code{white-space:normal;word-break:break-word}
.fb{color:#8a4b00;font-weight:600}ul.note{padding-left:18px}`

/**
 * The backtest report: ONE self-contained HTML file (inline CSS and SVG, no script, no network)
 * opening with the cost-coverage chart (`frontierChart`: per promise horizon, which strategy's
 * tier keeps which inclusion rate at what overpayment), then the summary table, the scoring rule and each strategy's config, per strategy the tiers
 * against the realised cutoff over time, the inclusion rate by k per strategy and tier, the
 * overpayment distribution, and the calibration plot. Every curve's legend gives its sample size.
 * Size is bounded whatever the chain's length: time series are decimated to
 * `result.series.buckets` buckets (≤ 2 points each), CDFs to 300 points.
 */
export function renderReport(result: BacktestResult, json: BacktestJson, meta: { input: string; generated_by?: string }): string {
  const headK = json.k[0] as number
  const perBucket = result.series.blocksPerBucket
  const sampling =
    perBucket === 1
      ? 'Every block is drawn.'
      : `For drawing, the blocks are grouped into ${readableNumber(result.series.buckets)} buckets of ${readableNumber(perBucket)} blocks, each drawn as its minimum and maximum in time order, so spikes and dips stay visible.`
  const figures = (items: string[], caption: string) => items.map((svg) => `<figure>${svg}<figcaption>${caption}</figcaption></figure>`).join('\n')
  const anyFloorBound = json.strategies.some((s) => s.tiers.some(isFloorBound))
  // every tier is evaluated on the same blocks t at a given k, so one n per column says it all
  const evaluated = (k: number) => {
    const counts = [...new Set(json.strategies.flatMap((s) => s.tiers.map((t) => t.evaluated[String(k)] ?? 0)))]
    return counts.length === 1 ? readableNumber(counts[0] as number) : `${readableNumber(Math.min(...counts))}–${readableNumber(Math.max(...counts))}`
  }
  const rows = json.strategies.flatMap((s) =>
    s.tiers.map((t) => {
      const promise = t.promised === null ? '–' : `${t.promised.q} within ${t.promised.k}${t.achieved === null ? '' : ` → ${fmtRate(t.achieved)}`}`
      const bound = isFloorBound(t) ? ` <span class="fb" title="${escapeXml(FLOOR_BOUND_NOTE)}">floor-bound</span>` : ''
      const rates = json.k.map((k) => `<td>${fmtRate(t.inclusion_rate[String(k)] ?? null)}</td>`).join('')
      return `<tr><td>${breakable(s.name)}</td><td>${t.tier}</td><td>${promise}${bound}</td>${rates}<td>${readableNumber(t.overpayment.count)}</td><td>${fmt(t.overpayment.median)}</td><td>${fmt(t.overpayment.p90)}</td><td>${t.mean_delay_blocks === null ? '–' : t.mean_delay_blocks.toFixed(2)}</td></tr>`
    }),
  )
  const scoring = json.scoring
  const text = (key: string) => (typeof scoring[key] === 'string' ? escapeXml(scoring[key]) : null)
  const rule = text('rule')
  const method = [
    rule === null ? null : `Inclusion: the scoring rule stated under the summary table. Whether a block was full follows the engine's rules under the scoring config below.`,
    `Within k: only blocks t with t + k inside the data are evaluated, so each k has N − k evaluations (N = ${readableNumber(json.blocks)} blocks).`,
    text('overpayment') === null ? null : `Overpayment: ${text('overpayment')}.`,
    text('quantiles') === null ? null : `Quantiles: ${text('quantiles')}.`,
    text('delay') === null ? null : `Delay: ${text('delay')}.`,
  ].filter((x) => x !== null)
  const scoringConfig = scoring.config !== null && typeof scoring.config === 'object' ? (scoring.config as Record<string, unknown>) : null
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>ledger-gas backtest: ${escapeXml(meta.input)}</title><style>${STYLE}</style></head>
<body>
<h1>Gas-price backtest</h1>
<p class="meta">Input <code>${escapeXml(meta.input)}</code>: ${readableNumber(json.blocks)} blocks (heights ${height(json.first_block_height)} to ${height(json.last_block_height)}), of which ${readableNumber(json.full_blocks)} were full under the scoring config. Strategies compared: ${json.strategies.map((s) => `<code>${escapeXml(s.name)}</code>`).join(', ')}. Generated by ${escapeXml(meta.generated_by ?? 'ledger-gas backtest')}.</p>
<figure class="lead">${frontierChart(json)}<figcaption>Which strategy keeps which inclusion rate at what price: one panel per promise horizon k, one point per strategy (colour) and tier (shape). x: the share of blocks t whose tier price, submitted right after t, was included in one of blocks t+1..t+k; y: the mean overpayment p − p* of those included (octas/gas unit). The grey staircase is the cost-coverage frontier; a dashed line marks each promised q, and a thin line joins each promising tier to it.</figcaption></figure>
${rule === null ? '' : `<p class="note">Scoring rule: ${rule}.</p>`}
<div class="wide"><table class="summary"><thead><tr><th>strategy</th><th>tier</th><th>promise → achieved</th>${json.k.map((k) => `<th>within ${k}<br>n=${evaluated(k)}</th>`).join('')}<th>included<br>at k=${headK}</th><th>overpay<br>p50</th><th>overpay<br>p90</th><th>mean<br>delay</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>
<p class="note">“within k”: the share of the n blocks t whose tier price, submitted right after t, was included in one of blocks t+1..t+k. “included at k=${headK}”: how many of those transactions got in within ${headK} block${headK === 1 ? '' : 's'}; overpayment p50 and p90 (octas/gas unit) are over them. Mean delay is in blocks.${anyFloorBound ? ` <span class="fb">${escapeXml(FLOOR_BOUND_NOTE)}</span>. On this data the minimum gas unit price alone would keep such a promise, so keeping it says little about the strategy.` : ''}</p>
<h2>Estimates against the realised cutoff</h2>
<p class="note">The realised cutoff of a block is the least price that would have entered it: the minimum gas unit price when the block was not full, else its cheapest included price + 1. A tier price above the realised cutoff of a following block would have entered that block. The tiers are drawn 2 px apart (prioritized above, deprioritized below) so that equal tiers stay visible side by side. The price axis has ticks at the least and greatest price drawn (bold) and at each mempool bucket of the scoring config in between. ${sampling}</p>
${figures(result.strategies.map((_, i) => timeSeriesChart(result, i)), 'x: block height; y: gas unit price, the tier price after the block and the realised cutoff of that block.')}
<h2>Inclusion rate by k</h2>
${figures(TIERS.map((t) => inclusionChart(json, t)), 'The share of blocks t whose tier price, submitted right after t, was included in one of blocks t+1..t+k; only blocks t with t+k inside the data count (n in the legend).')}
<h2>Overpayment distribution</h2>
${figures(TIERS.map((t) => overpaymentChart(result, t, headK)), `Empirical CDF of p − p* over the included evaluations (n in the legend), where p* = max(min gas unit price, least requirement among ${headK === 1 ? 'block t+1' : `blocks t+1..t+${headK}`}). Both axes are fitted to the curves.`)}
<h2>Calibration</h2>
${figures([calibrationChart(json)], `Each promising tier (ring${anyFloorBound ? ', or a square when floor-bound' : ''}) and a sweep of q at the same k (line). On the diagonal a promise is kept exactly; in the shaded area below it, the promise is broken.`)}
<h2>Strategies</h2>
<table class="config"><thead><tr><th>strategy</th><th>kind</th><th>config</th></tr></thead><tbody>
${json.strategies.map((s) => `<tr><td><code>${escapeXml(s.name)}</code></td><td>${escapeXml(s.kind)}</td><td>${configText(s.config, scoringConfig)}</td></tr>`).join('\n')}
</tbody></table>
<h2>Scoring</h2>
<ul class="note">
${method.map((m) => `<li>${m}</li>`).join('\n')}
</ul>
${scoringConfig === null ? '' : `<p class="note">Scoring config: <code>${escapeXml(keyValues(scoringConfig))}</code>.</p>`}
</body></html>
`
}

/** A strategy's config as `key=value` pairs; an aptos config equal to the scoring config says so instead of repeating it. */
function configText(config: Record<string, unknown>, scoring: Record<string, unknown> | null): string {
  if (Object.keys(config).length === 0) return '–'
  if (scoring !== null && keyValues(config) === keyValues(scoring)) return 'the scoring config (below)'
  return `<code>${escapeXml(keyValues(config))}</code>`
}

function keyValues(config: Record<string, unknown>): string {
  return Object.entries(config)
    .map(([k, v]) => `${k}=${valueText(v)}`)
    .join(' ')
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return String(v)
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}: ${valueText(x)}`).join(', ')}}`
  return String(v)
}

/** A strategy name that may wrap after each ':' of its keys (a long one would widen the table). */
function breakable(name: string): string {
  return escapeXml(name).replace(/:/g, ':<wbr>')
}

/** A u64 height (a decimal string, exact) with thousands separators. */
function height(h: string | null): string {
  return h === null ? '–' : h.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function fmtRate(r: number | null): string {
  return r === null ? '–' : `${(r * 100).toFixed(1)}%`
}

function fmt(v: number | null): string {
  return v === null ? '–' : Number.isInteger(v) ? readableNumber(v) : v.toFixed(1)
}
