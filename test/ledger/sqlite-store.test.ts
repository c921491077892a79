import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { U64_MAX } from '../../src/core/u64.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { LedgerDatabaseError, SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone } from '../helpers/chain-builder.js'
import { describeRangeReadContract, describeStoreContract } from './store-contract.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-sqlite-'))
let n = 0
const dbPath = () => join(dir, `ledger-${n++}.db`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describeStoreContract('SqliteStore', (options) => SqliteStore.open(dbPath(), options))
describeRangeReadContract('SqliteStore', () => SqliteStore.open(dbPath()))

function withStore<T>(store: SqliteStore, fn: (s: SqliteStore) => T): T {
  try {
    return fn(store)
  } finally {
    store.close()
  }
}

describe('SqliteStore persistence', () => {
  const blocks = new ChainBuilder({ height: 3, version: 9 }).blocks(6, (i) => [{ sender: 1 }, { sender: 2, nonce: i }])

  it('reopened, answers as before and keeps its chain id', () => {
    const path = dbPath()
    const before = withStore(SqliteStore.open(path, { chainId: 2 }), (s) => {
      for (const b of blocks) s.appendBlock(b)
      s.pruneBelow(15)
      return [s.ledgerInfo(), s.blockByHeight(6, true), s.accountTransactions(addr(1), 0, 10), s.accountSequenceNumber(addr(1))]
    })
    const after = withStore(SqliteStore.open(path), (s) => [s.ledgerInfo(), s.blockByHeight(6, true), s.accountTransactions(addr(1), 0, 10), s.accountSequenceNumber(addr(1))])
    expect(after).toEqual(before)
    expect(after[0]).toMatchObject({ chain_id: 2, oldest_block_height: 4, oldest_ledger_version: 13 })
  })

  it('the byte reads are the UTF-8 of the text reads, a page with its count and first sequence number; a stored row that is not one JSON object fails the page', () => {
    const path = dbPath()
    withStore(SqliteStore.open(path), (s) => {
      for (const b of blocks) s.appendBlock(b)
      s.pruneBelow(15)
      for (let v = 8; v <= 23; v++) expect(s.transactionBytesByVersion(v)?.toString('utf8') ?? null).toBe(s.transactionJsonByVersion(v))
      for (const [start, limit] of [[0, 10], [2, 2], [5, 1], [9, 3]] as const) {
        const texts = s.accountTransactionsJson(addr(1), start, limit)
        const page = s.accountTransactionsBytes(addr(1), start, limit)
        expect([Buffer.from(page.body).toString('utf8'), page.count]).toEqual([`[${texts.join(',')}]`, texts.length])
        expect(page.firstSequenceNumber).toBe(texts[0] === undefined ? null : Number((JSON.parse(texts[0]) as { sequence_number: string }).sequence_number))
      }
    })
    const raw = new Database(path)
    const last = raw.prepare<[string], bigint>('SELECT max(version) FROM transactions WHERE sender = ?').pluck().safeIntegers(true).get(addr(1)) as bigint
    expect(raw.prepare("UPDATE transactions SET json = '{\"version\": 0, trunc' WHERE version = ?").run(last).changes).toBe(1)
    raw.close()
    withStore(SqliteStore.open(path, { readonly: true }), (s) => expect(() => s.accountTransactionsBytes(addr(1), 0, 10)).toThrow(LedgerDatabaseError))
  })

  it('the latest page (latestAccountTransactionsBytes) is the page from the next sequence number minus the limit, saturating at 0, pruned rows left out', () => {
    const path = dbPath()
    withStore(SqliteStore.open(path), (s) => {
      for (const b of blocks) s.appendBlock(b)
      s.pruneBelow(15)
      const next = Number(s.accountSequenceNumber(addr(1)))
      for (const limit of [1, 2, 3, 5, next, next + 1, 1000, 2 ** 60]) {
        expect(s.latestAccountTransactionsBytes(addr(1), limit)).toEqual(s.accountTransactionsBytes(addr(1), Math.max(next - limit, 0), limit))
      }
      expect(Buffer.from(s.latestAccountTransactionsBytes(addr(1), 2).body).toString('utf8')).toBe(`[${s.accountTransactionsJson(addr(1), next - 2, 2).join(',')}]`)
      for (const [address, limit] of [[addr(9), 10], [addr(1), 0]] as const) {
        expect(s.latestAccountTransactionsBytes(address, limit)).toEqual({ body: Buffer.from('[]'), count: 0, firstSequenceNumber: null })
      }
    })
    // At the top of the u64 range: the start's key stays within 64 bits.
    withStore(SqliteStore.open(dbPath()), (s) => {
      const block = new ChainBuilder({ height: U64_MAX - 1n, version: U64_MAX - 3n, timestamp: 1 }).block({ users: [{ sender: 3, seq: U64_MAX - 2n }, { sender: 3 }] })
      s.appendBlock(block)
      const page = s.latestAccountTransactionsBytes(addr(3), 1)
      expect([JSON.parse(Buffer.from(page.body).toString('utf8')), page.count, page.firstSequenceNumber]).toEqual([[block.transactions[2]], 1, U64_MAX - 1n])
      expect(s.latestAccountTransactionsBytes(addr(3), 100).count).toBe(2)
    })
  })

  it('a stored row that is not one JSON object at either end fails the pages and the block that hold it, naming it', () => {
    const path = dbPath()
    withStore(SqliteStore.open(path), (s) => {
      for (const b of blocks) s.appendBlock(b)
    })
    const raw = new Database(path)
    const key = (n: number) => BigInt(n) - (1n << 63n)
    const user = blocks[2]?.transactions.find((t) => t.type === 'user_transaction') as { version: string; sequence_number: string }
    const other = blocks[4]?.transactions.find((t) => t.type === 'user_transaction') as { version: string }
    expect(raw.prepare("UPDATE transactions SET json = json || ' ' WHERE version = ?").run(key(Number(user.version))).changes).toBe(1)
    expect(raw.prepare("UPDATE transactions SET json = CAST(' ' || CAST(json AS TEXT) AS BLOB) WHERE version = ?").run(key(Number(other.version))).changes).toBe(1)
    raw.close()
    withStore(SqliteStore.open(path, { readonly: true }), (s) => {
      const named = new LedgerDatabaseError(`${path}: the stored JSON of ${addr(1)}'s transaction ${user.sequence_number} is not one JSON object`)
      expect(() => s.accountTransactionsBytes(addr(1), 0, 10)).toThrow(named)
      expect(() => s.latestAccountTransactionsBytes(addr(1), 10)).toThrow(named)
      expect(() => s.accountTransactionsBytes(addr(1), Number(user.sequence_number) + 1, 10)).toThrow(LedgerDatabaseError)
      expect(() => s.blockBytesByHeight(5, true)).toThrow(new LedgerDatabaseError(`${path}: the stored JSON of transaction ${user.version} is not one JSON object`))
      expect(() => s.blockBytesByHeight(7, true)).toThrow(new LedgerDatabaseError(`${path}: the stored JSON of transaction ${other.version} is not one JSON object`))
      expect(s.blockBytesByHeight(5, false)?.count).toBe(0)
      expect(s.blockBytesByHeight(6, true)?.count).toBe(blocks[3]?.transactions.length)
    })
  })

  it('parsedBlocks: a height whose row is gone answers null, not the next block; a block the engine cannot read answers its JSON, as blockByHeight has it', () => {
    const path = dbPath()
    withStore(SqliteStore.open(path), (s) => {
      for (const b of blocks) s.appendBlock(b)
    })
    const raw = new Database(path)
    const key = (n: number) => BigInt(n) - (1n << 63n)
    expect(raw.prepare('DELETE FROM blocks WHERE block_height = ?').run(key(5)).changes).toBe(1)
    const user = blocks[3]?.transactions.find((t) => t.type === 'user_transaction')
    expect(raw.prepare('UPDATE transactions SET json = ? WHERE version = ?').run(JSON.stringify({ ...user, gas_used: 'lots' }), key(Number(user?.version))).changes).toBe(1)
    raw.close()
    withStore(SqliteStore.open(path, { readonly: true }), (s) => {
      const answer = s.parsedBlocks(3, 6, 1000)
      expect(answer.map((b) => (b === null ? null : 'transactions' in b ? 'json' : Number(b.block_height)))).toEqual([3, 4, null, 'json', 7, 8])
      expect(answer[3]).toEqual(s.blockByHeight(6, true))
    })
  })

  it('is in WAL mode', () => {
    const path = dbPath()
    SqliteStore.open(path).close()
    const db = new Database(path, { readonly: true })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    db.close()
  })

  it('refuses a busy timeout that is not a positive integer, before opening anything', () => {
    const path = dbPath()
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => SqliteStore.open(path, { busyTimeoutMs: bad })).toThrow(`busyTimeoutMs: must be a positive integer, got ${bad}`)
    expect(existsSync(path)).toBe(false)
  })

  it('refuses to open with another chain id, a foreign file, or (read-only) a missing one', () => {
    const path = dbPath()
    SqliteStore.open(path, { chainId: 1 }).close()
    expect(() => SqliteStore.open(path, { chainId: 4 })).toThrow(new LedgerDatabaseError(`${path} holds chain id 1, not 4`))
    const text = join(dir, 'not-a-db.txt')
    writeFileSync(text, 'hello, this is not SQLite\n'.repeat(100))
    expect(() => SqliteStore.open(text)).toThrow(/not-a-db\.txt is not a ledger database: file is not a database/)
    const other = dbPath()
    const foreign = new Database(other)
    foreign.exec('CREATE TABLE t (x)')
    foreign.close()
    expect(() => SqliteStore.open(other, { readonly: true })).toThrow(/is a SQLite database but not a ledger \(it has the tables t and no ledger schema\)/)
    expect(() => SqliteStore.open(other)).toThrow(/is a SQLite database but not a ledger/)
    const reopened = new Database(other, { readonly: true })
    expect(reopened.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['t'])
    expect(reopened.pragma('journal_mode', { simple: true })).toBe('delete')
    reopened.close()
    const empty = dbPath()
    new Database(empty).close()
    expect(() => SqliteStore.open(empty, { readonly: true })).toThrow(/is not a ledger database: it has no tables/)
    SqliteStore.open(empty).close()
    expect(() => SqliteStore.open(join(dir, 'missing.db'), { readonly: true })).toThrow()
    expect(() => SqliteStore.open(join(dir, 'missing.db'), { mustExist: true })).toThrow()
  })

  it('a read-only connection sees each block another connection commits, and cannot write', () => {
    const path = dbPath()
    const writer = SqliteStore.open(path)
    const reader = SqliteStore.open(path, { readonly: true })
    try {
      expect(reader.ledgerInfo()).toBeNull()
      writer.appendBlock(blocks[0] as BlockJson)
      expect(reader.ledgerInfo()?.block_height).toBe(3)
      writer.appendBlock(blocks[1] as BlockJson)
      expect(reader.blockByHeight(4, true)).toEqual(blocks[1])
      expect(() => reader.appendBlock(blocks[2] as BlockJson)).toThrow()
      expect(reader.ledgerInfo()?.block_height).toBe(4)
    } finally {
      reader.close()
      writer.close()
    }
  })

  it('batch: a refused block rolls back only itself; a throwing batch rolls back everything', () => {
    withStore(SqliteStore.open(dbPath()), (s) => {
      s.batch(() => {
        s.appendBlock(blocks[0] as BlockJson)
        s.appendBlock(blocks[1] as BlockJson)
        expect(() => s.appendBlock(clone(blocks[1] as BlockJson))).toThrow(LedgerContinuityError)
        const broken = clone(blocks[2] as BlockJson)
        broken.transactions.pop()
        expect(() => s.appendBlock(broken)).toThrow(/spans/)
        s.appendBlock(blocks[2] as BlockJson)
      })
      expect(s.ledgerInfo()?.block_height).toBe(5)
      expect(() =>
        s.batch(() => {
          s.appendBlock(blocks[3] as BlockJson)
          s.appendBlock(blocks[4] as BlockJson)
          throw new Error('stop')
        }),
      ).toThrow('stop')
      expect(s.ledgerInfo()?.block_height).toBe(5)
      expect(s.transactionByVersion(Number((blocks[3] as BlockJson).first_version))).toBeNull()
      expect(s.accountSequenceNumber(addr(1))).toBe(3)
    })
  })
})
