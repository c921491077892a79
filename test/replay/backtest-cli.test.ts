import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { syntheticChain } from '../helpers/replay.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-backtest-'))
const N = 5000
const chain = join(dir, 'chain.jsonl')
const config = join(dir, 'config.json')

function io(stdin: string | null = null, tty = false) {
  const out: string[] = []
  const err: string[] = []
  const sink = (to: string[]) => {
    const s = new PassThrough()
    s.on('data', (c) => to.push(String(c)))
    return s
  }
  const stderr = Object.assign(sink(err), { isTTY: tty })
  return {
    io: { stdin: stdin === null ? new PassThrough() : Readable.from([stdin]), stdout: sink(out), stderr, signal: new AbortController().signal },
    out: () => out.join(''),
    err: () => err.join(''),
  }
}

beforeAll(() => {
  const lines = [...syntheticChain(N, 11)].map((b) => JSON.stringify(b))
  writeFileSync(chain, `${lines.join('\n')}\n`)
  writeFileSync(config, JSON.stringify({ full_block_txns: 2 }))
})

describe('ledger-gas backtest', () => {
  it('writes the metrics JSON in the documented shape', async () => {
    const t = io()
    const json = join(dir, 'out.json')
    const code = await main(['backtest', '--input', chain, '--config', config, '--strategies', 'aptos,aptos:low=5:market=20:aggressive=60,geth,target', '--json', json], t.io)
    expect(t.err()).toBe('')
    expect(code).toBe(0)
    const r = JSON.parse(readFileSync(json, 'utf8'))
    expect(r.blocks).toBe(N)
    expect(r.k).toEqual([1, 3, 10])
    expect(r.strategies.map((s: { name: string }) => s.name)).toEqual(['aptos', 'aptos:low=5:market=20:aggressive=60', 'geth', 'target'])
    for (const s of r.strategies) {
      expect(typeof s.config).toBe('object')
      expect(s.tiers.map((t: { tier: string }) => t.tier)).toEqual(['deprioritized', 'regular', 'prioritized'])
      for (const t of s.tiers) {
        expect(Object.keys(t).slice(0, 6)).toEqual(['tier', 'evaluated', 'inclusion_rate', 'overpayment', 'mean_delay_blocks', 'promised'])
        for (const k of [1, 3, 10]) {
          expect(t.evaluated[String(k)]).toBe(N - k)
          expect(t.inclusion_rate[String(k)]).toBeGreaterThanOrEqual(0)
          expect(t.inclusion_rate[String(k)]).toBeLessThanOrEqual(1)
        }
        expect(typeof t.overpayment.median).toBe('number')
        expect(typeof t.overpayment.p90).toBe('number')
        expect(t.overpayment.p90).toBeGreaterThanOrEqual(t.overpayment.median)
        expect(t.mean_delay_blocks).toBeGreaterThanOrEqual(1)
      }
    }
    expect(r.strategies[0].config).toMatchObject({ full_block_txns: 2, low_block_history: 10 })
    expect(r.strategies[0].tiers[0].promised).toBeNull()
    expect(r.strategies[3].tiers.map((t: { promised: unknown }) => t.promised)).toEqual([
      { k: 10, q: 0.9 },
      { k: 3, q: 0.9 },
      { k: 1, q: 0.95 },
    ])
    expect(r.strategies[3].tiers[0].achieved).toBe(r.strategies[3].tiers[0].inclusion_rate['10'])
    for (const s of r.strategies) {
      for (const t of s.tiers) {
        for (const k of Object.keys(t.inclusion_rate)) {
          expect(t.miss_rate[k]).toBeCloseTo(1 - t.inclusion_rate[k], 12)
          // paying at least the cheapest price that would have met k: the ratio is never below 1
          if (t.cost_vs_hindsight[k] !== null) expect(t.cost_vs_hindsight[k]).toBeGreaterThanOrEqual(1)
        }
        expect(typeof t.overpayment.mean).toBe('number')
        expect(t.floor_bound === null).toBe(t.promised === null)
      }
    }
    expect(r.strategies[3].calibration).toHaveLength(15)
    // the table names every strategy and tier
    expect(t.out()).toMatch(/^5000 blocks \(\d+ full\)/)
    expect(t.out().split('\n').filter((l) => / (deprioritized|regular|prioritized) /.test(l))).toHaveLength(12)
  })

  it('reads the same blocks from a per-transaction CSV and scores them identically', async () => {
    const csv = join(dir, 'txns.csv')
    const rows = ['block_height,epoch,gas_unit_price,gas_used']
    for (const b of syntheticChain(N, 11)) {
      const prices = b.gas_unit_prices as number[]
      if (prices.length === 0) rows.push(`${b.block_height},${b.epoch},,`)
      for (const p of prices) rows.push(`${b.block_height},${b.epoch},${p},1000`)
    }
    writeFileSync(csv, `${rows.join('\n')}\n`)
    const a = io()
    const b = io()
    await main(['backtest', '--input', chain, '--config', config, '--json', join(dir, 'a.json')], a.io)
    await main(['backtest', '--input', csv, '--config', config, '--json', join(dir, 'b.json')], b.io)
    expect(readFileSync(join(dir, 'b.json'), 'utf8')).toBe(readFileSync(join(dir, 'a.json'), 'utf8'))
  })

  it('reads standard input with --input -, and --format csv', async () => {
    const t = io('block_height,gas_unit_price\n1,100\n3,100\n')
    expect(await main(['backtest', '--input', '-', '--format', 'csv', '--k', '1,2'], t.io)).toBe(0)
    expect(t.out()).toMatch(/^3 blocks \(0 full\), heights 1\.\.3/)
  })

  it('shows a progress bar on stderr only when it is a terminal', async () => {
    const quiet = io()
    await main(['backtest', '--input', chain, '--strategies', 'aptos'], quiet.io)
    expect(quiet.err()).toBe('')
    const tty = io(null, true)
    await main(['backtest', '--input', chain, '--strategies', 'aptos'], tty.io)
    expect(tty.err()).toMatch(/\[#*\.*\] +\d+% 4,096 blocks/)
    expect(tty.out()).not.toMatch(/blocks\/s/)
  })

  it('usage errors exit 2 and name the problem', async () => {
    const cases: [string[], RegExp][] = [
      [['backtest'], /missing required option --input/],
      [['backtest', '--input', chain, '--k', '0'], /--k must list integers from 1/],
      [['backtest', '--input', chain, '--k', '1,x'], /--k must list integers/],
      [['backtest', '--input', chain, '--strategies', 'aptos,bogus'], /--strategies: strategy 'bogus': unknown strategy/],
      [['backtest', '--input', chain, '--format', 'xml'], /--format must be jsonl or csv/],
      [['backtest', '--input', chain, '--bogus'], /Unknown option '--bogus'/],
    ]
    for (const [args, message] of cases) {
      const t = io()
      expect(await main(args, t.io)).toBe(2)
      expect(t.err()).toMatch(message)
    }
  })

  it('bad data exits 1 naming the file and line', async () => {
    const bad = join(dir, 'bad.jsonl')
    writeFileSync(bad, `${JSON.stringify({ block_height: 1, epoch: 1, gas_unit_prices: [100] })}\n{not json\n`)
    const t = io()
    expect(await main(['backtest', '--input', bad], t.io)).toBe(1)
    expect(t.err()).toMatch(/bad\.jsonl:2: \(json\): not valid JSON/)
    const down = join(dir, 'down.jsonl')
    writeFileSync(down, [2, 1].map((h) => JSON.stringify({ block_height: h, epoch: 1, gas_unit_prices: [] })).join('\n'))
    const d = io()
    expect(await main(['backtest', '--input', down], d.io)).toBe(1)
    expect(d.err()).toMatch(/down\.jsonl:2: block_height: block 1: must be above the previous block's \(2\)/)
  })

  it('--help documents the strategy syntax', async () => {
    const t = io()
    expect(await main(['backtest', '--help'], t.io)).toBe(0)
    expect(t.out()).toMatch(/aptos:low=5:market=20:aggressive=60/)
    expect(t.out()).toMatch(/target\s+the calibrated estimator: each tier promises inclusion within k blocks/)
  })
})
