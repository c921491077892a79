import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseAddress } from '../../src/ledger/store/address.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerInfo, LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson, TransactionJson, UserTransactionJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone, type UserSpec } from '../helpers/chain-builder.js'
import { fcRuns } from '../budget.js'

// Each run appends to a fresh SQLite file as well as memory, so 0.3 of the typical budget.
const NUM_RUNS = fcRuns(0.3)

/**
 * The obviously-correct ledger: a list of blocks, answers by filtering and sorting everything
 * per query, and the append rules written as plainly as they are stated.
 */
class ReferenceLedger {
  blocks: BlockJson[] = []
  next = new Map<string, number>()

  info(): LedgerInfo | null {
    const oldest = this.blocks[0]
    const newest = this.blocks[this.blocks.length - 1]
    if (oldest === undefined || newest === undefined) return null
    const meta = newest.transactions.find((t) => t.type === 'block_metadata_transaction')
    return {
      chain_id: 4,
      epoch: Number(meta?.type === 'block_metadata_transaction' ? meta.epoch : 0),
      ledger_version: Number(newest.last_version),
      oldest_ledger_version: Number(oldest.first_version),
      ledger_timestamp_usec: Number(newest.block_timestamp),
      block_height: Number(newest.block_height),
      oldest_block_height: Number(oldest.block_height),
    }
  }

  txns(): TransactionJson[] {
    return this.blocks.flatMap((b) => b.transactions)
  }

  accountTxns(address: string, start: number, limit: number): TransactionJson[] {
    return this.txns()
      .filter((t): t is UserTransactionJson => t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) === null && parseAddress(t.sender) === address)
      .filter((t) => Number(t.sequence_number) >= start && Number(t.sequence_number) < start + limit)
      .sort((a, b) => Number(a.sequence_number) - Number(b.sequence_number))
  }

  /** True when the block was taken. */
  append(block: BlockJson): boolean {
    const tip = this.blocks[this.blocks.length - 1]
    if (tip !== undefined && (Number(block.block_height) !== Number(tip.block_height) + 1 || Number(block.first_version) !== Number(tip.last_version) + 1)) return false
    const next = new Map(this.next)
    for (const t of block.transactions) {
      if (t.type !== 'user_transaction' || (t.replay_protection_nonce ?? null) !== null) continue
      const a = parseAddress(t.sender) as string
      const expected = next.get(a)
      if (expected !== undefined && Number(t.sequence_number) !== expected) return false
      next.set(a, Number(t.sequence_number) + 1)
    }
    this.blocks.push(block)
    this.next = next
    return true
  }

  prune(version: number): void {
    while (this.blocks.length > 1 && Number(this.blocks[0]?.last_version) < version) this.blocks.shift()
  }
}

type Op =
  | { kind: 'append'; users: UserSpec[] }
  | { kind: 'gap' | 'duplicate' | 'version-gap'; users: UserSpec[] }
  | { kind: 'bad-seq'; users: UserSpec[]; sender: number; delta: number }
  | { kind: 'prune'; back: number }

const user = fc.oneof(
  { weight: 4, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 5 }), nonce: fc.integer({ min: 0, max: 1000 }) }) },
)
const users = fc.array(user, { maxLength: 5 })
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('append' as const), users }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('gap' as const, 'duplicate' as const, 'version-gap' as const), users }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bad-seq' as const), users, sender: fc.integer({ min: 1, max: 4 }), delta: fc.constantFrom(-2, -1, 1, 2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prune' as const), back: fc.integer({ min: -3, max: 30 }) }) },
)

async function observe(store: LedgerStore, maxVersion: number, maxHeight: number) {
  return {
    info: await store.ledgerInfo(),
    txns: await Promise.all(Array.from({ length: maxVersion + 3 }, (_, v) => store.transactionByVersion(v + 40))),
    blocks: await Promise.all(Array.from({ length: maxHeight + 3 }, (_, h) => store.blockByHeight(h + 7, true))),
    accounts: await Promise.all([1, 2, 3, 4, 5].map(async (n) => [await store.accountSequenceNumber(addr(n)), await store.accountTransactions(addr(n), 0, 1000), await store.accountTransactions(addr(n), 2, 3)])),
  }
}

async function outcome(fn: () => unknown): Promise<string> {
  try {
    await fn()
    return 'ok'
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}

describe('stores against a plain reference ledger', () => {
  it('any sequence of appends (good and bad) and prunes leaves both stores answering exactly as the reference', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25, size: 'max' }), async (ops) => {
        const memory = new MemoryStore()
        const sqlite = SqliteStore.open(':memory:')
        const ref = new ReferenceLedger()
        const chain = new ChainBuilder({ height: 7, version: 40 })
        try {
          for (const o of ops) {
            if (o.kind === 'prune') {
              const info = ref.info()
              const version = info === null ? 0 : Math.max(0, Number(info.ledger_version) - o.back)
              memory.pruneBelow(version)
              sqlite.pruneBelow(version)
              ref.prune(version)
            } else {
              const saved = { height: chain.height, version: chain.version, seqs: new Map(chain.seqs) }
              let block = chain.block({ users: o.users })
              if (o.kind === 'gap') block = (chain.height++, chain.block({ users: o.users }))
              if (o.kind === 'version-gap') block = (chain.version++, chain.block({ users: o.users }))
              if (o.kind === 'duplicate' && ref.blocks.length > 0) block = clone(ref.blocks[Math.floor(ref.blocks.length / 2)] as BlockJson)
              if (o.kind === 'bad-seq') {
                const sender = addr(o.sender)
                const seq = Number(chain.seqs.get(sender) ?? 0) + o.delta
                block = (Object.assign(chain, { height: saved.height, version: saved.version }), chain.block({ users: [...o.users, { sender: o.sender, seq: Math.max(0, seq) }] }))
              }
              const taken = ref.append(block)
              const m = await outcome(() => memory.appendBlock(block))
              const s = await outcome(() => sqlite.appendBlock(block))
              expect(s).toBe(m)
              expect(m === 'ok').toBe(taken)
              if (!taken) Object.assign(chain, saved)
            }
            const info = ref.info()
            const span = info === null ? 0 : Number(info.ledger_version) - 40
            const heights = info === null ? 0 : Number(info.block_height) - 7
            const expected = {
              info,
              txns: Array.from({ length: span + 3 }, (_, i) => ref.txns().find((t) => Number(t.version) === i + 40) ?? null),
              blocks: Array.from({ length: heights + 3 }, (_, i) => ref.blocks.find((b) => Number(b.block_height) === i + 7) ?? null),
              accounts: [1, 2, 3, 4, 5].map((n) => [ref.next.get(addr(n)) ?? 0, ref.accountTxns(addr(n), 0, 1000), ref.accountTxns(addr(n), 2, 3)]),
            }
            expect(await observe(memory, span, heights)).toEqual(expected)
            expect(await observe(sqlite, span, heights)).toEqual(expected)
          }
        } finally {
          sqlite.close()
        }
      }),
      { numRuns: NUM_RUNS },
    )
  }, 120_000)
})
