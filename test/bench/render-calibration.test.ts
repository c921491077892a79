import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  asCalibrationResult,
  CALIBRATION_JSON,
  CALIBRATION_PAGE,
  renderCalibration,
  renderPromises,
  renderVerdicts,
  verdict,
  type CalibrationResult,
  type PromiseRow,
} from '../../bench/render-calibration.js'

function promise(k: number, q: number, fields: { coverage?: number; over?: number; above?: number; floorRate?: number; aci?: number; best?: number; fixed?: number; fixedAtQ?: number; stateBar?: number; stateBarOos?: number } = {}): PromiseRow {
  const learner = fields.over ?? 10
  const aci = fields.aci ?? 10
  const best = fields.best ?? 8
  const floorRate = fields.floorRate ?? 0.5
  return {
    chain: 'c',
    k,
    q,
    floor_rate: floorRate,
    attainable: floorRate < q,
    learner: { coverage: fields.coverage ?? q, overpayment: learner, above_floor_share: fields.above ?? 0.5 },
    aci: { coverage: q, overpayment: aci },
    best: { coverage: q, overpayment: best, window: 250, lr: 0.01 },
    fixed: { coverage: q, overpayment: fields.fixed ?? aci, low: 100, high: 300, low_share: 0.1 },
    fixed_at_q: { coverage: q, overpayment: fields.fixedAtQ ?? aci, low: 100, high: 400, low_share: 0.2 },
    ...(fields.stateBar === undefined ? {} : { state_bar: { coverage: q, overpayment: fields.stateBar } }),
    ...(fields.stateBarOos === undefined ? {} : { state_bar_oos: { coverage: q, overpayment: fields.stateBarOos } }),
    ratio_to_aci: learner / aci,
    ratio_to_best: learner / best,
  }
}

function result(promises: PromiseRow[], recovery: CalibrationResult['recovery'] = []): CalibrationResult {
  return {
    group: 'calibration',
    commit: 'abc1234',
    date: '2026-01-02T03:04:05.000Z',
    node: 'v20.0.0',
    cores: 2,
    load_average: { start: 1.5, end: 2.25 },
    seconds: 12.4,
    blocks: 3000,
    seed: 1,
    chains: [{ chain: 'c', blocks: 3000, full_share: 0.25 }],
    promises,
    tiers: [
      { chain: 'c', strategy: 'aptos', tier: 'regular', k: 1, coverage: 0.9, overpayment: 3 },
      { chain: 'c', strategy: 'aptos', tier: 'regular', k: 3, coverage: 0.95, overpayment: 2.5 },
      { chain: 'c', strategy: 'geth', tier: 'regular', k: 1, coverage: 1, overpayment: 40 },
    ],
    recovery,
  }
}

describe('the calibration page', () => {
  it('holds coverage to [q − 1, q + 2] points on attainable promises only', () => {
    const rows = [promise(1, 0.9, { coverage: 0.89 }), promise(3, 0.9, { coverage: 0.92 }), promise(10, 0.9, { coverage: 0.921 }), promise(1, 0.8, { coverage: 0.789 }), promise(1, 0.5, { coverage: 0.99, floorRate: 0.6, above: 0 })]
    expect(verdict('c', rows, undefined).off_coverage).toEqual(['0.9@10', '0.8@1'])
  })

  it('flags a floor-bound promise quoted above the floor on more than 1% of blocks', () => {
    const rows = [promise(1, 0.5, { floorRate: 0.7, above: 0.01 }), promise(3, 0.5, { floorRate: 0.7, above: 0.011 }), promise(10, 0.9, { above: 0.5 })]
    expect(verdict('c', rows, undefined).floor_bound_above).toEqual(['0.5@3'])
    const table = renderPromises(result(rows), 'c')
    expect(table).toContain('| 0.5@1 (floor-bound) | 70.0% |')
    expect(table).toContain('| ✓ above floor on 1.0% |')
    expect(table).toContain('| ✗ above floor on 1.1% |')
  })

  it('holds each attainable q ≥ 0.8 to 1.1× aci and the geometric mean to 0.85× aci and 1.25× the best in hindsight', () => {
    const rows = [promise(1, 0.8, { over: 11, aci: 10, best: 10 }), promise(3, 0.9, { over: 4, aci: 2, best: 2 }), promise(10, 0.95, { over: 1, aci: 10, best: 1 }), promise(1, 0.5, { over: 50, aci: 1, floorRate: 0.3 })]
    const v = verdict('c', rows, undefined)
    expect(v.over_aci).toEqual(['0.9@3'])
    // over 1.1, 2 and 0.1 (q = 0.5 is left out): (1.1 · 2 · 0.1)^(1/3)
    expect(v.geomean_to_aci).toBeCloseTo(Math.cbrt(0.22), 12)
    expect(v.geomean_to_best).toBeCloseTo(Math.cbrt(1.1 * 2 * 1), 12)
    const page = renderVerdicts(result(rows))
    expect(page).toContain(`| c | ✓ | ✓ | ✗ 0.9@3 | ${Math.cbrt(0.22) <= 0.85 ? '✓' : '✗'} ${Math.cbrt(0.22).toFixed(2)} | ✗ ${Math.cbrt(2.2).toFixed(2)} | – (no burst) | 1.00 / 1.00 | – / – |`)
  })

  it('gives the fixed price in hindsight beside the checks, at q − 1 point and at q, as geometric means ÷ aci over the cost rows', () => {
    const rows = [promise(1, 0.8, { aci: 10, fixed: 5, fixedAtQ: 8 }), promise(3, 0.9, { aci: 2, fixed: 1, fixedAtQ: 2 }), promise(1, 0.5, { aci: 1, fixed: 9, fixedAtQ: 9, floorRate: 0.3 })]
    expect(verdict('c', rows, undefined).fixed_geomean_to_aci).toBeCloseTo(0.5, 12)
    expect(verdict('c', rows, undefined).fixed_at_q_geomean_to_aci).toBeCloseTo(Math.sqrt(0.8), 12)
    expect(renderVerdicts(result(rows))).toMatch(/\| – \(no burst\) \| 0\.50 \/ 0\.89 \| – \/ – \|$/m)
  })

  it('gives the state-conditioned bar at q beside them, and a dash for results written before it existed', () => {
    const rows = [promise(1, 0.8, { aci: 10, stateBar: 4 }), promise(3, 0.9, { aci: 2, stateBar: 1.6 })]
    expect(verdict('c', rows, undefined).state_bar_geomean_to_aci).toBeCloseTo(Math.sqrt(0.4 * 0.8), 12)
    expect(renderVerdicts(result(rows))).toMatch(/\| 0\.57 \/ – \|$/m)
    expect(renderCalibration(result(rows))).toContain('| 90.0% · 2.0 | 90.0% · 1.6 | – | ')
    expect(verdict('c', [promise(1, 0.8, { aci: 10 })], undefined).state_bar_geomean_to_aci).toBeNull()
  })

  it('gives the state-conditioned bar out of sample beside the one in sample', () => {
    const rows = [promise(1, 0.8, { aci: 10, stateBar: 4, stateBarOos: 6 }), promise(3, 0.9, { aci: 2, stateBar: 1.6, stateBarOos: 1.8 })]
    expect(verdict('c', rows, undefined).state_bar_oos_geomean_to_aci).toBeCloseTo(Math.sqrt(0.6 * 0.9), 12)
    expect(renderVerdicts(result(rows))).toMatch(/\| 0\.57 \/ 0\.73 \|$/m)
    expect(renderCalibration(result(rows))).toContain('| 90.0% · 2.0 | 90.0% · 1.6 | 90.0% · 1.8 | ')
    expect(verdict('c', [promise(1, 0.8, { aci: 10, stateBar: 4 })], undefined).state_bar_oos_geomean_to_aci).toBeNull()
  })

  it('marks burst recovery against the Aptos market tier', () => {
    const rows = [promise(3, 0.9)]
    const slow = { chain: 'c', bursts: 3, target_regular: 4.5, aci_regular: 40, aptos_market: 4 }
    expect(verdict('c', rows, slow).recovery_met).toBe(false)
    expect(verdict('c', rows, { ...slow, target_regular: 4 }).recovery_met).toBe(true)
    expect(verdict('c', rows, { ...slow, bursts: 0 }).recovery_met).toBeNull()
    const page = renderCalibration(result(rows, [slow]))
    expect(page).toContain('| c | 3 | 4.5 | 40.0 | 4.0 | ✗ |')
  })

  it('gives the run context, the regeneration command and the served tiers per k', () => {
    const page = renderCalibration(result([promise(3, 0.9, { over: 5, aci: 10, best: 6, coverage: 0.905 })]))
    expect(page).toContain('Commit abc1234, 2026-01-02 03:04 UTC, Node v20.0.0, 2 cores, load average 1.50 at start and 2.25 at end; 3,000 blocks per generated chain, seed 1, 12 s.')
    expect(page).toContain('`npm run bench -- calibration`')
    expect(page).toContain('| 0.9@3 | 50.0% | 90.5% · 5.0 | 90.0% · 10.0 | (250, 0.01) | 90.0% · 6.0 | 100 (10%) · 300 | 90.0% · 10.0 | 100 (20%) · 400 | 90.0% · 10.0 | – | – | 0.50 | 0.83 | ✓ | ✓ |')
    expect(page).toContain('| aptos | regular | 90.0% · 3.0 | 95.0% · 2.5 |')
    expect(page).toContain('| geth | regular | 100.0% · 40.0 | – |')
    expect(page.endsWith('\n')).toBe(true)
  })

  it('refuses a result file without its fields, naming the file and field', () => {
    const good = result([promise(3, 0.9)])
    expect(asCalibrationResult(JSON.parse(JSON.stringify(good)), 'x.json')).toEqual(good)
    expect(() => asCalibrationResult({ ...good, group: 'core' }, 'x.json')).toThrow('x.json: group: expected "calibration"')
    expect(() => asCalibrationResult({ ...good, promises: undefined }, 'x.json')).toThrow('x.json: promises: expected an array')
    expect(() => asCalibrationResult({ ...good, load_average: 3 }, 'x.json')).toThrow('x.json: load_average: expected { start, end }')
  })

  it('docs/calibration.md is what the renderer makes of bench/results/calibration.json', () => {
    const json = asCalibrationResult(JSON.parse(readFileSync(CALIBRATION_JSON, 'utf8')), 'bench/results/calibration.json')
    expect(readFileSync(CALIBRATION_PAGE, 'utf8')).toBe(renderCalibration(json))
  })
})
