import { describe, expect, it } from 'vitest'
import { Backtest } from '../../src/replay/backtest.js'
import { parseStrategies } from '../../src/replay/parse-strategies.js'
import { renderReport } from '../../src/replay/report-html.js'
import { toBacktestJson } from '../../src/replay/result-json.js'
import { SMALL, syntheticChain } from './helpers.js'

function report(strategies: string, blocks: number, buckets?: number) {
  const bt = new Backtest({ strategies: parseStrategies(strategies, SMALL), ks: [1, 3], config: SMALL, ...(buckets === undefined ? {} : { seriesBuckets: buckets }) })
  for (const b of syntheticChain(blocks, 2)) bt.push(b)
  const result = bt.finish()
  return renderReport(result, toBacktestJson(result), { input: 'test <chain> & "friends"' })
}

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

  it('stays bounded in size for long chains (decimated series)', () => {
    const short = report('aptos,geth,target', 2_000, 200).length
    const long = report('aptos,geth,target', 40_000, 200).length
    expect(long).toBeLessThan(short * 1.5)
  })
})
