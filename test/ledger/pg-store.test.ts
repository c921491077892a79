import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { U64_MAX, type U64 } from '../../src/core/u64.js'
import { LedgerDatabaseError, LedgerUnavailableError } from '../../src/ledger/store/database-error.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { redactUrl } from '../../src/ledger/postgres/pg-connection.js'
import { PgStore } from '../../src/ledger/postgres/pg-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { coalesced, openLedger } from '../../src/cli/open-store.js'
import { sampleBlocks } from '../helpers/sample-chain.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { addr, ChainBuilder, clone, type UserSpec } from '../helpers/chain-builder.js'
import { describeRangeReadContract, describeStoreContract } from './store-contract.js'

let server: TestPostgres
/** This file's own database; each store gets its own schema in it. */
let url: string
// Starting PostgreSQL takes seconds, more on a loaded machine.
beforeAll(async () => {
  server = await startTestPostgres()
  url = await server.createDatabase()
}, 120_000)
afterAll(async () => server?.close(), 60_000)

async function freshSchema(): Promise<string> {
  return server.createSchema(url)
}

async function sql<T extends object = Record<string, unknown>>(text: string, schema?: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }) })
  await client.connect()
  try {
    return (await client.query<T>(text)).rows
  } finally {
    await client.end()
  }
}

// One pooled connection beside the writer's: each connection is a server process costing tens
// of milliseconds of CPU to start, and the contract is about answers, which do not depend on how
// many connections the reads share (the cut-connection tests below use the default pool). The
// contract's parallel reads queue for that connection, and the pool counts a read's wait for it
// against connectTimeoutMs: 20 s rather than 3 s, so a loaded machine is not taken for a lost
// server (no contract test is about time-outs).
const CONTRACT = { maxConnections: 1, connectTimeoutMs: 20_000 }
describeStoreContract('PgStore', async (options) => PgStore.open(url, { ...options, schema: await freshSchema(), ...CONTRACT }))
describeRangeReadContract('PgStore', async () => PgStore.open(url, { schema: await freshSchema(), ...CONTRACT }))

/** Opens, runs `fn`, closes. */
async function using<T>(store: Promise<PgStore>, fn: (s: PgStore) => Promise<T>): Promise<T> {
  const s = await store
  try {
    return await fn(s)
  } finally {
    await s.close()
  }
}

describe('PgStore schema', { timeout: 30_000 }, () => {
  const blocks = new ChainBuilder({ height: 3, version: 9 }).blocks(6, (i) => [{ sender: 1 }, { sender: 2, nonce: i }])

  it('creates its tables with a ledger marker, schema version and chain id in meta; keys as value − 2^63 bigints, echoed u64 as numeric', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema, chainId: 2 }), async (s) => {
      const chain = new ChainBuilder({ height: U64_MAX - 1n, version: 0, epoch: U64_MAX, timestamp: U64_MAX })
      await s.appendBlock(chain.block())
    })
    const meta = await sql<{ key: string; value: string }>('SELECT key, value FROM meta ORDER BY key', schema)
    expect(meta).toEqual([
      { key: 'application', value: 'ledger-gas ledger' },
      { key: 'chain_id', value: '2' },
      { key: 'schema_version', value: '1' },
    ])
    const [row] = await sql<{ block_height: string; epoch: string; block_timestamp: string; height_type: string }>(
      `SELECT block_height, epoch::text, block_timestamp::text, pg_typeof(block_height)::text AS height_type FROM blocks`,
      schema,
    )
    expect(row).toEqual({ block_height: String(U64_MAX - 1n - (1n << 63n)), epoch: String(U64_MAX), block_timestamp: String(U64_MAX), height_type: 'bigint' })
  })

  it('reopened, answers as before and keeps its chain id; another chain id is refused', async () => {
    const schema = await freshSchema()
    const read = (s: PgStore) => Promise.all([s.ledgerInfo(), s.blockByHeight(6, true), s.accountTransactions(addr(1), 0, 10), s.accountSequenceNumber(addr(1))])
    const before = await using(PgStore.open(url, { schema, chainId: 2 }), async (s) => {
      for (const b of blocks) await s.appendBlock(b)
      await s.pruneBelow(15)
      return read(s)
    })
    const after = await using(PgStore.open(url, { schema }), read)
    expect(after).toEqual(before)
    expect(after[0]).toMatchObject({ chain_id: 2, oldest_block_height: 4, oldest_ledger_version: 13 })
    await expect(PgStore.open(url, { schema, chainId: 4 })).rejects.toThrow(new LedgerDatabaseError(`${redactUrl(url)} (schema ${schema}) holds chain id 2, not 4`))
  })

  it("refuses a schema holding someone else's tables (no marker) and writes nothing to it", async () => {
    const schema = await freshSchema()
    await sql(`CREATE TABLE ${schema}.orders (id int primary key); CREATE TABLE ${schema}.transactions (x text); INSERT INTO ${schema}.orders VALUES (1)`)
    const before = await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`)
    for (const readonly of [false, true]) {
      const thrown = await PgStore.open(url, { schema, readonly }).catch((e: unknown) => e)
      expect(thrown).toBeInstanceOf(LedgerDatabaseError)
      expect((thrown as Error).message).toMatch(/is not a ledger-gas ledger: it holds other tables \(orders, transactions\) and no ledger marker; left untouched/)
    }
    expect(await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`)).toEqual(before)
    expect(await sql(`SELECT * FROM ${schema}.orders`)).toEqual([{ id: 1 }])
  })

  it('refuses a meta table without the marker, another schema version, and (read-only) an empty schema', async () => {
    const foreign = await freshSchema()
    await sql(`CREATE TABLE ${foreign}.meta (key text, value text); INSERT INTO ${foreign}.meta VALUES ('application', 'something else')`)
    await expect(PgStore.open(url, { schema: foreign })).rejects.toThrow(/its meta table has no ledger marker; left untouched/)
    const future = await freshSchema()
    await (await PgStore.open(url, { schema: future })).close()
    await sql(`UPDATE ${future}.meta SET value = '99' WHERE key = 'schema_version'`)
    await expect(PgStore.open(url, { schema: future })).rejects.toThrow(/has ledger schema 99, this build reads 1/)
    const empty = await freshSchema()
    await expect(PgStore.open(url, { schema: empty, readonly: true })).rejects.toThrow(/holds no ledger yet/)
    expect(await sql(`SELECT table_name FROM information_schema.tables WHERE table_schema = '${empty}'`)).toEqual([])
    await expect(PgStore.open(url, { schema: 'Bad-Name' })).rejects.toBeInstanceOf(LedgerDatabaseError)
  })

  it('refuses an unreachable server with LedgerDatabaseError naming it without the password', async () => {
    const u = new URL(url)
    u.port = '1'
    const thrown = await PgStore.open(u.toString(), { connectTimeoutMs: 2000 }).catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(LedgerDatabaseError)
    expect((thrown as Error).message).toMatch(/^cannot connect to PostgreSQL ledger postgres:\/\/postgres(:\*\*\*)?@127\.0\.0\.1:1\//)
    expect((thrown as Error).message).not.toContain(u.password || 'no password set')
  })

  it('one writer at a time; a read-only replica sees each committed block and cannot write', async () => {
    const schema = await freshSchema()
    const writer = await PgStore.open(url, { schema })
    try {
      await expect(PgStore.open(url, { schema })).rejects.toThrow(/another ledger-gas writer is appending to this ledger/)
      const reader = await PgStore.open(url, { schema, readonly: true })
      try {
        expect(await reader.ledgerInfo()).toBeNull()
        await writer.appendBlock(blocks[0] as BlockJson)
        expect((await reader.ledgerInfo())?.block_height).toBe(3)
        await writer.appendBlock(blocks[1] as BlockJson)
        expect(await reader.blockByHeight(4, true)).toEqual(blocks[1])
        await expect(reader.appendBlock(blocks[2] as BlockJson)).rejects.toThrow(/open read-only/)
        await expect(reader.pruneBelow(100)).rejects.toThrow(/open read-only/)
        expect((await reader.ledgerInfo())?.block_height).toBe(4)
      } finally {
        await reader.close()
      }
    } finally {
      await writer.close()
    }
    // The lock went with the writer's connection.
    await (await PgStore.open(url, { schema })).close()
  })

  it('appendBlocks: commits the blocks before a refused one and reports it; the refused and later ones are not written', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema }), async (s) => {
      const broken = clone(blocks[3] as BlockJson)
      broken.transactions.pop()
      const first = await s.appendBlocks([blocks[0], blocks[1], blocks[2], broken, blocks[4]] as BlockJson[])
      expect(first.appended).toBe(3)
      expect((first.refused as Error).message).toMatch(/spans/)
      expect((await s.ledgerInfo())?.block_height).toBe(5)
      const dup = await s.appendBlocks([blocks[3], clone(blocks[3] as BlockJson)] as BlockJson[])
      expect(dup.appended).toBe(1)
      expect(dup.refused).toBeInstanceOf(LedgerContinuityError)
      expect(await s.appendBlocks([blocks[4], blocks[5]] as BlockJson[])).toEqual({ appended: 2 })
      expect(await s.accountSequenceNumber(addr(1))).toBe(6)
    })
  })

  it('a sender first seen in an earlier session is checked against the database (the writer cache starts empty)', async () => {
    const schema = await freshSchema()
    const chain = new ChainBuilder()
    await using(PgStore.open(url, { schema }), (s) => s.appendBlock(chain.block({ users: [{ sender: 7, seq: 40 }] })))
    await using(PgStore.open(url, { schema }), async (s) => {
      await expect(s.appendBlock(chain.block({ users: [{ sender: 7, seq: 40 }] }))).rejects.toThrow(/duplicate: sender 0x7 is at sequence number 41, got 40/)
      chain.height--
      chain.version -= 3n
      await s.appendBlock(chain.block({ users: [{ sender: 7, seq: 41 }] }))
      expect(await s.accountSequenceNumber(addr(7))).toBe(42)
    })
  })
})

describe('ingestJsonLines into PgStore', { timeout: 30_000 }, () => {
  let dir = ''
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ledger-gas-pg-ingest-'))))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const blocks = new ChainBuilder({ height: 40, version: 900 }).blocks(700, (i) => [{ sender: 1 + (i % 4) }])
  const file = (name: string, list: BlockJson[]) => {
    const path = join(dir, name)
    writeFileSync(path, list.map((b) => JSON.stringify(b)).join('\n') + '\n')
    return path
  }

  it('blockHeaders: the stored headers of a range of heights, as blockByHeight without transactions', async () => {
    await using(PgStore.open(url, { schema: await freshSchema() }), async (s) => {
      await s.appendBlocks(blocks.slice(0, 10))
      const { transactions: _, ...header } = blocks[3] as BlockJson
      const got = await s.blockHeaders(43, 3)
      expect(got.map((b) => b.block_height)).toEqual(['43', '44', '45'])
      expect(got[0]).toEqual(header)
      expect(got[0]).toEqual(await s.blockByHeight(43, false))
      expect(await s.blockHeaders(48, 100)).toHaveLength(2)
      expect(await s.blockHeaders(U64_MAX, 5)).toEqual([])
    })
  })

  it('parsedBlocks: a height whose row is gone answers null, not the next block; a block the engine cannot read answers its JSON, as blockByHeight has it', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema }), async (s) => {
      await s.appendBlocks(blocks.slice(0, 8))
      const key = (n: number | string) => String(BigInt(n) - (1n << 63n))
      const user = blocks[4]?.transactions.find((t) => t.type === 'user_transaction')
      await sql(`DELETE FROM blocks WHERE block_height = ${key(43)}`, schema)
      await sql(`UPDATE transactions SET json = '${JSON.stringify({ ...user, gas_used: 'lots' })}' WHERE version = ${key(user?.version ?? 0)}`, schema)
      const answer = await s.parsedBlocks(41, 6, 1000)
      expect(answer.map((b) => (b === null ? null : 'transactions' in b ? 'json' : Number(b.block_height)))).toEqual([41, 42, null, 'json', 45, 46])
      expect(answer[3]).toEqual(await s.blockByHeight(44, true))
    })
  })

  it('transaction JSON holding backslashes, escaped quotes, line breaks, tabs and non-ASCII goes through COPY byte for byte, from a file and from appendBlocks', async () => {
    const chain = new ChainBuilder({ height: 3, version: 60 })
    const odd = ['f\\"q\\\\', 'tab\tnew\nline\rret\\', '\\\\N', 'é→\u2028\u0000\\']
    const made = odd.map((arg, i) => {
      const b = chain.block({ users: [{ sender: 5 + i }, { sender: 9 }] })
      ;(b.transactions[1] as { payload: { arguments: unknown[] } }).payload.arguments.push(arg)
      return b
    })
    for (const [name, load] of [
      ['file', (s: PgStore) => ingestJsonLines(file('odd.jsonl', made), s)],
      ['appendBlocks', (s: PgStore) => s.appendBlocks(made)],
    ] as const) {
      await using(PgStore.open(url, { schema: await freshSchema() }), async (s) => {
        expect((await load(s)).appended, name).toBe(made.length)
        for (const b of made) {
          expect(await s.blockByHeight(BigInt(b.block_height), true), name).toEqual(b)
          for (const t of b.transactions) expect(await s.transactionJsonByVersion(BigInt((t as { version: string }).version)), name).toBe(JSON.stringify(t))
        }
        expect(await s.accountTransactionsJson(addr(8), 0, 5), name).toEqual([JSON.stringify((made[3] as BlockJson).transactions[1])])
      })
    }
  })

  it('a resumed ingest compares every skipped line with the stored block (a window of them per read) and appends the rest', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema }), async (s) => {
      expect((await ingestJsonLines(file('first.jsonl', blocks.slice(0, 600)), s)).appended).toBe(600)
      const forged = blocks.map((b) => b)
      forged[450] = { ...(blocks[450] as BlockJson), block_hash: `0x${'cd'.repeat(32)}` }
      await expect(ingestJsonLines(file('forged.jsonl', forged), s)).rejects.toThrow(/forged\.jsonl:451: block_hash: block 490 differs from the one in/)
      expect((await s.ledgerInfo())?.block_height).toBe(639)
      const resumed = await ingestJsonLines(file('all.jsonl', blocks), s, { batchBlocks: 64 })
      expect(resumed).toMatchObject({ appended: 100, skipped: 600 })
      expect(await s.blockByHeight(739, true)).toEqual(blocks[699])
    })
  })
})

// A property, kept in this file rather than a *.prop.test.ts so that it shares this file's server.
describe('PgStore batches against MemoryStore (property)', () => {
  /** Each run opens a schema of its own (~0.1 s), so a sixth of the budget. */
  const RUNS = Math.max(5, Math.floor(Number(process.env.FC_NUM_RUNS ?? 60) / 6))
  const SENDERS = [1, 2, 3, 4]
  type Kind = 'good' | 'duplicate' | 'gap' | 'seq_gap' | 'seq_repeat'
  const user = fc.record({ sender: fc.constantFrom(...SENDERS), orderless: fc.boolean() })
  const step = fc.record({
    prune: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { freq: 4 }),
    batch: fc.array(fc.record({ kind: fc.constantFrom<Kind>('good', 'good', 'good', 'good', 'duplicate', 'gap', 'seq_gap', 'seq_repeat'), users: fc.array(user, { maxLength: 4 }) }), { minLength: 1, maxLength: 6 }),
  })

  /** The blocks of one batch, built on `memory`'s tip and senders: good ones chain, bad ones break one rule. */
  function build(memory: MemoryStore, batch: { kind: Kind; users: { sender: number; orderless: boolean }[] }[], salt: number): BlockJson[] {
    const info = memory.ledgerInfo()
    const chain = new ChainBuilder(info === null ? { height: 5, version: 100 } : { height: BigInt(info.block_height) + 1n, version: BigInt(info.ledger_version) + 1n })
    for (const k of SENDERS) if (memory.accountSequenceNumber(addr(k)) !== 0) chain.seqs.set(addr(k), BigInt(memory.accountSequenceNumber(addr(k))))
    const out: BlockJson[] = []
    for (const [i, b] of batch.entries()) {
      const users: UserSpec[] = b.users.map((u, j) => (u.orderless ? { sender: u.sender, nonce: salt * 1000 + i * 10 + j } : { sender: u.sender }))
      if (b.kind === 'duplicate' && out.length > 0) {
        out.push(clone(out[out.length - 1] as BlockJson))
        continue
      }
      if (b.kind === 'gap') chain.height++
      if (b.kind === 'seq_gap' || b.kind === 'seq_repeat') {
        const s = addr(b.users[0]?.sender ?? 1)
        const next = chain.seqs.get(s) ?? 0n
        users.unshift({ sender: s, seq: b.kind === 'seq_gap' ? next + 1n : next > 0n ? next - 1n : next + 1n })
      }
      out.push(chain.block({ users }))
    }
    return out
  }

  it('appendBlocks over any batches of blocks (duplicates, gaps, broken sequence numbers, prunes between) appends and refuses exactly what MemoryStore.appendBlock one by one does, and answers the same', { timeout: 120_000 }, async () => {
    let salt = 0
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 5 }), async (steps) => {
        const store = await PgStore.open(url, { schema: await freshSchema(), ...CONTRACT })
        const memory = new MemoryStore()
        try {
          for (const { prune, batch } of steps) {
            const info = memory.ledgerInfo()
            if (prune !== null && info !== null) {
              const cut = Math.floor(Number(info.oldest_ledger_version) + prune * (Number(info.ledger_version) - Number(info.oldest_ledger_version) + 1))
              await store.pruneBelow(cut)
              memory.pruneBelow(cut)
            }
            const blocks = build(memory, batch, salt++)
            const result = await store.appendBlocks(blocks)
            let appended = 0
            let refused: unknown
            for (const b of blocks) {
              try {
                memory.appendBlock(b)
                appended++
              } catch (error) {
                refused = error
                break
              }
            }
            expect(result.appended).toBe(appended)
            expect(String(result.refused)).toBe(String(refused))
          }
          const info = memory.ledgerInfo()
          expect(await store.ledgerInfo()).toEqual(info)
          for (const k of SENDERS) {
            expect(await store.accountSequenceNumber(addr(k))).toBe(memory.accountSequenceNumber(addr(k)))
            expect(await store.accountTransactions(addr(k), 0, 1000)).toEqual(memory.accountTransactions(addr(k), 0, 1000))
          }
          if (info !== null) {
            for (let h = Number(info.oldest_block_height) - 1; h <= Number(info.block_height) + 1; h++) expect(await store.blockByHeight(h, true)).toEqual(memory.blockByHeight(h, true))
          }
        } finally {
          await store.close()
        }
      }),
      { numRuns: RUNS },
    )
  })
})

describe('PgStore.watch', { timeout: 30_000 }, () => {
  /** Watches `store`, checking that heights only rise; `until(h)` resolves once a height >= h was reported. */
  function watching(store: PgStore, options: { pollMs?: number; listen?: boolean }) {
    const seen: U64[] = []
    const waiters: { target: U64; resolve: (h: U64) => void }[] = []
    const w = store.watch((h) => {
      if (seen.length > 0) expect(h > (seen[seen.length - 1] as U64)).toBe(true)
      seen.push(h)
      for (const x of waiters.splice(0)) if (h >= x.target) x.resolve(h)
      else waiters.push(x)
    }, options)
    return {
      seen,
      until: (target: U64) => new Promise<U64>((resolve) => {
        const last = seen[seen.length - 1]
        if (last !== undefined && last >= target) resolve(last)
        else waiters.push({ target, resolve })
      }),
      close: () => w.close(),
    }
  }

  it('a replica hears each new height by NOTIFY (polling set to an hour, so after the first read only a notification can deliver it)', async () => {
    const schema = await freshSchema()
    const writer = await PgStore.open(url, { schema })
    const replica = await PgStore.open(url, { schema, readonly: true })
    const chain = new ChainBuilder({ height: 50 })
    try {
      await writer.appendBlock(chain.block())
      const w = watching(replica, { pollMs: 3_600_000 })
      // The one read made when LISTEN has started, so blocks committed before it are not missed.
      expect(await w.until(50)).toBe(50)
      await writer.appendBlocks([chain.block(), chain.block(), chain.block()])
      expect(await w.until(53)).toBe(53)
      await writer.appendBlock(chain.block())
      expect(await w.until(54)).toBe(54)
      expect(w.seen).toEqual([50, 53, 54])
      await w.close()
    } finally {
      await replica.close()
      await writer.close()
    }
  })

  it('with notifications off, polling alone finds the new height', async () => {
    const schema = await freshSchema()
    const writer = await PgStore.open(url, { schema })
    const replica = await PgStore.open(url, { schema, readonly: true })
    const chain = new ChainBuilder({ height: 7 })
    try {
      const w = watching(replica, { pollMs: 20, listen: false })
      for (let i = 0; i < 3; i++) await writer.appendBlock(chain.block())
      expect(await w.until(9)).toBe(9)
      await w.close()
    } finally {
      await replica.close()
      await writer.close()
    }
  })
})

describe('PgStore when its connections are cut', { timeout: 30_000 }, () => {
  it('a writer whose connection is cut fails that append as LedgerUnavailableError, then reconnects, re-reads the tip and goes on', async () => {
    const schema = await freshSchema()
    const chain = new ChainBuilder({ height: 70 })
    const [b0, b1, b2] = [chain.block({ users: [{ sender: 3 }] }), chain.block({ users: [{ sender: 3 }] }), chain.block({ users: [{ sender: 3 }] })]
    await using(PgStore.open(url, { schema }), async (s) => {
      await s.appendBlock(b0)
      // The writer is the session holding the advisory lock.
      const killed = await sql<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks WHERE locktype = 'advisory' AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND objid = hashtext('${schema}')::oid`,
      )
      expect(killed).toEqual([{ ok: true }])
      await expect(s.appendBlock(b1)).rejects.toBeInstanceOf(LedgerUnavailableError)
      await s.appendBlock(b1)
      await s.appendBlock(b2)
      expect(await s.ledgerInfo()).toMatchObject({ oldest_block_height: 70, block_height: 72 })
      expect(await s.accountSequenceNumber(addr(3))).toBe(3)
    })
  })

  it('a read blocked past readTimeoutMs is cancelled by the server (its connection is free again), and the next read answers', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema }), (s) => s.appendBlock(new ChainBuilder().block()))
    const replica = await PgStore.open(url, { schema, readonly: true, readTimeoutMs: 200, maxConnections: 1 })
    const locker = new pg.Client({ connectionString: url })
    await locker.connect()
    try {
      await locker.query(`BEGIN; LOCK TABLE ${schema}.transactions IN ACCESS EXCLUSIVE MODE`)
      await expect(replica.transactionByVersion(0)).rejects.toThrow(/canceling statement due to statement timeout/)
      await locker.query('COMMIT')
      // One pooled connection: it was released by the cancel, not stuck behind the lock.
      expect((await replica.transactionByVersion(0))?.version).toBe('0')
    } finally {
      await locker.end()
      await replica.close()
    }
  })

  it('a replica whose server connections are terminated reads again without being reopened (a failed read is LedgerUnavailableError)', async () => {
    const schema = await freshSchema()
    await using(PgStore.open(url, { schema }), (s) => s.appendBlock(new ChainBuilder().block()))
    const replica = await PgStore.open(url, { schema, readonly: true, connectTimeoutMs: 2000 })
    // Every server connection of this replica is terminated, as a server restart would.
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ledger-gas' AND datname = current_database() AND pid <> pg_backend_pid() AND query NOT LIKE '%pg_terminate_backend%'`)
    // The pool notices the dead connections: the first reads may fail as unavailable, later ones reconnect.
    let failures = 0
    for (let i = 0; i < 5; i++) {
      try {
        expect((await replica.ledgerInfo())?.block_height).toBe(0)
      } catch (error) {
        expect(error).toBeInstanceOf(LedgerUnavailableError)
        failures++
      }
    }
    expect(failures).toBeLessThan(5)
    expect((await replica.ledgerInfo())?.block_height).toBe(0)
    await replica.close()
  })
})

describe('PgStore behind the read API', () => {
  it('a replica opened as serve opens it keeps its estimate at the database height with no request: NOTIFY → server.sync()', { timeout: 60_000 }, async () => {
    const schema = await freshSchema()
    const blocks = sampleBlocks(1580, 1640) // the sample chain's congestion and epoch change: the estimate moves
    const writer = await PgStore.open(url, { schema })
    await writer.appendBlocks(blocks.slice(0, 10))
    const opened = await openLedger(`${url}?schema=${schema}`, { readonly: true, pollMs: 3_600_000 })
    const server = await createServer({ store: opened.store })
    const reference = await createServer({ store: new MemoryStore() })
    const estimates: string[] = []
    let synced: () => void = () => {}
    // The watcher reads the height once when LISTEN starts: that first sync comes before any append.
    const started = new Promise<void>((r) => (synced = r))
    const stop = opened.watch?.(coalesced(async () => {
      await server.sync()
      estimates.push(JSON.stringify(server.estimate()))
      synced()
    }, () => {}))
    try {
      for (const b of blocks.slice(0, 10)) await reference.appendBlock(b)
      await started
      for (const b of blocks.slice(10)) {
        const seen = new Promise<void>((r) => (synced = r))
        await writer.appendBlock(b)
        await reference.appendBlock(b)
        await seen
        // No request was made: only the notification brought the replica here.
        expect(server.estimate()).toEqual(reference.estimate())
      }
      expect(new Set(estimates).size).toBeGreaterThan(1)
    } finally {
      await stop?.()
      await server.close()
      await opened.store.close()
      await writer.close()
    }
  })
})
