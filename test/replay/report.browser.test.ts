import { execSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Backtest } from '../../src/replay/backtest.js'
import { parseStrategies } from '../../src/replay/parse-strategies.js'
import { renderReport } from '../../src/replay/report-html.js'
import { toBacktestJson } from '../../src/replay/result-json.js'
import { SMALL, syntheticChain } from './helpers.js'

const ARTIFACTS = resolve('test/artifacts')
const N = 6000

/** Debian's `chromium`; the lead's .ci/run installs it. Absent → the test fails, it does not skip. */
function chromiumPath(): string {
  try {
    return execSync('command -v chromium', { shell: '/bin/sh', encoding: 'utf8' }).trim()
  } catch {
    throw new Error('chromium not found on PATH: install Debian\'s chromium (apt-get install -y chromium) to run the report browser test')
  }
}

describe('HTML report in headless Chromium', () => {
  let browser: Browser
  let file: string
  let json: ReturnType<typeof toBacktestJson>

  beforeAll(async () => {
    const executablePath = chromiumPath()
    const strategies = parseStrategies('aptos,aptos:low=5:market=20:aggressive=60,geth,target,target:k=1:q=0.99', SMALL)
    const bt = new Backtest({ strategies, ks: [1, 3, 10], config: SMALL })
    for (const b of syntheticChain(N, 5)) bt.push(b)
    const result = bt.finish()
    json = toBacktestJson(result)
    mkdirSync(ARTIFACTS, { recursive: true })
    file = join(ARTIFACTS, 'report.html')
    writeFileSync(file, renderReport(result, json, { input: 'synthetic chain (seed 5)' }))
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
  })

  it('draws every chart from the file alone, with no network request, and saves a screenshot', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } })
    const url = pathToFileURL(file).href
    const attempted: string[] = []
    const errors: string[] = []
    await page.route('**/*', (route) => {
      const u = route.request().url()
      if (u === url) return route.continue()
      attempted.push(u)
      return route.abort()
    })
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text())
    })
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(url)

    const charts = await page.$$eval('svg[data-chart]', (svgs) =>
      svgs.map((svg) => ({
        id: svg.getAttribute('data-chart') as string,
        series: [...svg.querySelectorAll('path.series')].map((p) => ({
          name: p.getAttribute('data-series'),
          // a point per M/L/H/V command: what was actually drawn
          points: ((p.getAttribute('d') ?? '').match(/[MLHV]/g) ?? []).length,
        })),
        bars: svg.querySelectorAll('rect.bar').length,
        rings: svg.querySelectorAll('circle.point').length,
        labels: [...svg.querySelectorAll('text.xlabel, text.ylabel')].map((t) => t.textContent),
      })),
    )
    const byId = new Map(charts.map((c) => [c.id, c]))
    const names = json.strategies.map((s) => s.name)

    for (const name of names) {
      const c = byId.get(`timeseries:${name}`)
      expect(c, `time series chart of ${name}`).toBeDefined()
      expect(c?.series.map((s) => s.name)).toEqual(['realised cutoff', 'deprioritized', 'regular', 'prioritized'])
      for (const s of c?.series ?? []) {
        expect(s.points).toBeGreaterThan(100)
        expect(s.points).toBeLessThanOrEqual(2000) // ≤ 2 points per bucket
      }
      expect(c?.labels).toEqual(['block height', 'gas unit price (octas/gas unit, log scale)'])
    }
    for (const tier of ['deprioritized', 'regular', 'prioritized']) {
      expect(byId.get(`inclusion:${tier}`)?.bars).toBe(names.length * 3)
      const o = byId.get(`overpayment:${tier}`)
      expect(o?.series.map((s) => s.name)).toEqual(names)
      for (const s of o?.series ?? []) expect(s.points).toBeGreaterThanOrEqual(3)
      expect(o?.labels[0]).toMatch(/octas\/gas unit/)
    }
    const cal = byId.get('calibration')
    // target: one sweep line per promised k (10, 3, 1); target:k=1:q=0.99: one (k = 1)
    expect(cal?.series.map((s) => s.name)).toEqual(['target|k=1', 'target|k=3', 'target|k=10', 'target:k=1:q=0.99|k=1'])
    for (const s of cal?.series ?? []) expect(s.points).toBe(5)
    expect(cal?.rings).toBe(6)
    expect(charts).toHaveLength(names.length + 3 + 3 + 1)

    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true })
    await page.close()
  }, 60_000)
})
