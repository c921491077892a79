import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../src/core/config.js'
import { InvalidConfigError } from '../../src/core/errors.js'
import { priceBlock } from '../../src/core/price-block.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { chainLines, generateChain, type ChainOptionsInput, type GeneratedBlock } from '../../src/sim/index.js'
import { checkChainLaws, parseLines } from './chain-laws.js'
import { checkBlockShape } from './wire-shape.js'

const text = (o: ChainOptionsInput) => [...chainLines(o)].join('')
const chains = new Map<string, GeneratedBlock[]>()
/** The chain `o` generates, made once per file for each options: tests only read it. */
const run = (o: ChainOptionsInput): GeneratedBlock[] => {
  const key = JSON.stringify(o)
  const known = chains.get(key)
  if (known !== undefined) return known
  const made = [...generateChain(o)]
  chains.set(key, made)
  return made
}

// One mixed cycle, the shape of the committed sample, shared by the tests below.
const MIXED = { blocks: 2000, seed: 7, scenario: 'mixed', epoch_blocks: 400, checkpoint_epochs: 1 } as const
const mixed = run(MIXED)
const mixedBlocks = mixed.map((g) => g.block)

/** Fullness as the engine (Aptos defaults) judges it, through the ledger's parser. */
function engineFull(block: BlockJson): boolean {
  return priceBlock(parseBlockJson(block), resolveConfig()).full
}

describe('generateChain', { timeout: 30_000 }, () => {
  it('same seed and options give identical bytes', () => {
    const o = { blocks: 300, seed: 99, scenario: 'mixed' } as const
    expect(text(o)).toBe(text(o))
  })

  it('different seeds give different chains', () => {
    expect(text({ blocks: 50, seed: 1 })).not.toBe(text({ blocks: 50, seed: 2 }))
  })

  it('a prefix of a longer run is the shorter run (blocks are generated one after another)', () => {
    const long = text({ blocks: 120, seed: 5 })
    const short = text({ blocks: 60, seed: 5 })
    expect(long.startsWith(short)).toBe(true)
  })

  it('every line parses and matches the wire shape of its variant', () => {
    const lines = text({ ...MIXED, blocks: 600 }).split('\n').filter(Boolean)
    expect(lines).toHaveLength(600)
    for (const line of lines) expect(checkBlockShape(JSON.parse(line))).toEqual([])
  })

  it('the mixed cycle obeys the chain laws and has every variant, epochs and orderless txns', () => {
    const { problems, facts } = checkChainLaws(mixedBlocks, undefined, 1)
    expect(problems).toEqual([])
    expect(facts.epochs.size).toBe(5)
    expect(facts.checkpointBlocks).toBe(400)
    expect(facts.epilogueBlocks).toBe(1600)
    expect(facts.orderless).toBeGreaterThan(20)
    expect(facts.bigBlocks).toBeGreaterThanOrEqual(3)
    expect(facts.gasLimitBlocks).toBeGreaterThan(40)
    const senders = new Set(mixedBlocks.flatMap((b) => b.transactions.flatMap((t) => (t.type === 'user_transaction' ? [t.sender] : []))))
    expect(senders.size).toBeGreaterThan(1000)
  })

  it('the mixed cycle visits every regime', () => {
    const regimes = new Set(mixed.map((g) => g.regime))
    expect([...regimes].sort()).toEqual(['calm', 'hot_contract', 'surge', 'sustained'])
  })

  it('parses with the ledger parser, the engine ingesting exactly what it reads', () => {
    for (const b of mixedBlocks.slice(400, 1200)) {
      const parsed = parseBlockJson(b)
      expect(parsed.gas_unit_prices).toHaveLength(b.transactions.length - 2)
      expect(parsed.block_end_info).not.toBeNull()
    }
    expect(parseBlockJson(mixedBlocks[0]).block_end_info).toBeNull()
  })

  it('calm blocks are small, sustained and hot-contract blocks end on the gas limit at 40–85 txns, surges pass 250', () => {
    const users = (g: GeneratedBlock) => g.block.transactions.length - 2
    const endInfo = (g: GeneratedBlock) => {
      const e = g.block.transactions.at(-1)
      return e?.type === 'block_epilogue_transaction' ? e.block_end_info : null
    }
    const calm = run({ blocks: 500, seed: 3, scenario: 'calm' })
    expect(Math.max(...calm.map(users))).toBeLessThanOrEqual(10)
    const congested = mixed.filter((g) => g.regime === 'sustained' || g.regime === 'hot_contract')
    const limited = congested.filter((g) => endInfo(g)?.block_gas_limit_reached === true)
    // An episode's first block may start from an empty mempool and stay under the limit.
    expect(limited.length).toBeGreaterThanOrEqual(congested.length - 2)
    for (const g of limited) {
      expect(users(g)).toBeGreaterThanOrEqual(35)
      expect(users(g)).toBeLessThanOrEqual(90)
    }
    expect(mixed.filter((g) => g.regime === 'surge' && users(g) >= 250).length).toBeGreaterThanOrEqual(3)
  })

  it('surge and sustained scenarios have more full blocks (as the engine judges) than calm', () => {
    const fullShare = (scenario: 'calm' | 'surge' | 'sustained') => {
      const blocks = run({ blocks: 600, seed: 11, scenario }).map((g) => g.block)
      return blocks.filter(engineFull).length / blocks.length
    }
    const calm = fullShare('calm')
    expect(calm).toBe(0)
    expect(fullShare('surge')).toBeGreaterThan(calm)
    expect(fullShare('sustained')).toBeGreaterThan(0.9)
  })

  it('a hot contract takes more than half of some blocks, which the AIP-68 rule then does not count as full', () => {
    const hot = mixed.filter((g) => g.regime === 'hot_contract')
    const reasons = hot.map((g) => priceBlock(parseBlockJson(g.block), resolveConfig()).reason)
    expect(reasons.filter((r) => r === 'majority_contract').length).toBeGreaterThan(hot.length / 2)
    expect(reasons).toContain('block_end_info')
  })

  it('prices cluster on wallet defaults and buckets, with a heavy tail', () => {
    const prices = mixedBlocks.flatMap((b) => b.transactions.flatMap((t) => (t.type === 'user_transaction' ? [Number(t.gas_unit_price)] : [])))
    const share = (p: number) => prices.filter((x) => x === p).length / prices.length
    expect(share(100)).toBeGreaterThan(0.3)
    expect(share(150)).toBeGreaterThan(0.1)
    expect(share(300) + share(500) + share(1000)).toBeGreaterThan(0.1)
    expect(Math.min(...prices)).toBe(100)
    expect(prices.filter((p) => p > 1000).length).toBeGreaterThan(10)
  })

  it('a block that reached no limit left the mempool empty (it took every pending txn)', () => {
    for (const g of mixed) {
      const e = g.block.transactions.at(-1)
      const limited = e?.type === 'block_epilogue_transaction' && e.block_end_info !== null && (e.block_end_info.block_gas_limit_reached || e.block_end_info.block_output_limit_reached)
      if (!limited && g.block.transactions.length - 2 < 300) expect(g.pending, `block ${g.block.block_height}`).toBe(0)
    }
  })

  it('congestion makes stale txns expire and accounts that cannot get a txn in stay at their number', () => {
    // The sustained chain of the full-blocks test above.
    const sustained = run({ blocks: 600, seed: 11, scenario: 'sustained' })
    expect(sustained.reduce((n, g) => n + g.expired, 0)).toBeGreaterThan(100)
    expect(checkChainLaws(sustained.map((g) => g.block)).problems).toEqual([])
    expect(mixed.reduce((n, g) => n + g.expired, 0)).toBeGreaterThan(0)
  })

  it('too few accounts make senders give up rather than break sequence numbers', () => {
    const chain = run({ blocks: 80, seed: 2, scenario: 'sustained', accounts: 20 })
    expect(chain.reduce((n, g) => n + g.dropped, 0)).toBeGreaterThan(0)
    expect(checkChainLaws(chain.map((g) => g.block)).problems).toEqual([])
  })

  it('honours other block limits: a smaller gas limit or txn cap makes blocks stop sooner', () => {
    const limits = { max_block_txns: 30, block_gas_limit: 5_000, block_output_limit: 3_000_000 }
    const chain = run({ blocks: 100, seed: 6, scenario: 'sustained', limits }).map((g) => g.block)
    const { problems, facts } = checkChainLaws(chain, limits)
    expect(problems).toEqual([])
    expect(facts.gasLimitBlocks).toBeGreaterThan(90)
    expect(Math.max(...chain.map((b) => b.transactions.length - 2))).toBeLessThanOrEqual(30)
  })

  it('starts where asked: height, version, epoch, time', () => {
    const [first] = run({ blocks: 1, seed: 1, first_height: 1000, first_version: 5000, first_epoch: 9, first_timestamp_us: 1_600_000_000_000_000 })
    const b = first!.block
    expect(b.block_height).toBe('1000')
    expect(b.first_version).toBe('5000')
    expect(b.transactions[0]).toMatchObject({ type: 'block_metadata_transaction', epoch: '9', round: '1' })
    expect(BigInt(b.block_timestamp)).toBeGreaterThan(1_600_000_000_000_000n)
  })

  it('zero blocks is an empty chain', () => {
    expect(text({ blocks: 0, seed: 1 })).toBe('')
  })

  it.each([
    [{ blocks: -1, seed: 1 }, 'blocks'],
    [{ blocks: 1.5, seed: 1 }, 'blocks'],
    [{ blocks: 1, seed: -3 }, 'seed'],
    [{ blocks: 1, seed: 1, scenario: 'stormy' as never }, 'scenario'],
    [{ blocks: 1, seed: 1, epoch_blocks: 0 }, 'epoch_blocks'],
    [{ blocks: 1, seed: 1, accounts: 0 }, 'accounts'],
    [{ blocks: 1, seed: 1, limits: { max_block_txns: 0 } }, 'limits.max_block_txns'],
    [{ blocks: 1, seed: 1, limits: { block_gas_limit: 0 } }, 'limits.block_gas_limit'],
  ])('rejects %j naming %s', (input, key) => {
    expect(() => run(input)).toThrow(InvalidConfigError)
    expect(() => run(input)).toThrow(new RegExp(`config ${key.replace('.', '\\.')}:`))
  })
})

describe('parseLines', () => {
  it('round-trips chainLines', () => {
    const t = text({ blocks: 5, seed: 1 })
    expect(parseLines(t).map((b) => JSON.stringify(b)).join('\n') + '\n').toBe(t)
  })
})
