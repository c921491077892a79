import { afterEach, describe, expect, it } from 'vitest'
import { InvalidBlockError } from '../../src/core/errors.js'
import { parseU64, U64_MAX, type U64 } from '../../src/core/u64.js'
import { parseBlockJson, type ParsedBlock } from '../../src/ledger/store/parse-block.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import type { StoreOptions } from '../../src/ledger/store/store-options.js'
import type { BatchAppendStore, LedgerStore, MaybePromise } from '../../src/ledger/store/store.js'
import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone, type UserSpec } from '../helpers/chain-builder.js'

/** Makes a fresh, empty store. */
export type StoreFactory = (options?: StoreOptions) => MaybePromise<LedgerStore>

/** Everything a reader can observe, to prove a refused append or a prune changed nothing else. */
async function snapshot(store: LedgerStore, accounts: string[], versions: U64[], heights: U64[]) {
  return {
    info: await store.ledgerInfo(),
    txns: await Promise.all(versions.map((v) => store.transactionByVersion(v))),
    blocks: await Promise.all(heights.map((h) => store.blockByHeight(h, true))),
    seqs: await Promise.all(accounts.map((a) => store.accountSequenceNumber(a))),
    lists: await Promise.all(accounts.map((a) => store.accountTransactions(a, 0, 1000))),
  }
}

function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i)
}

function seqOf(txn: TransactionJson): string {
  if (txn.type !== 'user_transaction') throw new Error(`not a user txn: ${txn.type}`)
  return txn.sequence_number
}

async function appendAll(store: LedgerStore, blocks: BlockJson[]): Promise<void> {
  for (const b of blocks) await store.appendBlock(b)
}

/**
 * `appendAll` in one commit where the store can batch (`appendBlocks`): for tests about what
 * comes after the appends, so a long chain costs one commit instead of one per block.
 */
async function appendInBulk(store: LedgerStore, blocks: BlockJson[]): Promise<void> {
  const batch = store as LedgerStore & Partial<Pick<BatchAppendStore, 'appendBlocks'>>
  if (batch.appendBlocks === undefined) return appendAll(store, blocks)
  const result = await batch.appendBlocks(blocks)
  if (result.refused !== undefined) throw result.refused
  expect(result.appended).toBe(blocks.length)
}

/**
 * The behaviour every `LedgerStore` must share, registered as vitest tests. `create` makes a
 * fresh empty store; the suite closes what it opens.
 */
export function describeStoreContract(name: string, create: StoreFactory): void {
  describe(`${name}: LedgerStore contract`, () => {
    const open: LedgerStore[] = []
    const fresh = async (options?: StoreOptions) => {
      const store = await create(options)
      open.push(store)
      return store
    }
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close()
    })

    describe('empty store', () => {
      it('has no ledger info and answers every read with nothing', async () => {
        const store = await fresh()
        expect(await store.ledgerInfo()).toBeNull()
        expect(await store.transactionByVersion(0)).toBeNull()
        expect(await store.blockByHeight(0, true)).toBeNull()
        expect(await store.accountTransactions(addr(1), 0, 25)).toEqual([])
        expect(await store.accountSequenceNumber(addr(1))).toBe(0)
      })

      it('prune of an empty store is a no-op', async () => {
        const store = await fresh()
        await store.pruneBelow(100)
        expect(await store.ledgerInfo()).toBeNull()
      })
    })

    describe('ledger info', () => {
      it('comes from the newest block (version, height, epoch, timestamp) and the oldest (oldest version and height)', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 0, version: 0, epoch: 1 })
        const b0 = chain.block({ users: [{ sender: 1 }] })
        const b1 = chain.block({ users: [{ sender: 2 }, { sender: 1 }], epoch: 2 })
        await appendAll(store, [b0, b1])
        expect(await store.ledgerInfo()).toEqual({
          chain_id: 4,
          epoch: 2,
          ledger_version: Number(b1.last_version),
          oldest_ledger_version: 0,
          ledger_timestamp_usec: Number(b1.block_timestamp),
          block_height: 1,
          oldest_block_height: 0,
        })
      })

      it('reports the chain id it was given', async () => {
        const store = await fresh({ chainId: 1 })
        await store.appendBlock(new ChainBuilder().block())
        expect((await store.ledgerInfo())?.chain_id).toBe(1)
      })

      it('a ledger may start at any height and version, like a pruned node', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 1_000_000, version: 52_000_000, epoch: 77 })
        const blocks = chain.blocks(3, (i) => [{ sender: 5, seq: i === 0 ? 40 : undefined }])
        await appendAll(store, blocks)
        const info = await store.ledgerInfo()
        expect(info).toMatchObject({ epoch: 77, block_height: 1_000_002, oldest_block_height: 1_000_000, oldest_ledger_version: 52_000_000, ledger_version: 52_000_008 })
        expect(await store.transactionByVersion(51_999_999)).toBeNull()
        expect(await store.transactionByVersion(52_000_000)).toEqual(blocks[0]?.transactions[0])
        expect(await store.blockByHeight(999_999, true)).toBeNull()
        expect(await store.accountSequenceNumber(addr(5))).toBe(43)
      })

      it('holds u64 values beyond 2^53 exactly, up to 2^64-1', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: U64_MAX - 1n, version: U64_MAX - 2n, epoch: U64_MAX, timestamp: U64_MAX })
        const block = chain.block({ users: [{ sender: 3, seq: U64_MAX - 1n }] })
        await store.appendBlock(block)
        expect(await store.ledgerInfo()).toEqual({
          chain_id: 4,
          epoch: U64_MAX,
          ledger_version: U64_MAX,
          oldest_ledger_version: U64_MAX - 2n,
          ledger_timestamp_usec: U64_MAX,
          block_height: U64_MAX - 1n,
          oldest_block_height: U64_MAX - 1n,
        })
        expect(await store.transactionByVersion(U64_MAX)).toEqual(block.transactions[2])
        expect(await store.transactionByVersion(U64_MAX - 1n)).toEqual(block.transactions[1])
        expect(await store.accountSequenceNumber(addr(3))).toBe(U64_MAX)
        expect(await store.accountTransactions(addr(3), U64_MAX - 1n, 100)).toEqual([block.transactions[1]])
        expect(await store.accountTransactions(addr(3), U64_MAX, 100)).toEqual([])
        expect(await store.blockByHeight(U64_MAX - 1n, true)).toEqual(block)
      })
    })

    describe('reads', () => {
      it('returns every transaction by version exactly as appended, and null past the ledger version', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 5, version: 100 })
        const blocks = chain.blocks(4, (i) => [{ sender: 1 }, { sender: 2 + i, gas_unit_price: 150 + i }])
        await appendAll(store, blocks)
        const all = blocks.flatMap((b) => b.transactions)
        for (const [i, txn] of all.entries()) expect(await store.transactionByVersion(100 + i)).toEqual(txn)
        expect(await store.transactionByVersion(100 + all.length)).toBeNull()
        expect(await store.transactionByVersion(99)).toBeNull()
        expect(await store.transactionByVersion(U64_MAX)).toBeNull()
      })

      it('returns a block with its transactions, and without the transactions key when not asked for', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 7, version: 30 })
        const blocks = chain.blocks(3, () => [{ sender: 1 }])
        await appendAll(store, blocks)
        const b = blocks[1] as BlockJson
        expect(await store.blockByHeight(8, true)).toEqual(b)
        const header = await store.blockByHeight(8, false)
        const { transactions: _, ...rest } = b
        expect(header).toEqual(rest)
        expect(header !== null && 'transactions' in header).toBe(false)
        expect(await store.blockByHeight(10, true)).toBeNull()
        expect(await store.blockByHeight(6, false)).toBeNull()
      })

      it('writes a block as the API sends it (blockBytesByHeight): byte for byte the body of blockByHeight, with and without transactions', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 7, version: 30 })
        const blocks = chain.blocks(4, (i) => [{ sender: 1 }, { sender: 2 + i }])
        // A hash in capitals (not the canonical form), and text that takes escapes and more than one UTF-8 byte per char.
        const odd = clone(blocks[2] as BlockJson)
        odd.block_hash = odd.block_hash.toUpperCase().replace('0X', '0x')
        ;(odd.transactions[1] as { vm_status: string }).vm_status = 'Exécuté "ok" \\ ✓ 😀\u2028'
        blocks[2] = odd
        await appendAll(store, blocks)
        expect(store.blockBytesByHeight).toBeDefined()
        await store.pruneBelow(Number(blocks[1]?.first_version))
        for (let h = 6; h <= 12; h++) {
          for (const withTransactions of [true, false]) {
            const block = await store.blockByHeight(h, withTransactions)
            const bytes = await store.blockBytesByHeight?.(h, withTransactions)
            if (block === null) {
              expect(bytes, `height ${h}`).toBeNull()
              continue
            }
            expect(Buffer.from(bytes?.body ?? []).toString('utf8'), `height ${h}, with_transactions=${withTransactions}`).toBe(apiBody(block, withTransactions))
            expect(bytes).toMatchObject({ firstVersion: Number(block.first_version), lastVersion: Number(block.last_version), count: withTransactions ? block.transactions.length : 0 })
          }
        }
        expect(JSON.parse(Buffer.from((await store.blockBytesByHeight?.(9, true))?.body ?? []).toString('utf8'))).toEqual(odd)
      })

      it('writes a block at heights and versions up to 2^64-1 as bytes (blockBytesByHeight) exactly', async () => {
        const store = await fresh()
        const chain = new ChainBuilder({ height: U64_MAX - 1n, version: U64_MAX - 2n, epoch: U64_MAX, timestamp: U64_MAX })
        const block = chain.block({ users: [{ sender: 3, seq: U64_MAX - 1n }] })
        await store.appendBlock(block)
        const bytes = await store.blockBytesByHeight?.(U64_MAX - 1n, true)
        expect(Buffer.from(bytes?.body ?? []).toString('utf8')).toBe(apiBody(block, true))
        expect(bytes).toMatchObject({ firstVersion: U64_MAX - 2n, lastVersion: U64_MAX, count: 3 })
        expect(Buffer.from((await store.blockBytesByHeight?.(U64_MAX - 1n, false))?.body ?? []).toString('utf8')).toBe(apiBody(block, false))
        expect(await store.blockBytesByHeight?.(U64_MAX, true)).toBeNull()
      })

      it('lists an account by sequence number: [start, start + limit), ascending', async () => {
        const store = await fresh()
        const chain = new ChainBuilder()
        // Account 1 sends 2 txns per block over 6 blocks (seq 0..11), interleaved with account 2.
        const blocks = chain.blocks(6, () => [{ sender: 1 }, { sender: 2 }, { sender: 1 }])
        await appendAll(store, blocks)
        const page = async (start: U64, limit: number) => (await store.accountTransactions(addr(1), start, limit)).map(seqOf)
        expect(await page(0, 25)).toEqual(range(0, 12).map(String))
        expect(await page(3, 4)).toEqual(['3', '4', '5', '6'])
        expect(await page(10, 5)).toEqual(['10', '11'])
        expect(await page(11, 1)).toEqual(['11'])
        expect(await page(12, 25)).toEqual([])
        expect(await page(1000, 25)).toEqual([])
        expect(await page(0, 0)).toEqual([])
        expect(await page(U64_MAX, 100)).toEqual([])
        expect(await store.accountSequenceNumber(addr(1))).toBe(12)
        expect(await store.accountSequenceNumber(addr(2))).toBe(6)
        expect(await store.accountTransactions(addr(9), 0, 25)).toEqual([])
        const listed = await store.accountTransactions(addr(1), 0, 25)
        for (const txn of listed) expect(txn).toEqual(await store.transactionByVersion(Number(txn.version)))
      })

      it('indexes a sender however its address is written (0xA, 0x0a, long form) under the canonical long form', async () => {
        const store = await fresh()
        const chain = new ChainBuilder()
        await store.appendBlock(chain.block({ users: [{ sender: '0xA', seq: 0 }] }))
        await store.appendBlock(chain.block({ users: [{ sender: '0x0a', seq: 1 }, { sender: addr(10).toUpperCase().replace('0X', '0x'), seq: 2 }] }))
        expect((await store.accountTransactions(addr(10), 0, 25)).map(seqOf)).toEqual(['0', '1', '2'])
        expect(await store.accountSequenceNumber(addr(10))).toBe(3)
      })

      it('never lists orderless transactions (replay_protection_nonce set) nor counts them in the sequence number', async () => {
        const store = await fresh()
        const chain = new ChainBuilder()
        const b0 = chain.block({ users: [{ sender: 1 }, { sender: 1, nonce: 77 }, { sender: 4, nonce: 1, seq: 0 }] })
        const b1 = chain.block({ users: [{ sender: 1, nonce: 78, seq: 5 }, { sender: 1 }] })
        await appendAll(store, [b0, b1])
        const listed = await store.accountTransactions(addr(1), 0, 25)
        expect(listed.map((t) => t.version)).toEqual([b0.transactions[1]?.version, b1.transactions[2]?.version])
        expect(await store.accountSequenceNumber(addr(1))).toBe(2)
        expect(await store.accountTransactions(addr(4), 0, 25)).toEqual([])
        expect(await store.accountSequenceNumber(addr(4))).toBe(0)
        // Still a committed transaction, reachable by version.
        expect(await store.transactionByVersion(Number(b0.transactions[2]?.version))).toEqual(b0.transactions[2])
      })

      it('lets an account first seen mid-sequence start there (its earlier txns predate the ledger)', async () => {
        const store = await fresh()
        const chain = new ChainBuilder()
        await store.appendBlock(chain.block({ users: [{ sender: 1, seq: 41 }] }))
        await store.appendBlock(chain.block({ users: [{ sender: 1 }] }))
        expect((await store.accountTransactions(addr(1), 0, 100)).map(seqOf)).toEqual(['41', '42'])
        expect(await store.accountSequenceNumber(addr(1))).toBe(43)
      })
    })

    describe('append rules: a refused block changes nothing', () => {
      async function twoBlockStore() {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 10, version: 1000 })
        const blocks = chain.blocks(2, () => [{ sender: 1 }, { sender: 2 }])
        await appendAll(store, blocks)
        const observe = () => snapshot(store, [addr(1), addr(2), addr(3)], range(998, 14), [9, 10, 11, 12])
        return { store, chain, blocks, before: await observe(), observe }
      }

      const continuityCases: [string, (c: ChainBuilder, blocks: BlockJson[]) => BlockJson, RegExp, string][] = [
        ['a gap in heights', (c) => {
          c.height++
          return c.block()
        }, /gap: block 13 cannot follow block 11 \(missing 12\)/, 'block_height'],
        ['a duplicate height', (_c, blocks) => clone(blocks[1] as BlockJson), /duplicate: block 11 is already in the ledger/, 'block_height'],
        ['an older height', (_c, blocks) => clone(blocks[0] as BlockJson), /duplicate: block 10/, 'block_height'],
        ['a gap in versions', (c) => {
          c.version += 3n
          return c.block()
        }, /gap: versions 1008..1010 are missing \(ledger version 1007; expected first_version 1008\)/, 'first_version'],
        ['overlapping versions', (c) => {
          c.version -= 2n
          return c.block()
        }, /duplicate: versions 1006..1007 are already in the ledger/, 'first_version'],
      ]
      for (const [what, make, message, field] of continuityCases) {
        it(`refuses ${what} with LedgerContinuityError naming ${field}`, async () => {
          const { store, chain, blocks, before, observe } = await twoBlockStore()
          const bad = make(chain, blocks)
          const thrown = await refusal(store, bad)
          expect(thrown).toBeInstanceOf(LedgerContinuityError)
          expect((thrown as Error).message).toMatch(message)
          expect((thrown as { field?: string }).field).toBe(field)
          expect(await observe()).toEqual(before)
        })
      }

      const invalidCases: [string, (b: BlockJson) => void, string][] = [
        ['one transaction too few for its version range', (b) => void b.transactions.pop(), 'transactions'],
        ['one transaction too many', (b) => void b.transactions.push(clone(b.transactions[1] as TransactionJson)), 'transactions'],
        ['a transaction version out of place', (b) => ((b.transactions[1] as TransactionJson).version = '9999'), 'transactions[1].version'],
        ['a version with leading zeros', (b) => ((b.transactions[1] as TransactionJson).version = `0${b.transactions[1]?.version}`), 'transactions[1].version'],
        ['no block metadata transaction', (b) => void b.transactions.shift(), 'transactions'],
        ['a bad sender', (b) => ((b.transactions[1] as { sender: string }).sender = 'alice'), 'transactions[1].sender'],
        ['a bad sequence number', (b) => ((b.transactions[1] as { sequence_number: string }).sequence_number = '-1'), 'transactions[1].sequence_number'],
        ['a bad nonce', (b) => ((b.transactions[1] as { replay_protection_nonce: unknown }).replay_protection_nonce = 5), 'transactions[1].replay_protection_nonce'],
        ['a bad gas price', (b) => ((b.transactions[2] as { gas_unit_price: string }).gas_unit_price = '1e3'), 'transactions[2].gas_unit_price'],
        ['a bad block hash', (b) => (b.block_hash = 'abc'), 'block_hash'],
        ['a bad block timestamp', (b) => (b.block_timestamp = '12.5'), 'block_timestamp'],
        ['a missing last_version', (b) => delete (b as Partial<BlockJson>).last_version, 'last_version'],
      ]
      for (const [what, tamper, field] of invalidCases) {
        it(`refuses a block with ${what} (InvalidBlockError at ${field})`, async () => {
          const { store, chain, before, observe } = await twoBlockStore()
          const bad = chain.block({ users: [{ sender: 1 }, { sender: 3 }] })
          tamper(bad)
          const thrown = await refusal(store, bad)
          expect(thrown).toBeInstanceOf(InvalidBlockError)
          expect((thrown as InvalidBlockError).field).toBe(field)
          expect(await observe()).toEqual(before)
        })
      }

      const seqCases: [string, UserSpec[], RegExp, string][] = [
        ['skips a sequence number', [{ sender: 3 }, { sender: 1, seq: 3 }], /gap: sender 0x1 is at sequence number 2, got 3/, 'transactions[2].sequence_number'],
        ['repeats one from an earlier block', [{ sender: 2, seq: 1 }], /duplicate: sender 0x2 is at sequence number 2, got 1/, 'transactions[1].sequence_number'],
        ['repeats one within the block', [{ sender: 1, seq: 2 }, { sender: 3 }, { sender: 1, seq: 2 }], /duplicate: sender 0x1 is at sequence number 3, got 2/, 'transactions[3].sequence_number'],
      ]
      for (const [what, users, message, field] of seqCases) {
        it(`refuses a block whose sender ${what}, keeping none of its transactions`, async () => {
          const { store, chain, before, observe } = await twoBlockStore()
          const bad = chain.block({ users })
          const thrown = await refusal(store, bad)
          expect(thrown).toBeInstanceOf(LedgerContinuityError)
          expect((thrown as Error).message).toMatch(message)
          expect((thrown as { field?: string }).field).toBe(field)
          expect(await observe()).toEqual(before)
        })
      }

      it('takes the right block after refusing a wrong one', async () => {
        const { store, chain, blocks } = await twoBlockStore()
        const good = chain.block({ users: [{ sender: 1 }] })
        const dup = clone(blocks[1] as BlockJson)
        await expect(async () => store.appendBlock(dup)).rejects.toThrow(LedgerContinuityError)
        await store.appendBlock(good)
        expect((await store.ledgerInfo())?.block_height).toBe(12)
        expect(await store.accountSequenceNumber(addr(1))).toBe(3)
      })

      it('refuses a value that is not a block at all', async () => {
        const store = await fresh()
        await expect(async () => store.appendBlock(null as unknown as BlockJson)).rejects.toThrow(InvalidBlockError)
        await expect(async () => store.appendBlock({ block_height: '1' } as unknown as BlockJson)).rejects.toThrow(InvalidBlockError)
        expect(await store.ledgerInfo()).toBeNull()
      })
    })

    describe('pruning', () => {
      // 5 blocks at heights 20..24, 4 txns each (metadata, 2 users, epilogue): versions 200..219.
      async function fiveBlocks() {
        const store = await fresh()
        const chain = new ChainBuilder({ height: 20, version: 200 })
        const blocks = chain.blocks(5, (i) => [{ sender: 1 }, { sender: 2 + (i % 2) }])
        await appendAll(store, blocks)
        return { store, chain, blocks }
      }

      it('drops whole blocks whose last version is below the cut; the oldest version and height follow', async () => {
        const { store, blocks } = await fiveBlocks()
        await store.pruneBelow(209) // blocks 20 (200..203) and 21 (204..207) go; 22 (208..211) stays
        expect(await store.ledgerInfo()).toMatchObject({ oldest_ledger_version: 208, oldest_block_height: 22, ledger_version: 219, block_height: 24 })
        expect(await store.transactionByVersion(207)).toBeNull()
        expect(await store.transactionByVersion(208)).toEqual(blocks[2]?.transactions[0])
        expect(await store.blockByHeight(21, true)).toBeNull()
        expect(await store.blockByHeight(22, true)).toEqual(blocks[2])
        expect(await store.blockByHeight(24, true)).toEqual(blocks[4])
      })

      it('keeps a block the cut falls inside, and one whose last version equals the cut', async () => {
        const { store } = await fiveBlocks()
        await store.pruneBelow(203)
        expect((await store.ledgerInfo())?.oldest_block_height).toBe(20)
        await store.pruneBelow(204)
        expect((await store.ledgerInfo())?.oldest_ledger_version).toBe(204)
      })

      it('lists only retained account transactions but keeps each account\'s sequence number', async () => {
        const { store } = await fiveBlocks()
        await store.pruneBelow(212) // keeps blocks 23, 24: account 1 seq 3..4, account 2 seq 2 (block 24), account 3 seq 1 (block 23)
        expect((await store.accountTransactions(addr(1), 0, 25)).map(seqOf)).toEqual(['3', '4'])
        expect((await store.accountTransactions(addr(1), 4, 25)).map(seqOf)).toEqual(['4'])
        expect((await store.accountTransactions(addr(2), 0, 25)).map(seqOf)).toEqual(['2'])
        expect((await store.accountTransactions(addr(3), 0, 25)).map(seqOf)).toEqual(['1'])
        expect(await store.accountSequenceNumber(addr(1))).toBe(5)
        expect(await store.accountSequenceNumber(addr(2))).toBe(3)
        expect(await store.accountSequenceNumber(addr(3))).toBe(2)
      })

      it('always keeps the newest block, so appends continue after pruning past the ledger version', async () => {
        const { store, chain } = await fiveBlocks()
        await store.pruneBelow(U64_MAX)
        expect(await store.ledgerInfo()).toMatchObject({ oldest_block_height: 24, oldest_ledger_version: 216, block_height: 24, ledger_version: 219 })
        const next = chain.block({ users: [{ sender: 1 }] })
        await store.appendBlock(next)
        expect((await store.accountTransactions(addr(1), 0, 25)).map(seqOf)).toEqual(['4', '5'])
        // The account rule still holds against pruned history.
        const replay = chain.block({ users: [{ sender: 2, seq: 0 }] })
        await expect(async () => store.appendBlock(replay)).rejects.toThrow(/duplicate: sender 0x2 is at sequence number 3, got 0/)
      })

      it('pruning below the oldest version, or twice, changes nothing', async () => {
        const { store } = await fiveBlocks()
        const observe = () => snapshot(store, [addr(1), addr(2)], range(199, 22), range(19, 7))
        const before = await observe()
        await store.pruneBelow(0)
        await store.pruneBelow(200)
        expect(await observe()).toEqual(before)
        await store.pruneBelow(210)
        const after = await observe()
        await store.pruneBelow(205)
        expect(await observe()).toEqual(after)
      })

      // 6,000 appends: over a database server that is seconds on a loaded machine.
      it('prunes many blocks in steps with the same answers as one cut', { timeout: 60_000 }, async () => {
        const a = await fresh()
        const b = await fresh()
        const chain = new ChainBuilder({ height: 3, version: 17 })
        // Block i holds versions 17 + 5i … 21 + 5i: its metadata, senders 1 and 2 (sequence number
        // i each) and an orderless transaction. Both senders in every block, so the block list and
        // each account's list pass the memory store's compaction threshold (1,024 dead entries) at
        // the step cut of 6082, and the last cut (6520, inside block 1300) prunes past a compaction.
        const blocks = chain.blocks(1600, (i) => [{ sender: 1 }, { sender: 2 }, { sender: 100 + (i % 3), nonce: i }])
        await appendInBulk(a, blocks)
        await appendInBulk(b, blocks)
        for (let v = 100; v < 6520; v += 997) await a.pruneBelow(v)
        await a.pruneBelow(6520)
        await b.pruneBelow(6520)
        const accounts = [1, 2, 100].map(addr)
        const versions = range(6510, 20)
        expect(await snapshot(a, accounts, versions, range(1298, 10))).toEqual(await snapshot(b, accounts, versions, range(1298, 10)))
        expect((await a.ledgerInfo())?.oldest_block_height).toBe(1303)
        expect((await a.accountTransactions(addr(1), 1297, 6)).map(seqOf)).toEqual(['1300', '1301', '1302'])
        expect(await a.accountTransactions(addr(1), 0, 3)).toEqual([])
      })
    })
  })
}

/** The body `GET /v1/blocks/by_height/{h}` answers for `block` (src/api/routes/block-by-height.ts, its object path). */
function apiBody(block: BlockJson, withTransactions: boolean): string {
  const { block_height, block_hash, block_timestamp, first_version, last_version } = block
  return JSON.stringify({ block_height, block_hash, block_timestamp, first_version, last_version, transactions: withTransactions ? block.transactions : null })
}

/** What appending `block` throws (the test then checks it); `undefined` if the store took it. */
async function refusal(store: LedgerStore, block: BlockJson): Promise<unknown> {
  try {
    await store.appendBlock(block)
  } catch (e) {
    return e
  }
  return undefined
}

/** What `parsedBlocks(from, count)` answers by the contract, from the store's reads of one block each: `parseBlockJson` of each, `null` where not held, cut after the newest found. */
async function rangeByBlocks(store: LedgerStore, from: bigint, count: number): Promise<(ParsedBlock | null)[]> {
  const want: (ParsedBlock | null)[] = []
  for (let h = from; h < from + BigInt(count) && h <= U64_MAX; h++) {
    const block = await store.blockByHeight(parseU64(h) as U64, true)
    want.push(block === null ? null : parseBlockJson(block))
  }
  let end = want.length
  while (end > 0 && want[end - 1] === null) end--
  return end === 0 ? want : want.slice(0, end)
}

/**
 * The range read of a store that offers it (`LedgerStore.parsedBlocks`), registered as vitest
 * tests: one entry per height with none skipped, each what a read of that block alone gives.
 */
export function describeRangeReadContract(name: string, create: StoreFactory): void {
  describe(`${name}: parsedBlocks contract`, () => {
    const open: LedgerStore[] = []
    const fresh = async () => {
      const store = await create()
      open.push(store)
      expect(store.parsedBlocks).toBeDefined()
      return store as LedgerStore & Required<Pick<LedgerStore, 'parsedBlocks'>>
    }
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close()
    })

    it('answers each height of a range as parseBlockJson of blockByHeight, null where not held (pruned, below the oldest), ending at the newest block found', async () => {
      const store = await fresh()
      const chain = new ChainBuilder({ height: 5, version: 40 })
      const blocks = chain.blocks(12, (i) => Array.from({ length: i % 3 }, (_, k) => ({ sender: 1 + k, gas_unit_price: 100 + i * 3 + k })))
      await appendInBulk(store, blocks)
      await store.pruneBelow(Number(blocks[3]?.first_version)) // heights 5..7 go
      for (const [from, count] of [[0, 30], [3, 7], [8, 4], [10, 100], [16, 1], [17, 5], [100, 3], [0, 5]] as const) {
        const want = await rangeByBlocks(store, BigInt(from), count)
        expect(await store.parsedBlocks(from, count, 1_000_000), `from ${from}, ${count} heights`).toEqual(want)
      }
      expect(await store.parsedBlocks(0, 30, 1_000_000)).toHaveLength(17)
      expect(await store.parsedBlocks(17, 5, 1_000_000)).toEqual([null, null, null, null, null])
      expect(await store.parsedBlocks(8, 0, 1_000_000)).toEqual([])
    })

    it('stops before the block that would bring the transactions read past maxTransactions, but always answers the first block found', async () => {
      const store = await fresh()
      const chain = new ChainBuilder({ height: 20, version: 100 })
      const blocks = chain.blocks(6, () => [{ sender: 1 }, { sender: 2 }])
      await appendInBulk(store, blocks)
      await store.pruneBelow(Number(blocks[1]?.first_version)) // height 20 goes
      const size = (b: BlockJson | undefined) => Number(b?.last_version) - Number(b?.first_version) + 1
      const two = size(blocks[1]) + size(blocks[2])
      const heights = (r: readonly (ParsedBlock | BlockJson | null)[]) => r.map((b) => (b === null ? null : Number(b.block_height)))
      expect(heights(await store.parsedBlocks(18, 10, 1))).toEqual([null, null, null, 21])
      expect(heights(await store.parsedBlocks(21, 10, two - 1))).toEqual([21])
      expect(heights(await store.parsedBlocks(21, 10, two))).toEqual([21, 22])
      expect(heights(await store.parsedBlocks(21, 10, 1_000_000))).toEqual([21, 22, 23, 24, 25])
      expect(heights(await store.parsedBlocks(22, 2, 1_000_000))).toEqual([22, 23])
    })

    it('reads heights and versions up to 2^64-1 exactly', async () => {
      const store = await fresh()
      const chain = new ChainBuilder({ height: U64_MAX - 1n, version: U64_MAX - 2n, epoch: U64_MAX, timestamp: U64_MAX })
      await store.appendBlock(chain.block({ users: [{ sender: 3, seq: U64_MAX - 1n }] }))
      const answer = await store.parsedBlocks(U64_MAX - 3n, 10, 1_000_000)
      expect(answer).toEqual(await rangeByBlocks(store, U64_MAX - 3n, 10))
      expect(answer.map((b) => (b === null ? null : b.block_height))).toEqual([null, null, U64_MAX - 1n])
    })
  })
}
