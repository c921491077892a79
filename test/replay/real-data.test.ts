import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'

const APHD = 'test/fixtures/aptos-mainnet-aphd/blocks-500.jsonl'
const SAMPLE = 'data/chain.jsonl'
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-real-'))

async function backtest(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const sink = (to: string[]) => new PassThrough().on('data', (c) => to.push(String(c)))
  const json = join(dir, `${Math.random().toString(36).slice(2)}.json`)
  const code = await main(['backtest', ...args, '--json', json], { stdin: new PassThrough(), stdout: sink(out), stderr: sink(err), signal: new AbortController().signal })
  expect(err.join('')).toBe('')
  expect(code).toBe(0)
  return JSON.parse(readFileSync(json, 'utf8'))
}

interface AphdBlock {
  height: number
  txns: { gas_unit_price: number; gas_used: number }[]
}

// Real Aptos mainnet blocks (Oct 2022; the first 500 of the aphd sample, see test/fixtures/README.md):
// their JSON shape differs from the node's, so an adapter turns them into compact summaries and,
// separately, per-transaction CSV rows.
describe('Aptos mainnet slice (aphd, 500 consecutive blocks)', () => {
  const blocks = readFileSync(APHD, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AphdBlock)

  it('replays to identical metrics through JSONL and per-transaction CSV (empty blocks as height gaps); a quiet chain is always included', async () => {
    const jsonl = join(dir, 'aphd.jsonl')
    writeFileSync(jsonl, blocks.map((b) => JSON.stringify({ block_height: b.height, epoch: 0, gas_unit_prices: b.txns.map((t) => t.gas_unit_price), gas_used: b.txns.map((t) => t.gas_used) })).join('\n'))
    // CSV: one row per transaction; blocks without transactions are left out, so they come back as height gaps
    const csv = join(dir, 'aphd.csv')
    const rows = ['block_height,gas_unit_price,gas_used']
    for (const b of blocks) for (const t of b.txns) rows.push(`${b.height},${t.gas_unit_price},${t.gas_used}`)
    const last = blocks.at(-1) as AphdBlock
    if (last.txns.length === 0) rows.push(`${last.height},,`) // an empty price cell declares the last block
    writeFileSync(csv, rows.join('\n'))
    const a = await backtest(['--input', jsonl])
    const c = await backtest(['--input', csv])
    expect(a.blocks).toBe(500)
    expect(c.strategies).toEqual(a.strategies)
    expect(c.blocks).toBe(a.blocks)
    expect(a.full_blocks).toBe(0) // at most 6 user transactions per block: none comes near full
    for (const s of a.strategies) for (const t of s.tiers) for (const k of ['1', '3', '10']) expect(t.inclusion_rate[k]).toBe(1)
    const aptos = a.strategies[0]
    // Aptos on a quiet chain: low = market = 100, aggressive = next_bucket(100) = 150 → overpays 0, 0, 50
    expect(aptos.tiers.map((t: { overpayment: { median: number } }) => t.overpayment.median)).toEqual([0, 0, 50])
    // geth follows the wallets' 101 default (the cheapest price in 277 of the slice's 349 non-empty blocks) and bids 1 above it
    expect(a.strategies[1].tiers[1].overpayment.median).toBe(2)
    // no block is full: every promise is kept by the floor alone, so it is floor-bound
    for (const t of a.strategies[2].tiers) expect(t.floor_bound).toBe(true)
  })
})

describe('committed sample chain (data/chain.jsonl)', () => {
  it('backtests end to end with the default strategies; evaluated counts are N − k', async () => {
    const r = await backtest(['--input', SAMPLE, '--strategies', 'aptos,geth,target'])
    expect(r.blocks).toBeGreaterThan(1000)
    for (const s of r.strategies) {
      for (const t of s.tiers) {
        for (const k of r.k) expect(t.evaluated[String(k)]).toBe(r.blocks - k)
        expect(t.inclusion_rate['10']).toBeGreaterThanOrEqual(t.inclusion_rate['1'])
      }
    }
    const [low, regular, prioritized] = r.strategies[0].tiers
    expect(prioritized.inclusion_rate['1']).toBeGreaterThanOrEqual(regular.inclusion_rate['1'])
    expect(regular.inclusion_rate['1']).toBeGreaterThanOrEqual(low.inclusion_rate['1'])
  })
})
