import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-cli-'))
const compact = (h: number, prices: (number | string)[], epoch = 1) => JSON.stringify({ block_height: String(h), epoch: String(epoch), gas_unit_prices: prices })
const fullChain = Array.from({ length: 11 }, (_, i) => compact(i + 1, Array(250).fill(100))).join('\n') + '\n'

describe('ledger-gas estimate', () => {
  it('prints the final wire object as one JSON line', async () => {
    const file = join(dir, 'full.jsonl')
    writeFileSync(file, fullChain)
    const r = await runCli(['estimate', '--input', file])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout).toBe('{"deprioritized_gas_estimate":150,"gas_estimate":150,"prioritized_gas_estimate":300}\n')
  })
  it('reads standard input with -, and a config file with Aptos keys', async () => {
    const cfg = join(dir, 'cfg.json')
    writeFileSync(cfg, JSON.stringify({ static_override: { low: 1, market: 2, aggressive: '18446744073709551615' } }))
    const r = await runCli(['estimate', '--input', '-', '--config', cfg], fullChain)
    expect(r.stdout).toBe('{"deprioritized_gas_estimate":1,"gas_estimate":2,"prioritized_gas_estimate":18446744073709551615}\n')
  })
  it('bad data: exit 1, message names file, line and field', async () => {
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, `${compact(1, [100])}\n\n${compact(2, [100, '-5'])}\n`)
    const r = await runCli(['estimate', '--input', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${file}:3: gas_unit_prices[1]`)
    expect(r.stdout).toBe('')
  })
  it('not JSON, and heights going back, are bad data too', async () => {
    const r1 = await runCli(['estimate', '--input', '-'], `${compact(1, [])}\n{oops\n`)
    expect(r1.code).toBe(1)
    expect(r1.stderr).toContain('<stdin>:2: (json)')
    const r2 = await runCli(['estimate', '--input', '-'], `${compact(5, [])}\n${compact(5, [])}\n`)
    expect(r2.code).toBe(1)
    expect(r2.stderr).toContain('<stdin>:2: block_height')
  })
  it('usage errors exit 2: missing input, unknown flag, bad config, unknown command', async () => {
    expect((await runCli(['estimate'])).code).toBe(2)
    expect((await runCli(['estimate', '--input', '-', '--frobnicate'])).code).toBe(2)
    const cfg = join(dir, 'badcfg.json')
    writeFileSync(cfg, JSON.stringify({ market_block_history: 500 }))
    const r = await runCli(['estimate', '--input', '-', '--config', cfg], fullChain)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('market_block_history')
    expect(r.stderr).toContain(cfg)
    expect((await runCli(['frobnicate'])).code).toBe(2)
  })
})

describe('ledger-gas replay', () => {
  it('writes one line per block with height, epoch and the estimate after it', async () => {
    const out = join(dir, 'replay.jsonl')
    const input = [compact(1, Array(250).fill(150)), compact(2, []), compact(3, [], 2)].join('\n')
    const r = await runCli(['replay', '--input', '-', '--output', out], input)
    expect(r.code).toBe(0)
    expect(readFileSync(out, 'utf8').trim().split('\n')).toEqual([
      '{"block_height":"1","epoch":"1","deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}',
      '{"block_height":"2","epoch":"1","deprioritized_gas_estimate":300,"gas_estimate":300,"prioritized_gas_estimate":500}',
      '{"block_height":"3","epoch":"2","deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}',
    ])
  })
  it('keeps the lines written before a bad block and exits 1', async () => {
    const r = await runCli(['replay', '--input', '-'], [compact(1, []), compact(2, []), '{"block_height":"3","gas_unit_prices":[]}'].join('\n'))
    expect(r.code).toBe(1)
    expect(r.stdout.trim().split('\n')).toHaveLength(2)
    expect(r.stderr).toContain('<stdin>:3: epoch')
  })
})
