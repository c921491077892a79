import type { BacktestJson } from '../result-json.js'

/**
 * The summary table printed by `ledger-gas backtest`: one row per strategy and tier with the
 * inclusion rate at each requested k, overpayment median and p90 (octas/gas unit, at the
 * smallest k) and mean delay (blocks). A promise the floor price alone kept is marked floor-bound.
 */
export function formatTable(json: BacktestJson): string {
  const ks = json.k
  const headK = ks[0]
  const header = ['strategy', 'tier', 'promise', ...ks.map((k) => `in ${k}`), `over p50`, `over p90`, 'delay']
  const rows: string[][] = []
  for (const s of json.strategies) {
    for (const t of s.tiers) {
      const promise = t.promised === null ? '-' : `${t.promised.q}@${t.promised.k}${t.achieved === null ? '' : ` (${percent(t.achieved)})`}${t.floor_bound === true ? ' floor-bound' : ''}`
      rows.push([
        s.name,
        t.tier,
        promise,
        ...ks.map((k) => percent(t.inclusion_rate[String(k)] ?? null)),
        num(t.overpayment.median),
        num(t.overpayment.p90),
        t.mean_delay_blocks === null ? '-' : t.mean_delay_blocks.toFixed(2),
      ])
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)))
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ').trimEnd()
  const title = `${json.blocks} blocks (${json.full_blocks} full), heights ${json.first_block_height ?? '-'}..${json.last_block_height ?? '-'}; ` +
    `"in k" = inclusion rate within k blocks; overpayment in octas/gas unit at k=${headK}; delay in blocks; ` +
    `"floor-bound" = the minimum price alone kept that promise (over-kept by construction)`
  return [title, line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n'
}

function percent(r: number | null): string {
  return r === null ? '-' : `${(r * 100).toFixed(1)}%`
}

function num(v: number | null): string {
  if (v === null) return '-'
  return Number.isInteger(v) ? String(v) : v.toFixed(1)
}
