import { execSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Backtest } from '../../../src/replay/backtest.js'
import { parseStrategies } from '../../../src/replay/strategies/parse-strategies.js'
import { renderReport } from '../../../src/replay/report/report-html.js'
import { frontierKs, frontierPoints } from '../../../src/replay/report/frontier-chart.js'
import { readableNumber } from '../../../src/replay/report/svg.js'
import { toBacktestJson } from '../../../src/replay/result-json.js'
import { SMALL, syntheticChain } from '../../helpers/replay.js'
import { refFrontier } from '../reference.js'

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
    // another change adds `floor_bound` to the result JSON: the report must mark such tiers
    for (const t of json.strategies.find((s) => s.name === 'target:k=1:q=0.99')?.tiers ?? []) Object.assign(t, { floor_bound: true })
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
        points: svg.querySelectorAll('.point').length,
        floorBound: svg.querySelectorAll('.point.floor-bound').length,
        labels: [...svg.querySelectorAll('text.xlabel, text.ylabel')].map((t) => t.textContent),
        // the full label is the tick's <title> (the text itself may be wrapped or cut)
        xTicks: [...svg.querySelectorAll('text.xtick')].map((t) => ({ label: t.querySelector('title')?.textContent ?? '', kind: t.classList[1] })),
        yTicks: [...svg.querySelectorAll('text.ytick')].map((t) => ({ label: t.textContent ?? '', kind: t.classList[1] })),
        legend: [...svg.querySelectorAll('text.legend')].map((t) => t.firstChild?.textContent ?? ''),
        // rendered boxes of every piece of text, to find labels that touch or spill out
        boxes: [...svg.querySelectorAll('text')].map((t) => {
          const b = t.getBoundingClientRect()
          return { text: t.textContent, cls: t.getAttribute('class'), x0: b.left, x1: b.right, y0: b.top, y1: b.bottom }
        }),
        frame: (() => {
          const b = svg.getBoundingClientRect()
          return { x0: b.left, x1: b.right, y0: b.top, y1: b.bottom }
        })(),
      })),
    )
    const byId = new Map(charts.map((c) => [c.id, c]))
    const names = json.strategies.map((s) => s.name)

    const buckets = SMALL.buckets.map((b) => readableNumber(Number(b)))
    for (const name of names) {
      const c = byId.get(`timeseries:${name}`)
      expect(c, `time series chart of ${name}`).toBeDefined()
      // drawing order: the cutoff under the tiers, the dotted deprioritized line last, on top
      expect(c?.series.map((s) => s.name)).toEqual(['realised cutoff', 'prioritized', 'regular', 'deprioritized'])
      for (const s of c?.series ?? []) {
        expect(s.points).toBeGreaterThan(100)
        expect(s.points).toBeLessThanOrEqual(2000) // ≤ 2 points per bucket
      }
      // prices span 100 to thousands here: a log axis
      expect(c?.labels).toEqual(['block height', 'gas unit price (octas/gas unit, log scale)'])
      // y ticks: the data's least and greatest price, and only mempool buckets or round values between
      const y = c?.yTicks ?? []
      expect(y.filter((t) => t.kind === 'data')).toHaveLength(2)
      expect(y.filter((t) => t.kind === 'mark').length).toBeGreaterThanOrEqual(3)
      for (const t of y.filter((t) => t.kind === 'mark')) expect(buckets).toContain(t.label)
      expect(c?.xTicks.filter((t) => t.kind === 'data').map((t) => t.label)).toEqual(['1', readableNumber(N)])
    }
    for (const tier of ['deprioritized', 'regular', 'prioritized']) {
      const inc = byId.get(`inclusion:${tier}`)
      expect(inc?.bars).toBe(names.length * 3)
      expect(inc?.xTicks.map((t) => t.label)).toEqual(names)
      expect(inc?.legend).toEqual([`within 1 block (n=${readableNumber(N - 1)} blocks t)`, `within 3 blocks (n=${readableNumber(N - 3)} blocks t)`, `within 10 blocks (n=${readableNumber(N - 10)} blocks t)`])
      const o = byId.get(`overpayment:${tier}`)
      expect(o?.series.map((s) => s.name)).toEqual(names)
      for (const s of o?.series ?? []) expect(s.points).toBeGreaterThanOrEqual(3)
      expect(o?.labels[0]).toMatch(/octas\/gas unit/)
      // the sample size of each curve: its included evaluations at the head k
      const counts = json.strategies.map((s) => s.tiers.find((t) => t.tier === tier)?.overpayment.count as number)
      expect(o?.legend).toEqual(names.map((n, i) => `${n} (n=${readableNumber(counts[i] as number)})`))
    }
    const cal = byId.get('calibration')
    // target: one sweep line per promised k (10, 3, 1); target:k=1:q=0.99: one (k = 1)
    expect(cal?.series.map((s) => s.name)).toEqual(['target|k=1', 'target|k=3', 'target|k=10', 'target:k=1:q=0.99|k=1'])
    for (const s of cal?.series ?? []) expect(s.points).toBe(5)
    expect(cal?.points).toBe(6)
    expect(cal?.floorBound).toBe(3)
    expect(cal?.legend).toContain('floor-bound: the minimum price already keeps this promise')
    expect(cal?.legend.filter((l) => / \(n=[0-9,]+\)$/.test(l))).toHaveLength(4)
    // the report opens with the cost-coverage chart: a panel per promised k, every tier a point,
    // the frontier's points those no other point beats, every promised q marked
    expect(charts[0]?.id).toBe('frontier')
    const panels = await page.$$eval('svg[data-chart="frontier"] g.panel', (gs) =>
      gs.map((g) => ({
        k: Number(g.getAttribute('data-k')),
        points: [...g.querySelectorAll('.point')].map((p) => p.getAttribute('data-series')),
        front: [...g.querySelectorAll('.point.front')].map((p) => p.getAttribute('data-series')).sort(),
        qs: [...g.querySelectorAll('text.promiselabel')].map((t) => t.textContent),
        steps: g.querySelector('path.frontier')?.getAttribute('data-points') ?? null,
      })),
    )
    expect(panels.map((p) => p.k)).toEqual(frontierKs(json))
    expect(frontierKs(json)).toEqual([1, 3, 10])
    for (const p of panels) {
      const points = frontierPoints(json, p.k)
      expect(p.points).toHaveLength(names.length * 3)
      expect(p.front, `frontier at k=${p.k}`).toEqual(refFrontier(points).map((x) => `${x.strategy}|${x.tier}`).sort())
      expect(p.steps).toBe(String(p.front.length))
      const qs = [...new Set(points.flatMap((x) => (x.q === null ? [] : [x.q])))].sort((a, b) => a - b)
      expect(p.qs).toEqual(qs.map((q) => `q ${Number((q * 100).toFixed(2))}%`))
    }
    expect(panels.find((p) => p.k === 1)?.qs).toEqual(['q 95%', 'q 99%'])
    const frontier = await page.$eval('svg[data-chart="frontier"]', (svg) => ({
      label: svg.getAttribute('aria-labelledby'),
      title: svg.querySelector('title#frontier-title')?.textContent ?? '',
      desc: svg.querySelector('desc#frontier-desc')?.textContent ?? '',
    }))
    expect(frontier.label).toBe('frontier-title frontier-desc')
    expect(frontier.title).toMatch(/^Cost against coverage/)
    expect(frontier.desc).toMatch(/Within 3: 15 points; the frontier runs through .*; promised q 90%\./)
    expect(charts).toHaveLength(1 + names.length + 3 + 3 + 1)

    for (const c of charts) {
      // every axis has labelled ticks, and no two labels of an axis or of the legend touch
      expect(c.xTicks.length, `${c.id} x ticks`).toBeGreaterThanOrEqual(2)
      expect(c.yTicks.length, `${c.id} y ticks`).toBeGreaterThanOrEqual(2)
      for (const t of [...c.xTicks, ...c.yTicks]) expect(t.label, c.id).toMatch(/[0-9a-z]/)
      for (const cls of ['xtick', 'ytick', 'legend']) {
        const boxes = c.boxes.filter((b) => (b.cls ?? '').split(' ')[0] === cls)
        expect(boxes.length, `${c.id} ${cls}`).toBeGreaterThanOrEqual(2)
        for (let i = 0; i < boxes.length; i++) {
          for (let j = i + 1; j < boxes.length; j++) {
            const a = boxes[i] as (typeof boxes)[number]
            const b = boxes[j] as (typeof boxes)[number]
            const overlap = a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5
            expect(overlap, `${c.id}: ${cls} '${a.text}' overlaps '${b.text}'`).toBe(false)
          }
        }
      }
      // no text spills out of its chart
      for (const b of c.boxes) {
        expect(b.x0 >= c.frame.x0 - 0.5 && b.x1 <= c.frame.x1 + 0.5 && b.y0 >= c.frame.y0 - 0.5 && b.y1 <= c.frame.y1 + 0.5, `${c.id}: '${b.text}' outside the chart`).toBe(true)
      }
    }
    // the tier table marks the floor-bound tiers with the note
    const table = await page.$eval('table.summary', (t) => t.textContent ?? '')
    expect(table.match(/floor-bound/g)).toHaveLength(3)
    expect(await page.$eval('body', (b) => b.textContent ?? '')).toContain('floor-bound: the minimum price already keeps this promise')

    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true })
    await page.close()
  }, 60_000)

  it('opens on the cost-coverage chart, whole and readable on a 1920×1080 screen, with no horizontal scroll', async () => {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } })
    await page.goto(pathToFileURL(file).href)
    const view = await page.$eval('svg[data-chart="frontier"]', (svg) => {
      const box = svg.getBoundingClientRect()
      return {
        first: svg.ownerDocument.querySelector('svg[data-chart]')?.getAttribute('data-chart'),
        box: { x0: box.left, x1: box.right, y0: box.top, y1: box.bottom },
        // drawn size of the 11px tick font: the scale the figure is shown at
        tickPx: svg.querySelector('text.ytick')?.getBoundingClientRect().height ?? 0,
      }
    })
    const overflow = async () => (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number
    expect(view.first).toBe('frontier')
    expect(view.box.x0).toBeGreaterThanOrEqual(0)
    expect(view.box.x1).toBeLessThanOrEqual(1920)
    expect(view.box.y1, 'the chart and its legend fit the first screen').toBeLessThanOrEqual(1080)
    expect(view.box.x1 - view.box.x0, 'wider than the 960 px text column').toBeGreaterThan(1300)
    expect(view.tickPx).toBeGreaterThanOrEqual(11)
    expect(await overflow()).toBeLessThanOrEqual(0)
    await page.screenshot({ path: join(ARTIFACTS, 'report-1920.png') })
    await page.setViewportSize({ width: 1000, height: 1000 })
    expect(await overflow()).toBeLessThanOrEqual(0)
    await page.close()
  }, 60_000)
})
