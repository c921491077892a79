import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { LedgerDatabaseError, LedgerUnavailableError } from '../../src/ledger/store/database-error.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { retryUnavailable, type OutageEvent } from '../../src/ledger/ingest/outage.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BatchAppendResult, BatchAppendStore, IngestBlock } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { runCli } from '../helpers/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-outage-'))
let n = 0
const temp = (name: string) => join(dir, `${n++}-${name}`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const chain = (count: number): BlockJson[] => new ChainBuilder().blocks(count, (i) => [{ sender: 1 + (i % 4) }, { sender: 9, nonce: i }, { sender: 1 + ((i + 1) % 4) }])
const jsonl = (blocks: BlockJson[]) => blocks.map((b) => `${JSON.stringify(b)}\n`).join('')
const noWait = { initialDelayMs: 1, maxDelayMs: 1 }

/** Every block of `blocks` is in `store`, whole, and nothing else. */
async function expectLedger(store: BatchAppendStore, blocks: BlockJson[]): Promise<void> {
  const last = blocks[blocks.length - 1] as BlockJson
  expect((await store.ledgerInfo())?.block_height).toBe(Number(last.block_height))
  for (const b of blocks) expect(await store.blockByHeight(Number(b.block_height), true)).toEqual(b)
}

/**
 * A SQLite store whose commits and reads fail as a lost connection does, on a script: `before`
 * fails a commit without writing; `after` writes it, then fails as if the answer was lost (the
 * case where a retry must not append twice); `read` fails a ledger read.
 */
function flaky(store: SqliteStore, script: ('ok' | 'before' | 'after')[], failedReads: number): BatchAppendStore & { commits: number } {
  const lost = (what: string) => new LedgerUnavailableError(`test: connection lost ${what}`)
  let reads = failedReads
  const wrapper = {
    commits: 0,
    path: store.path,
    maxBlockTransactions: store.maxBlockTransactions,
    ledgerInfo: () => {
      if (reads-- > 0) throw lost('reading the tip')
      return store.ledgerInfo()
    },
    transactionByVersion: (v: number) => store.transactionByVersion(v),
    accountTransactions: (a: string, s: number, l: number) => store.accountTransactions(a, s, l),
    accountSequenceNumber: (a: string) => store.accountSequenceNumber(a),
    blockByHeight: (h: number, t: boolean) => store.blockByHeight(h, t),
    appendBlock: (b: BlockJson) => store.appendBlock(b),
    appendBlocks: (b: readonly BlockJson[]) => store.appendBlocks(b),
    appendChecked(blocks: readonly IngestBlock[]): BatchAppendResult {
      const step = script.shift() ?? 'ok'
      if (step === 'before') throw lost('before the commit')
      const result = store.appendChecked(blocks)
      wrapper.commits++
      if (step === 'after') throw lost('after the commit')
      return result
    },
    pruneBelow: (v: number) => store.pruneBelow(v),
    close: () => store.close(),
  }
  return wrapper as unknown as BatchAppendStore & { commits: number }
}

describe('writers ride out outages of their database', () => {
  it('retryUnavailable retries only LedgerUnavailableError, with doubling waits up to the cap; anything else is thrown at once', async () => {
    const waits: number[] = []
    let calls = 0
    const value = await retryUnavailable(
      () => {
        if (++calls < 6) throw new LedgerUnavailableError('down')
        return 'up'
      },
      { initialDelayMs: 100, maxDelayMs: 500, sleep: async (ms) => void waits.push(ms) },
    )
    expect(value).toBe('up')
    expect(waits).toEqual([100, 200, 400, 500, 500])
    const bad = new LedgerDatabaseError('foreign schema')
    calls = 0
    await expect(
      retryUnavailable(() => {
        calls++
        throw bad
      }),
    ).rejects.toBe(bad)
    expect(calls).toBe(1)
  })

  it('an aborted signal stops the retries with the last failure', async () => {
    const controller = new AbortController()
    const down = new LedgerUnavailableError('down')
    const events: OutageEvent[] = []
    const run = retryUnavailable(
      () => {
        throw down
      },
      { signal: controller.signal, initialDelayMs: 5, onOutage: (e) => (events.push(e), events.length === 3 && controller.abort()) },
    )
    await expect(run).rejects.toBe(down)
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3])
  })

  it('commits lost before and after they land, and reads of the tip that fail: every block once, none lost', async () => {
    const blocks = chain(40)
    const path = temp('flaky.db')
    const store = flaky(SqliteStore.open(path), ['ok', 'after', 'before', 'after', 'after', 'ok', 'before'], 2)
    const events: OutageEvent[] = []
    let recovered = 0
    const summary = await ingestJsonLines('-', store, { stdin: Readable.from([jsonl(blocks)]), batchBlocks: 6, outage: { ...noWait, onOutage: (e) => events.push(e), onRecovered: () => recovered++ } })
    expect(summary.appended).toBe(40)
    expect(summary.skipped).toBe(0)
    // Two failed tip reads at the start, then five failed commits over four batches (one
    // batch fails three times running); each of the five operations recovers once.
    expect(events).toHaveLength(7)
    expect(recovered).toBe(5)
    // A commit that landed before its answer was lost is never sent again: one commit per batch.
    expect(store.commits).toBe(7)
    await expectLedger(store, blocks)
    await store.close()
  })

  it('a block the lost commit wrote that differs from the one sent (a second writer) stops the ingest', async () => {
    const blocks = chain(10)
    const path = temp('rival.db')
    const inner = SqliteStore.open(path)
    const store = flaky(inner, ['after'], 0)
    const original = store.appendChecked?.bind(store) as (b: readonly IngestBlock[]) => BatchAppendResult
    // The "lost" commit lands another chain's blocks at the same heights.
    const rival = blocks.map((b, i) => ({ ...b, block_hash: `0x${(i + 1).toString(16).padStart(64, 'f')}` }))
    store.appendChecked = (b) => {
      if (store.commits === 0) {
        inner.appendBlocks(rival.slice(0, b.length))
        store.commits++
        throw new LedgerUnavailableError('test: connection lost after the commit')
      }
      return original(b)
    }
    await expect(ingestJsonLines('-', store, { stdin: Readable.from([jsonl(blocks)]), batchBlocks: 4, outage: noWait })).rejects.toThrow(/another writer appended meanwhile/)
    await store.close()
  })

  it('SQLite: a write lock held by another connection (SQLITE_BUSY past the busy timeout) is waited out', async () => {
    const blocks = chain(12)
    const path = temp('busy.db')
    SqliteStore.open(path).close()
    const locker = new Database(path)
    locker.exec('BEGIN IMMEDIATE')
    const store = SqliteStore.open(path)
    const events: OutageEvent[] = []
    try {
      const summary = await ingestJsonLines('-', store, {
        stdin: Readable.from([jsonl(blocks)]),
        batchBlocks: 5,
        outage: {
          ...noWait,
          onOutage: (e) => {
            events.push(e)
            if (locker.inTransaction) locker.exec('ROLLBACK')
          },
        },
      })
      expect(summary.appended).toBe(12)
      expect(events[0]?.error.message).toMatch(/is locked by another connection \(SQLITE_BUSY\)/)
      await expectLedger(store, blocks)
    } finally {
      store.close()
      locker.close()
    }
  })

  it('SQLite: no room to write (the page limit, as a full disk) stops with a clear error; only whole committed batches are in the ledger, and a rerun resumes', async () => {
    const blocks = chain(400)
    const path = temp('full.db')
    const capped = SqliteStore.open(path, { maxPageCount: 40 })
    const thrown = await ingestJsonLines('-', capped, { stdin: Readable.from([jsonl(blocks)]), batchBlocks: 16, outage: noWait }).catch((e: unknown) => e)
    capped.close()
    expect(thrown).toBeInstanceOf(LedgerDatabaseError)
    expect((thrown as Error).message).toMatch(/no room to write \(SQLITE_FULL: the disk is full, or the database reached its page limit\); the batch was rolled back and nothing of it was written/)
    const store = SqliteStore.open(path)
    const height = Number((await store.ledgerInfo())?.block_height ?? -1)
    expect(height).toBeGreaterThan(0)
    expect(height).toBeLessThan(399)
    // Whole batches only: the ledger ends at a batch boundary, each block whole.
    expect((height + 1) % 16).toBe(0)
    await expectLedger(store, blocks.slice(0, height + 1))
    const rerun = await ingestJsonLines('-', store, { stdin: Readable.from([jsonl(blocks)]) })
    expect(rerun).toMatchObject({ appended: 399 - height, skipped: height + 1 })
    await expectLedger(store, blocks)
    store.close()
  })
})

describe('a streaming writer commits on time', () => {
  /** Resolves once `read` returns true, checking on each of the reader's polls; rejects with `what` after a generous bound. */
  async function until(read: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20_000
    while (!read()) {
      if (Date.now() > deadline) throw new Error(`expected ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('a paced stream: each block reaches another connection before the next is written, with a batch far from full', async () => {
    const blocks = chain(5)
    const path = temp('paced.db')
    SqliteStore.open(path).close()
    const reader = SqliteStore.open(path, { readonly: true })
    const input = new PassThrough()
    const run = ingestJsonLines('-', SqliteStore.open(path), { stdin: input, batchBlocks: 4096, commitIntervalMs: 50 })
    try {
      for (const b of blocks) {
        input.write(`${JSON.stringify(b)}\n`)
        await until(() => reader.ledgerInfo()?.block_height === Number(b.block_height), `block ${b.block_height} committed while the stream is quiet`)
      }
    } finally {
      input.end()
    }
    expect(await run).toMatchObject({ appended: 5 })
    reader.close()
  })

  it('ingest --input - commits a live feed within the default interval', async () => {
    const blocks = chain(3)
    const db = temp('live.db')
    SqliteStore.open(db).close()
    const reader = SqliteStore.open(db, { readonly: true })
    const input = new PassThrough()
    const run = runCli(['ingest', '--db', db, '--input', '-'], input)
    for (const b of blocks) {
      input.write(`${JSON.stringify(b)}\n`)
      await until(() => reader.ledgerInfo()?.block_height === Number(b.block_height), `block ${b.block_height} seen by a reader`)
    }
    input.end()
    const done = await run
    expect(done.code).toBe(0)
    expect(done.stdout).toMatch(/^ingest: 3 blocks appended/)
    reader.close()
  })

  it('a quiet stream stops on the signal at once, with what it read committed', async () => {
    const blocks = chain(2)
    const store = SqliteStore.open(temp('quiet.db'))
    const input = new PassThrough()
    const controller = new AbortController()
    const run = ingestJsonLines('-', store, { stdin: input, commitIntervalMs: 60_000, signal: controller.signal })
    input.write(jsonl(blocks))
    await new Promise((r) => setTimeout(r, 50))
    controller.abort()
    expect(await run).toMatchObject({ appended: 2, interrupted: true })
    store.close()
    input.destroy()
  })

  it('a file keeps its full batches: nothing is committed on time', async () => {
    const blocks = chain(30)
    const path = temp('file.db')
    const store = SqliteStore.open(path)
    let commits = 0
    const appendChecked = store.appendChecked.bind(store)
    store.appendChecked = (b) => (commits++, appendChecked(b))
    await ingestJsonLines('-', store, { stdin: Readable.from([jsonl(blocks)]), batchBlocks: 10 })
    expect(commits).toBe(3)
    store.close()
  })
})
