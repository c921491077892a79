import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { runCli } from '../helpers/run-cli.js'
import { spawnCli } from '../helpers/cli-child.js'
import { createRng } from '../../src/sim/prng.js'
import { CRASH_BLOCKS, CRASH_KILLS } from '../budget.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-crash-http-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Budgets from test/budget.ts: 1,500 blocks and 2 kills by default, more under `npm run test:deep`.
const BLOCKS = CRASH_BLOCKS
const KILLS = CRASH_KILLS
const FIRST_HEIGHT = 1000
const FIRST_VERSION = 77_000
const SENDERS = 12
/** Blocks per SQLite transaction, taken in turn: one kill per block commit, then big batches. */
const BATCHES = [1, 256, 7, 64]

/** Seeded uniform floats in [0, 1) from the project's PRNG, so every run draws the same. */
function rng(seed: number): () => number {
  const g = createRng(seed)
  return () => g.float()
}

const random = rng(Number(process.env.FC_SEED ?? 4242))
const chain = new ChainBuilder({ height: FIRST_HEIGHT, version: FIRST_VERSION })
const blocks: BlockJson[] = Array.from({ length: BLOCKS }, (_, i) =>
  chain.block({
    users: Array.from({ length: Math.floor(random() * 9) }, (_, k) =>
      k === 3 ? { sender: 100 + (i % 5), nonce: i } : { sender: 1 + Math.floor(random() * SENDERS), gas_unit_price: 100 + Math.floor(random() * 400) },
    ),
    epilogue: { block_gas_limit_reached: random() < 0.3, block_output_limit_reached: false, block_effective_block_gas_units: 10, block_approx_output_size: 100 },
  }),
)
const input = join(dir, 'chain.jsonl')
writeFileSync(input, blocks.map((b) => JSON.stringify(b)).join('\n') + '\n')
/** The input without its last block: what a killed ingest is fed. */
const allButLast = blocks.slice(0, -1).map((b) => `${JSON.stringify(b)}\n`).join('')

interface Sighting {
  height: number
  ledgerVersion: string
}

/**
 * A reader polling a read API over the database while an ingest writes it: every answer must be
 * about whole blocks — the block at the reported height has all its transactions and ends at the
 * reported ledger version, that version is served, the estimate is served.
 */
async function readWhole(server: ReadApiServer, seen: Sighting[]): Promise<void> {
  const info = await server.fastify.inject({ method: 'GET', url: '/v1' })
  if (info.statusCode === 503) return // no block committed yet
  expect(info.statusCode).toBe(200)
  const { block_height, ledger_version } = info.json() as { block_height: string; ledger_version: string }
  const block = await server.fastify.inject({ method: 'GET', url: `/v1/blocks/by_height/${block_height}?with_transactions=true` })
  expect(block.statusCode).toBe(200)
  const b = block.json() as BlockJson
  expect(b.last_version).toBe(ledger_version)
  expect(b.transactions).toHaveLength(Number(b.last_version) - Number(b.first_version) + 1)
  expect(b).toEqual(blocks[Number(block_height) - FIRST_HEIGHT])
  expect((await server.fastify.inject({ method: 'GET', url: `/v1/transactions/by_version/${ledger_version}` })).statusCode).toBe(200)
  const estimate = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
  expect(estimate.statusCode).toBe(200)
  expect(Number(estimate.headers['x-node-block-height'])).toBeGreaterThanOrEqual(Number(block_height))
  seen.push({ height: Number(block_height), ledgerVersion: ledger_version })
}

/**
 * Runs the real ingest CLI in a child; SIGKILLs it a random moment after `killAt` blocks are
 * committed. The chain reaches it on standard input without its last block, which is never
 * sent: however fast the ingest, it cannot finish before the kill, and it commits every batch
 * up to `killAt` (at most the last commit short of the end) while it waits for more input.
 */
async function ingestUntilKilled(db: string, killAt: number, batch: number, reader: ReadApiServer, census: Database.Database, seen: Sighting[]) {
  const ingest = spawnCli(['ingest', '--db', db, '--input', '-', '--batch', String(batch)], { stdin: 'pipe' })
  const stdin = ingest.child.stdin
  if (stdin === null) throw new Error('the ingest child has no standard input')
  stdin.on('error', () => {}) // EPIPE once the child is killed mid-write: expected
  stdin.write(allButLast)
  let done = false
  void ingest.exited.then(() => (done = true))
  let killed = false
  while (!done) {
    // inject settles without a turn of the event loop: yield one, or the child's exit is never seen.
    await new Promise((r) => setTimeout(r, 1))
    await readWhole(reader, seen)
    const { n } = census.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }
    if (!killed && n >= killAt) {
      // A random point after the threshold: mid-batch, mid-commit or between batches.
      await new Promise((r) => setTimeout(r, Math.floor(random() * 15)))
      ingest.child.kill('SIGKILL')
      killed = true
    }
  }
  return ingest.exited
}


describe('crash safety of the SQLite ledger under ingest', () => {
  it(`SIGKILLed at ${KILLS} random points of a ${BLOCKS}-block ingest, then resumed: the ledger equals the input (no gap, no duplicate), every endpoint answers as over a MemoryStore of the file, and a reader polling the API meanwhile only ever saw whole blocks`, { timeout: 30_000 + KILLS * 10_000 + BLOCKS * 5 }, async () => {
    const db = join(dir, 'ledger.db')
    SqliteStore.open(db).close() // the schema exists before the reader opens the file read-only
    const readerStore = SqliteStore.open(db, { readonly: true })
    const reader = await createServer({ store: readerStore })
    const census = new Database(db, { readonly: true })
    const seen: Sighting[] = []
    try {
      const points = Array.from({ length: KILLS }, () => Math.floor((0.05 + 0.8 * random()) * BLOCKS)).sort((a, b) => a - b)
      let committed = 0
      for (const [i, point] of points.entries()) {
        // A batch that still commits at least once before the end (else the ingest could only
        // finish), and a kill point at or before its last commit short of the end.
        const batch = [...BATCHES.slice(i % BATCHES.length), ...BATCHES].find((b) => committed + b < BLOCKS) ?? 1
        const lastCommit = committed + Math.floor((BLOCKS - 1 - committed) / batch) * batch
        const exit = await ingestUntilKilled(db, Math.min(Math.max(point, committed + 1), lastCommit), batch, reader, census, seen)
        const { n } = census.prepare('SELECT count(*) AS n FROM blocks').get() as { n: number }
        // Killed before the end; nothing committed was lost.
        expect(exit.signal).toBe('SIGKILL')
        expect(n).toBeGreaterThanOrEqual(committed)
        expect(n).toBeLessThan(BLOCKS)
        committed = n
      }
      // The reader saw the ledger move forward, whole block by whole block.
      expect(seen.length).toBeGreaterThan(KILLS)
      for (let i = 1; i < seen.length; i++) expect((seen[i] as Sighting).height).toBeGreaterThanOrEqual((seen[i - 1] as Sighting).height)

      const resumed = await runCli(['ingest', '--db', db, '--input', input])
      expect(resumed.code).toBe(0)
      const [, appended, skipped] = /(\d+) blocks appended, (\d+) skipped/.exec(resumed.stdout) ?? []
      expect(Number(skipped)).toBe(committed)
      expect(Number(appended) + Number(skipped)).toBe(BLOCKS)
    } finally {
      census.close()
      await reader.close()
      readerStore.close()
    }

    // No gap, no duplicate: exactly the input's heights and versions, each transaction once.
    const check = new Database(db, { readonly: true })
    try {
      const bias = 1n << 63n
      check.defaultSafeIntegers(true)
      const row = check.prepare('SELECT count(*) AS blocks, min(block_height) AS lo, max(block_height) AS hi, (SELECT count(*) FROM transactions) AS txns, (SELECT count(DISTINCT version) FROM transactions) AS distinct_versions, (SELECT min(version) FROM transactions) AS vlo, (SELECT max(version) FROM transactions) AS vhi FROM blocks').get() as Record<string, bigint>
      const totalTxns = BigInt(blocks.reduce((s, b) => s + b.transactions.length, 0))
      expect(row).toEqual({
        blocks: BigInt(BLOCKS),
        lo: BigInt(FIRST_HEIGHT) - bias,
        hi: BigInt(FIRST_HEIGHT + BLOCKS - 1) - bias,
        txns: totalTxns,
        distinct_versions: totalTxns,
        vlo: BigInt(FIRST_VERSION) - bias,
        vhi: BigInt(FIRST_VERSION) + totalTxns - 1n - bias,
      })
    } finally {
      check.close()
    }

    const sqlite = SqliteStore.open(db, { readonly: true })
    try {
      for (const b of blocks) expect(sqlite.blockByHeight(Number(b.block_height), true)).toEqual(b)
      const overDb = await createServer({ store: sqlite })
      const overMemory = await createServer({ store: await MemoryStore.fromJsonLines(input) })
      const last = FIRST_VERSION + blocks.reduce((s, b) => s + b.transactions.length, 0) - 1
      const urls = ['/v1', '/v1/estimate_gas_price', `/v1/transactions/by_version/${last + 1}`, `/v1/blocks/by_height/${FIRST_HEIGHT + BLOCKS}`]
      for (let v = FIRST_VERSION; v <= last; v += 1 + Math.floor(random() * 40)) urls.push(`/v1/transactions/by_version/${v}`)
      for (let h = FIRST_HEIGHT; h < FIRST_HEIGHT + BLOCKS; h += 1 + Math.floor(random() * 60)) urls.push(`/v1/blocks/by_height/${h}?with_transactions=${random() < 0.5}`)
      for (let s = 1; s <= SENDERS; s++) {
        urls.push(`/v1/accounts/${addr(s)}/transactions`, `/v1/accounts/${addr(s)}/transactions?limit=100&start=${Math.floor(random() * 200)}`)
      }
      urls.push(`/v1/accounts/${addr(100)}/transactions`, `/v1/accounts/${addr(999)}/transactions?start=0`)
      expect(urls.length).toBeGreaterThan(200)
      for (const url of urls) {
        const a = await overDb.fastify.inject({ method: 'GET', url })
        const b = await overMemory.fastify.inject({ method: 'GET', url })
        expect({ url, status: a.statusCode, body: a.body }).toEqual({ url, status: b.statusCode, body: b.body })
        for (const h of ['x-node-ledger-version', 'x-node-block-height', 'x-node-ledger-oldest-version', 'x-node-oldest-block-height', 'x-node-epoch', 'x-node-ledger-timestampusec', 'x-node-chain-id']) {
          expect(a.headers[h]).toBe(b.headers[h])
        }
      }
    } finally {
      sqlite.close()
    }
  })
})
