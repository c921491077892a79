/**
 * The live page's style sheet (`GET /gas-page.css`). Dark, with text contrast of at least 4.5:1
 * on its panels (WCAG AA). Every grid track may shrink to the viewport (`min(100%, …)`), so a
 * 390 px phone gets one column and no horizontal scroll; from 1000 px the two estimators sit side
 * by side, the charts below them.
 */
export const PAGE_CSS = `:root { --bg: #0f1419; --panel: #182029; --ink: #e6edf3; --dim: #9fb0c0; --accent: #6fd0ff; --full: #f2706b; --open: #8394a5; --ok: #56d364; --warn: #f0b849;
  --tier-deprioritized: #8fd694; --tier-regular: #6fd0ff; --tier-prioritized: #f0b849; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--ink); }
a { color: var(--accent); }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 8px; top: 8px; background: var(--panel); padding: 6px 10px; z-index: 1; }
header { display: flex; flex-wrap: wrap; gap: 6px 20px; align-items: baseline; padding: 16px 20px; border-bottom: 1px solid #26313d; }
header h1 { margin: 0; font-size: 20px; }
header .meta { color: var(--dim); }
.status { margin-left: auto; color: var(--dim); font-weight: 600; }
.status.on::before { content: "\\25CF"; color: var(--ok); margin-right: 6px; }
.status.stale { color: var(--warn); }
.status.stale::before { content: "\\25B2"; margin-right: 6px; }
.status.error { color: var(--full); }
.freshness { padding: 8px 20px; color: var(--dim); border-bottom: 1px solid #26313d; overflow-wrap: anywhere; }
.stale-note { margin: 12px 20px 0; padding: 10px 14px; border-radius: 8px; border: 1px solid var(--warn); color: var(--ink); background: #2a2416; }
.stale-note[hidden] { display: none; }
main { padding: 16px 20px; display: grid; gap: 16px; grid-template-columns: minmax(0, 1fr); }
@media (min-width: 1000px) { main { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
section { background: var(--panel); border-radius: 10px; padding: 14px 16px; min-width: 0; }
section.wide { grid-column: 1 / -1; }
h2 { margin: 0 0 4px; font-size: 17px; }
h3 { margin: 0; font-size: 13px; color: var(--dim); text-transform: uppercase; letter-spacing: .05em; font-weight: 600; }
.sub { color: var(--dim); font-size: 13px; margin: 0 0 12px; }
.tiers { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 150px), 1fr)); gap: 10px; }
.tier { background: #111820; border-radius: 8px; padding: 10px 12px; min-width: 0; }
.tier .price { font-size: 26px; font-variant-numeric: tabular-nums; margin: 2px 0; overflow-wrap: anywhere; }
.tier .unit, .tier .cost { color: var(--dim); font-size: 12px; }
.tier .promise { font-size: 13px; color: var(--accent); margin-top: 4px; }
.tier .coverage, .tier .inverse { font-size: 12px; color: var(--dim); margin-top: 2px; }
.modes { font-size: 12px; color: var(--dim); margin: 10px 0 0; }
.charts { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 520px), 1fr)); }
figure { margin: 0; min-width: 0; }
figcaption { font-size: 13px; color: var(--dim); margin-bottom: 6px; }
svg.chart { width: 100%; height: 280px; display: block; }
.legend { display: flex; gap: 6px 16px; font-size: 12px; color: var(--dim); margin: 6px 0 0; padding: 0; list-style: none; flex-wrap: wrap; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.swatch.full { background: var(--full); }
.swatch.open { background: var(--open); }
.swatch.deprioritized { background: var(--tier-deprioritized); }
.swatch.regular { background: var(--tier-regular); }
.swatch.prioritized { background: var(--tier-prioritized); }
.error { color: var(--full); }
`
