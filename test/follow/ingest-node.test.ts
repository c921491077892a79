import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { run as serve } from '../../src/cli/commands/serve.js'
import { NodeResponseError } from '../../src/follow/errors.js'
import { ingestFromNode } from '../../src/follow/ingest-node.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { chainLines } from '../../src/sim/index.js'
import { runCli } from '../helpers/run-cli.js'
import { sampleBlocks } from '../helpers/sample-chain.js'
import { until } from '../helpers/wait.js'
import { startServer } from '../helpers/follow-server.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-ingest-node-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const dbPath = () => join(dir, `ledger-${n++}.db`)

/** Every block of `heights` reads the same from the ledger as from the node's store. */
function expectSameBlocks(db: SqliteStore, node: { store: { blockByHeight(h: number, t: boolean): BlockJson | null } }, heights: number[]): void {
  for (const h of heights) expect(db.blockByHeight(h, true)).toEqual(node.store.blockByHeight(h, true))
}

describe('ingestFromNode', () => {
  it('an empty ledger takes the node newest blocks (backfill), then each run continues from its own newest block: nothing lost or duplicated', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 300))
    const db = SqliteStore.open(dbPath())
    try {
      const first = await ingestFromNode({ url: node.url, store: db, once: true, backfillBlocks: 100, batchBlocks: 16 })
      expect(first).toEqual({ appended: 100, height: 300 })
      expect(db.ledgerInfo()).toMatchObject({ oldest_block_height: 201, block_height: 300 })
      for (const b of sampleBlocks(301, 420)) node.store.appendBlock(b)
      const second = await ingestFromNode({ url: node.url, store: db, once: true, batchBlocks: 7 })
      expect(second).toEqual({ appended: 120, height: 420 })
      expectSameBlocks(db, node, [201, 250, 300, 301, 377, 420])
      expect(await ingestFromNode({ url: node.url, store: db, once: true })).toEqual({ appended: 0, height: 420 })
    } finally {
      db.close()
      await node.close()
    }
  })

  it('a ledger locked by another connection (SQLITE_BUSY) is waited out: the fetched blocks are kept and committed once, none lost', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 120))
    const path = dbPath()
    SqliteStore.open(path).close()
    const locker = new Database(path)
    locker.exec('BEGIN IMMEDIATE')
    // A short busy timeout: the first commit meets the lock and fails as SQLITE_BUSY at once.
    const db = SqliteStore.open(path, { busyTimeoutMs: 50 })
    const outages: string[] = []
    try {
      const summary = await ingestFromNode({
        url: node.url,
        store: db,
        once: true,
        startHeight: 1,
        batchBlocks: 50,
        outage: {
          initialDelayMs: 1,
          onOutage: (e) => {
            outages.push(e.error.message)
            if (locker.inTransaction) locker.exec('ROLLBACK')
          },
        },
      })
      expect(summary).toEqual({ appended: 120, height: 120 })
      expect(outages[0]).toMatch(/locked by another connection \(SQLITE_BUSY\)/)
      expectSameBlocks(db, node, [1, 50, 51, 120])
    } finally {
      db.close()
      locker.close()
      await node.close()
    }
  })

  it('follows the node until stopped, committing blocks as they come', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 50))
    const db = SqliteStore.open(dbPath())
    const controller = new AbortController()
    const heights: number[] = []
    let reached: () => void = () => {}
    const at60 = new Promise<void>((r) => (reached = r))
    try {
      const run = ingestFromNode({
        url: node.url,
        store: db,
        startHeight: 10,
        intervalMs: 10,
        signal: controller.signal,
        onAppend: (h) => {
          heights.push(Number(h))
          if (Number(h) >= 60) reached()
        },
      })
      // The node grows while followed: two blocks between waits for the follower to append them.
      for (const b of sampleBlocks(51, 60)) {
        node.store.appendBlock(b)
        const h = Number(b.block_height)
        if (h % 2 === 0) await until(() => heights.at(-1) === h, `block ${h} appended`)
      }
      await at60
      controller.abort()
      expect(await run).toEqual({ appended: 51, height: 60 })
      expect(heights[heights.length - 1]).toBe(60)
      expect(db.ledgerInfo()).toMatchObject({ oldest_block_height: 10, block_height: 60 })
      expectSameBlocks(db, node, [10, 33, 50, 51, 60])
    } finally {
      db.close()
      await node.close()
    }
  })

  it('refuses a node that has pruned the block the ledger needs next, and a node whose chain does not continue the ledger; the ledger is unchanged', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 100))
    const db = SqliteStore.open(dbPath())
    try {
      await ingestFromNode({ url: node.url, store: db, once: true, backfillBlocks: 20 })
      for (const b of sampleBlocks(101, 110)) node.store.appendBlock(b)
      node.store.pruneBelow(Number(sampleBlocks(105, 105)[0]?.first_version))
      const pruned = await ingestFromNode({ url: node.url, store: db, once: true }).catch((e: unknown) => e)
      expect(pruned).toBeInstanceOf(NodeResponseError)
      expect((pruned as Error).message).toMatch(/the node has pruned block 101, which the ledger needs next/)
      expect(db.ledgerInfo()).toMatchObject({ oldest_block_height: 81, block_height: 100 })

      const other = await startServer([...chainLines({ blocks: 120, seed: 9, first_version: 5_000_000 })].map((l) => JSON.parse(l) as BlockJson))
      try {
        const forked = await ingestFromNode({ url: other.url, store: db, once: true }).catch((e: unknown) => e)
        expect(forked).toBeInstanceOf(LedgerContinuityError)
        expect((forked as Error).message).toMatch(/block 101: first_version: gap/)
        expect(db.ledgerInfo()).toMatchObject({ oldest_block_height: 81, block_height: 100 })
      } finally {
        await other.close()
      }
    } finally {
      db.close()
      await node.close()
    }
  })
})

describe('ledger-gas ingest --from-node', () => {
  it('--once appends up to the node height and reports it; a second run appends nothing', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 80))
    const db = dbPath()
    try {
      const a = await runCli(['ingest', '--db', db, '--from-node', node.url, '--once'])
      expect(a.code).toBe(0)
      expect(a.stdout).toMatch(/^ingest: 80 blocks appended from http:\/\/127\.0\.0\.1:\d+\/v1 to .*; block height 80;/)
      const b = await runCli(['ingest', '--db', db, '--from-node', node.url, '--once'])
      expect(b.stdout).toMatch(/^ingest: 0 blocks appended/)
      const store = SqliteStore.open(db, { readonly: true })
      try {
        expectSameBlocks(store, node, [1, 40, 80])
      } finally {
        store.close()
      }
    } finally {
      await node.close()
    }
  })

  it('refuses --input with --from-node and a URL that is not http(s)', async () => {
    expect((await runCli(['ingest', '--db', dbPath(), '--from-node', 'ftp://x/v1', '--once'])).code).toBe(2)
    expect((await runCli(['ingest', '--db', dbPath(), '--from-node', 'http://127.0.0.1:1/v1', '--input', 'x.jsonl'])).code).toBe(2)
  })
})

describe('ledger-gas serve --follow', () => {
  /** Runs `serve` in-process; resolves with its URL once it listens, and a stop that resolves with its exit code. */
  async function startServe(args: string[]) {
    const controller = new AbortController()
    const stderr = new PassThrough()
    let err = ''
    stderr.on('data', (c: Buffer) => (err += c.toString()))
    const exit = serve([...args, '--port', '0'], { stdin: new PassThrough(), stdout: new PassThrough(), stderr, signal: controller.signal })
    let url: string | undefined
    for (let i = 0; i < 500 && url === undefined; i++) {
      url = /listening on (http:\/\/\S+)/.exec(err)?.[1]
      if (url === undefined) await Promise.race([new Promise((r) => setTimeout(r, 20)), exit])
    }
    if (url === undefined) throw new Error(`serve did not start: ${err}`)
    return { url, err: () => err, stop: () => (controller.abort(), exit) }
  }

  async function heightOf(url: string): Promise<number> {
    const res = await fetch(url)
    return res.status === 200 ? Number(res.headers.get('x-node-block-height')) : -1
  }

  async function waitFor(test: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 1500; i++) {
      if (await test()) return
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error(`timed out waiting for ${what}`)
  }

  it('a memory server follows the node: once at the node height, the same blocks, transactions and estimate as the node', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 50))
    const s = await startServe(['--follow', node.url, '--poll', '10'])
    try {
      await waitFor(async () => (await heightOf(s.url)) === 50, 'height 50')
      for (const b of sampleBlocks(51, 130)) node.store.appendBlock(b)
      await waitFor(async () => (await heightOf(s.url)) === 130, 'height 130')
      for (const path of ['/estimate_gas_price', '/blocks/by_height/1?with_transactions=true', '/blocks/by_height/130?with_transactions=true', '/transactions/by_version/700']) {
        const [mine, theirs] = await Promise.all([fetch(`${s.url}${path}`), fetch(`${node.url}${path}`)])
        expect({ path, status: mine.status, body: await mine.text() }).toEqual({ path, status: theirs.status, body: await theirs.text() })
      }
      expect(await s.stop()).toBe(0)
    } finally {
      await node.close()
    }
  })

  it('into a SQLite ledger: a restarted server continues where it stopped', { timeout: 60_000 }, async () => {
    const node = await startServer(sampleBlocks(1, 40))
    const db = dbPath()
    try {
      const first = await startServe(['--follow', node.url, '--db', db, '--poll', '10'])
      await waitFor(async () => (await heightOf(first.url)) === 40, 'height 40')
      expect(await first.stop()).toBe(0)
      for (const b of sampleBlocks(41, 70)) node.store.appendBlock(b)
      const second = await startServe(['--follow', node.url, '--db', db, '--poll', '10'])
      expect(second.err()).toMatch(/blocks 1\.\.40 from .*following http/)
      await waitFor(async () => (await heightOf(second.url)) === 70, 'height 70')
      expect(await second.stop()).toBe(0)
      const store = SqliteStore.open(db, { readonly: true })
      try {
        expectSameBlocks(store, node, [1, 40, 41, 70])
      } finally {
        store.close()
      }
    } finally {
      await node.close()
    }
  })
})
