import type { BacktestResult } from './backtest.js'
import { calibrationChart, inclusionChart, overpaymentChart, timeSeriesChart } from './report-charts.js'
import type { BacktestJson } from './result-json.js'
import { escapeXml } from './svg.js'
import { TIERS } from './strategy.js'

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:960px;color:#222;padding:0 12px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;padding-bottom:3px}
p.meta,figcaption,.note{color:#555;font-size:12.5px}
figure{margin:10px 0 18px}svg{max-width:100%;height:auto;background:#fff}
svg text{font:11px system-ui,sans-serif;fill:#333}svg .title{font-size:13px;font-weight:600}
svg .ytick{text-anchor:end;dominant-baseline:middle}svg .xtick,svg .xlabel{text-anchor:middle}svg .ylabel{text-anchor:middle}
svg .grid{stroke:#eee}svg .axis{stroke:#888}svg .legend{font-size:11px}
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}
table{border-collapse:collapse;font-size:12.5px}td,th{padding:2px 8px;border-bottom:1px solid #eee;text-align:right}
td:nth-child(-n+3),th:nth-child(-n+3){text-align:left}td{white-space:nowrap}ul.note{padding-left:18px}`

/**
 * The backtest report: ONE self-contained HTML file (inline CSS and SVG, no script, no network)
 * with the summary table, per strategy the tiers against the realised cutoff over time, the
 * inclusion rate by k per strategy and tier, the overpayment distribution, and the calibration
 * plot. Size is bounded whatever the chain's length: time series are decimated to
 * `result.series.buckets` buckets (≤ 2 points each), CDFs to 300 points.
 */
export function renderReport(result: BacktestResult, json: BacktestJson, meta: { input: string; generated_by?: string }): string {
  const headK = json.k[0] as number
  const perBucket = result.series.blocksPerBucket
  const sampling =
    perBucket === 1
      ? 'Every block is drawn.'
      : `Downsampled for drawing: ${result.series.buckets} buckets of ${perBucket} blocks, each drawn as its minimum and maximum in time order, so spikes and dips stay visible.`
  const figures = (items: string[], caption: string) => items.map((svg) => `<figure>${svg}<figcaption>${caption}</figcaption></figure>`).join('\n')
  const rows = json.strategies.flatMap((s) =>
    s.tiers.map((t) => {
      const promise = t.promised === null ? '–' : `${t.promised.q} within ${t.promised.k}`
      const rates = json.k.map((k) => `<td>${fmtRate(t.inclusion_rate[String(k)] ?? null)}</td>`).join('')
      return `<tr><td>${escapeXml(s.name)}</td><td>${t.tier}</td><td>${promise}${t.achieved === null ? '' : ` → ${fmtRate(t.achieved)}`}</td>${rates}<td>${fmt(t.overpayment.median)}</td><td>${fmt(t.overpayment.p90)}</td><td>${t.mean_delay_blocks === null ? '–' : t.mean_delay_blocks.toFixed(2)}</td></tr>`
    }),
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>ledger-gas backtest: ${escapeXml(meta.input)}</title><style>${STYLE}</style></head>
<body>
<h1>Gas-price backtest</h1>
<p class="meta">Input <code>${escapeXml(meta.input)}</code>: ${json.blocks} blocks (heights ${json.first_block_height ?? '–'}..${json.last_block_height ?? '–'}), ${json.full_blocks} full under the scoring config. Strategies: ${json.strategies.map((s) => `<code>${escapeXml(s.name)}</code>`).join(', ')}. ${escapeXml(meta.generated_by ?? 'ledger-gas backtest')}.</p>
<table><thead><tr><th>strategy</th><th>tier</th><th>promise → achieved</th>${json.k.map((k) => `<th>within ${k}</th>`).join('')}<th>overpay p50</th><th>overpay p90</th><th>mean delay</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>
<p class="note">Overpayment in octas/gas unit at k=${headK}; delay in blocks.</p>
<h2>Estimates against the realised cutoff</h2>
<p class="note">The realised cutoff of a block is the least price that entered it: the minimum gas unit price when the block was not full, else its cheapest included price + 1. A tier line above the cutoff of the following blocks got in. ${sampling}</p>
${figures(result.strategies.map((_, i) => timeSeriesChart(result, i)), 'x: block height; y: octas/gas unit (log scale).')}
<h2>Inclusion rate by k</h2>
${figures(TIERS.map((t) => inclusionChart(json, t)), 'Share of blocks t whose tier price, submitted right after t, was included in one of blocks t+1..t+k; only blocks t with t+k inside the data count.')}
<h2>Overpayment distribution</h2>
${figures(TIERS.map((t) => overpaymentChart(result, t, headK)), `Empirical CDF of p − p* over included evaluations, p* = max(min gas unit price, least requirement among blocks t+1..t+${headK}).`)}
<h2>Calibration</h2>
${figures([calibrationChart(json)], 'Each promising tier (ring) and a sweep of q at the same k (line). On the diagonal a promise is kept exactly; below it, broken.')}
<h2>Method</h2>
<ul class="note">
<li>Inclusion: a transaction priced p, submitted right after block t (at the estimate taken after ingesting t), is included in block j &gt; t iff block j was not full or p is strictly above the cheapest price included in j. Fullness follows the engine's rules under the scoring config.</li>
<li>Within k: only blocks t with t + k inside the data are evaluated, so each k has N − k evaluations.</li>
<li>Overpayment: ${escapeXml(String(json.scoring.overpayment))}.</li>
<li>Quantiles: ${escapeXml(String(json.scoring.quantiles))}.</li>
<li>Delay: ${escapeXml(String(json.scoring.delay))}.</li>
</ul>
</body></html>
`
}

function fmtRate(r: number | null): string {
  return r === null ? '–' : `${(r * 100).toFixed(1)}%`
}

function fmt(v: number | null): string {
  return v === null ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(1)
}
