import { describe, expect, it } from 'vitest'
import { Backtest } from '../../../src/replay/backtest.js'
import { parseStrategies } from '../../../src/replay/strategies/parse-strategies.js'
import { renderReport } from '../../../src/replay/report/report-html.js'
import { toBacktestJson } from '../../../src/replay/result-json.js'
import { SMALL, syntheticChain } from '../../helpers/replay.js'

function run(strategies: string, blocks: number, buckets?: number) {
  const bt = new Backtest({ strategies: parseStrategies(strategies, SMALL), ks: [1, 3], config: SMALL, ...(buckets === undefined ? {} : { seriesBuckets: buckets }) })
  for (const b of syntheticChain(blocks, 2)) bt.push(b)
  const result = bt.finish()
  return { result, json: toBacktestJson(result) }
}

function report(strategies: string, blocks: number, buckets?: number) {
  const { result, json } = run(strategies, blocks, buckets)
  return renderReport(result, json, { input: 'test <chain> & "friends"' })
}

/** The page's prose: paragraphs, list items and captions as plain text (charts and code left out). */
function prose(html: string): string[] {
  const body = html.replace(/<svg[\s\S]*?<\/svg>/g, '').replace(/<code>[\s\S]*?<\/code>/g, 'CODE')
  return [...body.matchAll(/<(p|li|figcaption)\b[^>]*>([\s\S]*?)<\/\1>/g)].map((m) => (m[2] as string).replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim())
}

const FLOOR_BOUND = 'floor-bound: the minimum price already keeps this promise'

const calibration = (html: string) => html.slice(html.indexOf('data-chart="calibration"'))

describe('report HTML', () => {
  it('is one self-contained file: no script, no external reference, input name escaped', () => {
    const html = report('aptos,target', 500)
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i)
    expect(html.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, '')).not.toMatch(/https?:\/\//)
    expect(html).toContain('test &#60;chain&#62; &#38; &#34;friends&#34;')
    expect(html).toContain("default-src 'none'")
  })

  it('says so when no strategy made a promise', () => {
    expect(calibration(report('aptos,geth', 200))).toContain('no strategy made a promise')
  })

  it('draws the promising tiers even without a calibration sweep', () => {
    const cal = calibration(report('target:sweep=false', 300))
    expect(cal.match(/class="point"/g)).toHaveLength(3)
    expect(cal).not.toContain('class="series"')
  })

  it('shows the scoring rule, the scoring config and the config of each strategy', () => {
    const { result, json } = run('aptos,geth:blocks=7,target:window=50', 200)
    const html = renderReport(result, json, { input: 'x' })
    expect(html).toContain(`Scoring rule: ${String(json.scoring.rule).replace(/>/g, '&#62;')}.`)
    expect(html).toContain('blocks=7 ')
    expect(html).toContain('window=50 ')
    expect(html).toContain('method=&#34;calibrated')
    // aptos with no keys runs on the scoring config itself: said once, not repeated
    expect(html).toContain('<td>aptos</td><td>the scoring config (below)</td>')
    expect(html).toMatch(/Scoring config: <code>enabled=true .*full_block_txns=2 /)
  })

  it('marks floor-bound tiers in the tier table and the calibration chart, and only those', () => {
    const { result, json } = run('geth,target', 300)
    expect(renderReport(result, json, { input: 'x' })).not.toContain('floor-bound')
    const tier = json.strategies[1]?.tiers[2] as object
    Object.assign(tier, { floor_bound: true })
    const html = renderReport(result, json, { input: 'x' })
    const table = html.slice(html.indexOf('<table class="summary">'), html.indexOf('</table>'))
    expect(table.match(/>floor-bound</g)).toHaveLength(1)
    expect(table).toMatch(/<td>prioritized<\/td><td>[^<]*<span class="fb"[^>]*>floor-bound<\/span>/)
    expect(html.match(/class="point floor-bound"/g)).toHaveLength(1)
    expect(calibration(html)).toContain(FLOOR_BOUND)
    expect(prose(html).some((p) => p.includes(`${FLOOR_BOUND}.`))).toBe(true)
  })

  it('gives the sample size of every curve and bar series', () => {
    const html = report('aptos,target', 400)
    for (const tier of ['deprioritized', 'regular', 'prioritized']) {
      const chart = (id: string) => html.slice(html.indexOf(`data-chart="${id}"`), html.indexOf('</svg>', html.indexOf(`data-chart="${id}"`)))
      expect(chart(`inclusion:${tier}`)).toContain('within 1 block (n=399 blocks t)')
      expect(chart(`inclusion:${tier}`)).toContain('within 3 blocks (n=397 blocks t)')
      expect(chart(`overpayment:${tier}`).match(/class="legend">(aptos|target) \(n=[0-9,]+\)</g)).toHaveLength(2)
    }
    expect(calibration(html)).toContain('target, k=1 (n=399)')
  })

  it('has no dangling sentence: every paragraph, item and caption is complete', () => {
    for (const html of [report('aptos,geth,target', 300), report('aptos', 40, 4)]) {
      const texts = prose(html)
      expect(texts.length).toBeGreaterThan(8)
      for (const t of texts) {
        expect(t, t).toMatch(/[a-z0-9)].*\.$/i)
        expect(t, t).not.toMatch(/undefined|NaN|\[object|\(\)|\.\.$| \.|,\.|\s:/)
      }
    }
  })

  it('stays bounded in size for long chains (decimated series)', () => {
    // Ten times the blocks, both far past the 200 buckets: undecimated, the page would grow
    // several times over with its series.
    const short = report('aptos,geth,target', 2_000, 200).length
    const long = report('aptos,geth,target', 20_000, 200).length
    expect(long).toBeLessThan(short * 1.5)
  })
})
