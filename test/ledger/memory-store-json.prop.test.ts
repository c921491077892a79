import fc from 'fast-check'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import type { U64 } from '../../src/core/u64.js'
import { parseAddress } from '../../src/ledger/store/address.js'
import { loadJsonLines } from '../../src/ledger/read/load.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import type { BlockJson, TransactionJson, UserTransactionJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, type UserSpec } from '../helpers/chain-builder.js'
import { fcRuns } from '../budget.js'

const NUM_RUNS = fcRuns(0.25)

/** How a block is written into the chain file: as the node writes it, indented, or with text JSON.stringify would not write. */
type Style = 'compact' | 'indented' | 'odd'

function lineOf(block: BlockJson, style: Style): string {
  if (style === 'compact') return JSON.stringify(block)
  if (style === 'indented') return JSON.stringify(block, null, 1).replace(/\n/g, ' ')
  // Escapes and a float: the line goes through JSON.parse and appendBlock instead of the packer.
  return JSON.stringify(block).replace('"vm_status":"Executed', '"vm_status":"Ex\\u0065cuted').replace('"changes":[]', '"changes":[1.50]')
}

/** The reads of a memory store, every one as text: what a store of parsed objects answers must stringify to the same. */
function observe(store: MemoryStore, versions: number[], heights: number[], senders: string[]) {
  return {
    info: store.ledgerInfo(),
    txns: versions.map((v) => [store.transactionJsonByVersion(v), JSON.stringify(store.transactionByVersion(v))]),
    blocks: heights.map((h) => [JSON.stringify(store.blockByHeight(h, true)), JSON.stringify(store.blockByHeight(h, false))]),
    accounts: senders.map((a) => [
      store.accountSequenceNumber(a),
      store.accountTransactionsJson(a, 0, 1000),
      JSON.stringify(store.accountTransactions(a, 0, 1000)),
      store.accountTransactionsJson(a, 2, 3),
      JSON.stringify(store.accountTransactions(a, 2, 3)),
    ]),
  }
}

/** The API's body for `block` (`GET /v1/blocks/by_height/{h}`): its header and transactions, `null` when not asked for. */
function blockBody(block: BlockJson, withTransactions: boolean): string {
  const { block_height, block_hash, block_timestamp, first_version, last_version } = block
  return JSON.stringify({ block_height, block_hash, block_timestamp, first_version, last_version, transactions: withTransactions ? block.transactions : null })
}

/**
 * The byte reads are the UTF-8 of the text reads: each transaction, each page as the JSON array
 * of its texts with its count and first sequence number, and each block as the API's body of
 * the object read. Every other page or block is given back (`releaseBytes`) as soon as it is
 * checked, the rest are held: a held one must never change, however many are written after it
 * in buffers given back (pages and blocks share them).
 */
function expectBytesAsText(store: MemoryStore, versions: number[], senders: string[], heights: number[]): void {
  for (const v of versions) {
    const json = store.transactionJsonByVersion(v)
    expect(store.transactionBytesByVersion(v)?.toString('utf8') ?? null).toBe(json)
  }
  const held: [Uint8Array, string][] = []
  let n = 0
  for (const a of senders) {
    for (const [start, limit] of [[0, 1000], [2, 3], [1, 1]] as const) {
      const texts = store.accountTransactionsJson(a, start, limit)
      const page = store.accountTransactionsBytes(a, start, limit)
      const text = `[${texts.join(',')}]`
      expect(Buffer.from(page.body).toString('utf8')).toBe(text)
      expect(page.count).toBe(texts.length)
      expect(page.firstSequenceNumber).toBe(texts[0] === undefined ? null : Number((JSON.parse(texts[0]) as UserTransactionJson).sequence_number))
      if (n++ % 2 === 0) store.releaseBytes(page.body)
      else held.push([page.body, text])
    }
  }
  for (const h of heights) {
    for (const withTransactions of [true, false]) {
      const block = store.blockByHeight(h, withTransactions)
      const bytes = store.blockBytesByHeight(h, withTransactions)
      if (block === null) {
        expect(bytes).toBeNull()
        continue
      }
      const text = blockBody(block, withTransactions)
      expect(Buffer.from(bytes?.body ?? []).toString('utf8')).toBe(text)
      expect(bytes?.count).toBe(withTransactions ? block.transactions.length : 0)
      if (bytes === null) continue
      if (n++ % 2 === 0) store.releaseBytes(bytes.body)
      else held.push([bytes.body, text])
    }
  }
  for (const [body, text] of held) expect(Buffer.from(body).toString('utf8')).toBe(text)
}

/** The same reads from the parsed blocks retained, by plain filtering: the object graph every answer must equal. */
function expected(blocks: BlockJson[], versions: number[], heights: number[], senders: string[]) {
  const txns = blocks.flatMap((b) => b.transactions)
  const json = (t: unknown) => (t === undefined ? null : JSON.stringify(t))
  const account = (a: string) =>
    blocks
      .flatMap((b) => b.transactions)
      .filter((t): t is UserTransactionJson => t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) === null && parseAddress(t.sender) === a)
  const page = (a: string, start: number, limit: number) => account(a).filter((t) => Number(t.sequence_number) >= start && Number(t.sequence_number) < start + limit)
  const header = (b: BlockJson) => ({ block_height: b.block_height, block_hash: b.block_hash, block_timestamp: b.block_timestamp, first_version: b.first_version, last_version: b.last_version })
  return {
    txns: versions.map((v) => {
      const t = txns.find((x) => Number(x.version) === v)
      return [json(t), JSON.stringify(t ?? null)]
    }),
    blocks: heights.map((h) => {
      const b = blocks.find((x) => Number(x.block_height) === h)
      return b === undefined ? ['null', 'null'] : [JSON.stringify({ ...header(b), transactions: b.transactions }), JSON.stringify(header(b))]
    }),
    accounts: senders.map((a) => {
      const all = account(a)
      const next = all.length === 0 ? undefined : Number(all[all.length - 1]?.sequence_number) + 1
      return [next, page(a, 0, 1000).map((t) => JSON.stringify(t)), JSON.stringify(page(a, 0, 1000)), page(a, 2, 3).map((t) => JSON.stringify(t)), JSON.stringify(page(a, 2, 3))]
    }),
  }
}

const user: fc.Arbitrary<UserSpec> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 4 }), gas_unit_price: fc.constantFrom<U64>(100, 150, 18446744073709551615n) }) },
  { weight: 1, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 4 }), nonce: fc.integer({ min: 0, max: 1000 }) }) },
)
const step = fc.record({ users: fc.array(user, { maxLength: 4 }), style: fc.constantFrom<Style>('compact', 'compact', 'indented', 'odd'), prune: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }) })

describe('MemoryStore keeps transactions as packed JSON text', () => {
  it('a chain loaded from JSON Lines (packed from the line, or parsed) answers every read exactly as its parsed blocks, before and after prunes, the JSON reads are JSON.stringify of the object reads and the byte reads their UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const chain = new ChainBuilder({ height: 7, version: 40 })
        const lines = steps.map((s) => lineOf(chain.block({ users: s.users }), s.style))
        const text = lines.join('\n')
        // What the file says, parsed: the object graph every answer must stringify as.
        const blocks = lines.map((l) => JSON.parse(l) as BlockJson)
        const loaded = new MemoryStore()
        await loadJsonLines('-', loaded, { stdin: Readable.from([text]) })
        const appended = new MemoryStore()
        for (const l of lines) appended.appendBlock(JSON.parse(l) as BlockJson)
        const versions = Array.from({ length: Number(chain.version) - 40 + 2 }, (_, i) => i + 39)
        const heights = Array.from({ length: blocks.length + 2 }, (_, i) => i + 6)
        const senders = [1, 2, 3, 4].map((n) => addr(n))
        let retained = blocks
        for (const s of [undefined, ...steps.map((x) => x.prune)]) {
          if (s !== undefined) {
            const info = loaded.ledgerInfo()
            const version = Number(info?.ledger_version) - s
            loaded.pruneBelow(version)
            appended.pruneBelow(version)
            while (retained.length > 1 && Number(retained[0]?.last_version) < version) retained = retained.slice(1)
          }
          const want = expected(retained, versions, heights, senders)
          for (const store of [loaded, appended]) {
            const got = observe(store, versions, heights, senders)
            expect(got.txns).toEqual(want.txns)
            expect(got.blocks).toEqual(want.blocks)
            // After a prune an account keeps its next sequence number; the pages hold only what is retained.
            expect(got.accounts.map((a) => a.slice(1))).toEqual(want.accounts.map((a) => a.slice(1)))
            expectBytesAsText(store, versions, senders, heights)
          }
          expect(observe(loaded, versions, heights, senders)).toEqual(observe(appended, versions, heights, senders))
        }
      }),
      { numRuns: NUM_RUNS },
    )
  }, 120_000)

  it('a refused block changes nothing, whether appended as an object (a bigint, a sequence gap) or as a line', () => {
    const chain = new ChainBuilder({ height: 1, version: 1 })
    const store = new MemoryStore()
    store.appendBlock(chain.block({ users: [{ sender: 1 }, { sender: 2 }] }))
    const versions = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    const before = observe(store, versions, [1, 2, 3], [addr(1), addr(2)])
    const saved = { height: chain.height, version: chain.version, seqs: new Map(chain.seqs) }
    const next = chain.block({ users: [{ sender: 1 }, { sender: 2 }] })
    const withBigint = JSON.parse(JSON.stringify(next)) as BlockJson
    ;(withBigint.transactions[2] as unknown as Record<string, unknown>).extra = 5n
    expect(() => store.appendBlock(withBigint)).toThrow(/BigInt/)
    Object.assign(chain, saved)
    const gap = chain.block({ users: [{ sender: 1, seq: 9 }] })
    expect(() => store.appendBlock(gap)).toThrow(/sequence number/)
    expect(store.appendJsonLine(Buffer.from(JSON.stringify(gap)))).toBe(false)
    expect(store.appendJsonLine(Buffer.from(JSON.stringify(next).replace('"1",', '"x",')))).toBe(false)
    expect(observe(store, versions, [1, 2, 3], [addr(1), addr(2)])).toEqual(before)
    expect(store.appendJsonLine(Buffer.from(JSON.stringify(next)))).toBe(true)
    expect(store.transactionJsonByVersion(Number(next.last_version))).toBe(JSON.stringify(next.transactions[next.transactions.length - 1] as TransactionJson))
  })

  it('after a prune of all but the newest block, the newest still reads and the packed bytes count only what is retained', () => {
    const chain = new ChainBuilder({ height: 1, version: 1 })
    const store = new MemoryStore()
    for (let i = 0; i < 300; i++) store.appendBlock(chain.block({ users: [{ sender: 1 + (i % 5) }] }))
    const full = store.packedBytes
    expect(full).toBeGreaterThan(300 * 3 * 100)
    store.pruneBelow(Number(store.ledgerInfo()?.ledger_version))
    const last = Number(store.ledgerInfo()?.ledger_version)
    expect(JSON.parse(store.transactionJsonByVersion(last) as string)).toMatchObject({ version: String(last) })
    expect(store.transactionJsonByVersion(last - 3)).toBeNull()
    expect(store.accountTransactionsJson(addr(1), 0, 1000)).toEqual([])
  })
  it('a byte read is right as the first read of a store and right after a page was handed out (the unpacker then writes in a fresh buffer)', () => {
    const build = () => {
      const chain = new ChainBuilder({ height: 1, version: 1 })
      const store = new MemoryStore()
      for (let i = 0; i < 4; i++) store.appendBlock(chain.block({ users: [{ sender: 1 }, { sender: 2 }] }))
      return store
    }
    const want = build()
    const last = Number(want.ledgerInfo()?.ledger_version)
    for (let v = 1; v <= last; v++) {
      const fresh = build()
      expect(fresh.transactionBytesByVersion(v)?.toString('utf8') ?? null, `version ${v}, first read`).toBe(want.transactionJsonByVersion(v))
      const held = build()
      const page = held.accountTransactionsBytes(addr(1), 0, 1000)
      expect(page.count).toBeGreaterThan(0)
      expect(held.transactionBytesByVersion(v)?.toString('utf8') ?? null, `version ${v}, after a page`).toBe(want.transactionJsonByVersion(v))
    }
  })
})
