import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../src/core/config.js'
import { priceBlock } from '../../src/core/price-block.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { generateChain, REGIMES, SAMPLE_CHAIN, type Regime } from '../../src/sim/index.js'
import { runCli } from '../helpers/run-cli.js'

const DATA = fileURLToPath(new URL('../../data/', import.meta.url))
const readme = readFileSync(`${DATA}README.md`, 'utf8')
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** The generate command as data/README.md states it, split into arguments after `generate`. */
function readmeCommand(): string[] {
  const line = /```sh\n(npx tsx src\/cli\/main\.ts generate [^\n]+)\n```/.exec(readme)?.[1]
  if (line === undefined) throw new Error('data/README.md has no generate command in a sh block')
  return line.split(/\s+/).slice(4)
}

describe('data/chain.jsonl', () => {
  it('data/README.md states the generate command of SAMPLE_CHAIN', () => {
    expect(readmeCommand()).toEqual([
      '--blocks',
      String(SAMPLE_CHAIN.blocks),
      '--seed',
      String(SAMPLE_CHAIN.seed),
      '--scenario',
      SAMPLE_CHAIN.scenario,
      '--epoch-blocks',
      String(SAMPLE_CHAIN.epoch_blocks),
      '--checkpoint-epochs',
      String(SAMPLE_CHAIN.checkpoint_epochs),
      '--output',
      'data/chain.jsonl',
    ])
  })

  it('is what the command in data/README.md writes, and its SHA-256 is the one stated there', async () => {
    const args = readmeCommand()
    const at = args.indexOf('--output')
    expect(args[at + 1]).toBe('data/chain.jsonl')
    args[at + 1] = '-'
    // How fast it generates is the benchmarks' business; this checks what it writes.
    const r = await runCli(['generate', ...args])
    expect(r.code).toBe(0)
    const stated = /SHA-256 \| `([0-9a-f]{64})`/.exec(readme)?.[1]
    const committed = sha256(readFileSync(`${DATA}chain.jsonl`))
    expect(sha256(r.stdout)).toBe(committed)
    expect(committed).toBe(stated)
  }, 60_000)

  it('states its size and stays within the size budget (15 MB)', () => {
    const size = statSync(`${DATA}chain.jsonl`).size
    expect(size).toBeLessThanOrEqual(15_000_000)
    expect(readme).toContain(`| Size | ${size.toLocaleString('en-US')} bytes |`)
  })

  it('visits every regime; its congested blocks are full and their cheapest prices spread above the minimum', () => {
    const config = resolveConfig()
    const blocks = new Map<Regime, number>()
    const cutoffs: number[] = []
    let congestedFull = 0
    for (const g of generateChain(SAMPLE_CHAIN)) {
      blocks.set(g.regime, (blocks.get(g.regime) ?? 0) + 1)
      if (g.regime !== 'congested' || !priceBlock(parseBlockJson(g.block), config).full) continue
      congestedFull++
      cutoffs.push(Math.min(...g.block.transactions.flatMap((t) => (t.type === 'user_transaction' ? [Number(t.gas_unit_price)] : []))))
    }
    expect([...blocks.keys()].sort()).toEqual([...REGIMES].sort())
    expect(blocks.get('congested')).toBeGreaterThanOrEqual(150)
    expect(congestedFull / blocks.get('congested')!).toBeGreaterThanOrEqual(0.95)
    cutoffs.sort((a, b) => a - b)
    expect(cutoffs[cutoffs.length >> 1]).toBeGreaterThanOrEqual(200)
    expect(new Set(cutoffs).size).toBeGreaterThan(cutoffs.length / 2)
  }, 60_000)
})
