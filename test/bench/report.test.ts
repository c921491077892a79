import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { asGroupResult, figure, PAGE, readResults, renderBenchmarks, RESULTS_DIR } from '../../bench/report.js'

const FIXTURES = fileURLToPath(new URL('./fixtures/results/', import.meta.url))

describe('bench:report', () => {
  it('renders a group as a table row per baseline, with spreads, per-round ratios, target, before and load', () => {
    const { results, left } = readResults(FIXTURES)
    expect(left).toEqual(['legacy.json'])
    const page = renderBenchmarks(results)
    expect(page).toContain('## replay: whole process, cold')
    expect(page).toContain('Commit abc1234, 2026-01-02 03:04 UTC, Node v20.0.0, 2 cores, load average 1.5 at start and 2.25 at end, 3 rounds.')
    expect(page).toContain(
      '| replay, sample chain (15 MB) | wall s | ledger-gas replay: 0.31 (0.3–0.35) | split + JSON.parse: 0.2 (0.18–0.21) | 1.55x (1.43–1.75) | ≤ 1x: not met | 0.32 s vs 0.18 s: 1.85x |  |',
    )
    // A second baseline continues the row; a pipe in a name cannot break the table.
    expect(page).toContain('|  |  |  | a \\| second baseline: 0.5 | 0.62x |  |  |  |')
    // Cold groups come before warm ones; a skipped group says why instead of a table.
    expect(page.indexOf('## replay: whole process, cold')).toBeLessThan(page.indexOf('## estimate: in-process'))
    expect(page).toContain('Skipped: no PostgreSQL here')
    expect(page.endsWith('\n')).toBe(true)
  })

  it('formats figures with three significant digits, whole above 1000, and - for none', () => {
    expect([figure(0.123456), figure(12.345), figure(1234.5), figure(NaN)]).toEqual(['0.123', '12.3', '1235', '-'])
  })

  it('refuses a result file without the group fields, naming the file and field', () => {
    expect(() => asGroupResult({ group: 'g', title: 't', method: 'm', kind: 'cold', commit: 'c', date: 'd', node: 'n', cores: 2, rounds: 1, rows: [] }, 'bench/results/g.json')).toThrow(
      'bench/results/g.json: load_average: expected { start, end }',
    )
    expect(() => asGroupResult({ group: 1 }, 'x.json')).toThrow('x.json: group: expected a string')
  })

  it("every row of issue 21's audit table is on the page: measured now, beside a baseline, with the audit's figure as before", () => {
    const { results } = readResults(RESULTS_DIR)
    // [group, what the row's case names] for each line of the audit's table.
    const audit: [string, RegExp][] = [
      ['replay-cold', /154 MB/],
      ['replay-cold', /15 MB/],
      ['ingest-sqlite', /default/],
      // the audit's `ingest --threads 1` row: the ingest threads are gone (issue 22 item 4); the default row's before names it
      ['ingest-postgres', /ingest/],
      ['reads-cold', /accounts.*memory/],
      ['serve-startup', /154 MB/],
      ['estimate-cold', /estimate_gas_price/],
    ]
    for (const [group, name] of audit) {
      const rows = results.find((g) => g.group === group)?.rows.filter((r) => name.test(r.case)) ?? []
      expect(rows.some((r) => (r.before ?? '') !== '' && r.baselines.length > 0 && Number.isFinite(r.project.spread.median)), `${group}: a row ${name} with a baseline and a before`).toBe(true)
    }
  })

  it('docs/benchmarks.md is what the renderer makes of bench/results/*.json', () => {
    expect(readFileSync(PAGE, 'utf8')).toBe(renderBenchmarks(readResults(RESULTS_DIR).results))
  })
})
