import { spawn } from 'node:child_process'
import { gitHash, packageRoot } from '../../src/cli/package-info.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { parseAddress } from '../../src/ledger/store/address.js'
import { PgStore } from '../../src/ledger/postgres/pg-store.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { chainLines } from '../../src/sim/index.js'
import { runCli } from '../helpers/run-cli.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { ROOT, spawnCli, startServe, type CliChild } from '../helpers/cli-child.js'

/**
 * The scale-out shape run as real processes: `ledger-gas ingest` writing one PostgreSQL ledger,
 * `ledger-gas serve` replicas reading it. This file starts its own server (even when
 * DATABASE_URL is set), since it stops and restarts it.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-pg-scale-'))
let server: TestPostgres
let url: string
const replicas: (CliChild & { url: string })[] = []
beforeAll(async () => {
  server = await startTestPostgres({ own: true })
  url = await server.createDatabase()
}, 120_000)
afterAll(async () => {
  for (const r of replicas) r.child.kill('SIGKILL')
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

const BLOCKS = 1200
const lines = [...chainLines({ blocks: BLOCKS, seed: 5, accounts: 30, scenario: 'mixed' })]
const blocks = lines.map((l) => JSON.parse(l) as BlockJson)
/** The chain's first `n` blocks as a file: the ledger grows through these stages. */
function stage(n: number): string {
  const path = join(dir, `chain-${n}.jsonl`)
  writeFileSync(path, lines.slice(0, n).join(''))
  return path
}
/** Height of the `n`th block of the chain. */
const heightAt = (n: number): number => Number((blocks[n - 1] as BlockJson).block_height)
const STAGE1 = stage(500)
const STAGE2 = stage(1000)
const FULL = stage(BLOCKS)

/** A spread of reads over blocks `0..n-1`: versions, blocks with and without transactions, account pages, the estimate. */
function urlsUpTo(n: number): string[] {
  const upTo = blocks.slice(0, n)
  const last = upTo[upTo.length - 1] as BlockJson
  const urls = ['/v1', '/v1/estimate_gas_price', `/v1/transactions/by_version/${Number(last.last_version) + 1}`, `/v1/blocks/by_height/${Number(last.block_height) + 1}`]
  const step = Math.ceil(Number(last.last_version) / 60)
  for (let v = 0; v <= Number(last.last_version); v += step) urls.push(`/v1/transactions/by_version/${v}`)
  for (let h = 0; h <= Number(last.block_height); h += 53) urls.push(`/v1/blocks/by_height/${h}?with_transactions=${h % 2 === 1}`)
  const senders = [...new Set(upTo.flatMap((b) => b.transactions.flatMap((t) => (t.type === 'user_transaction' ? [parseAddress(t.sender) as string] : []))))]
  for (const a of senders.slice(0, 8)) urls.push(`/v1/accounts/${a}/transactions`, `/v1/accounts/${a}/transactions?start=2&limit=5`)
  return urls
}

const LEDGER_HEADERS = ['x-node-chain-id', 'x-node-ledger-version', 'x-node-ledger-oldest-version', 'x-node-ledger-timestampusec', 'x-node-epoch', 'x-node-block-height', 'x-node-oldest-block-height']

interface Answer {
  status: number
  headers: Record<string, string | undefined>
  body: string
}

async function fetchAnswer(base: string, path: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`)
  const headers: Record<string, string | undefined> = {}
  for (const h of [...LEDGER_HEADERS, 'content-type']) headers[h] = res.headers.get(h) ?? undefined
  return { status: res.status, headers, body: await res.text() }
}

async function injectAnswer(s: ReadApiServer, path: string): Promise<Answer> {
  const res = await s.fastify.inject({ method: 'GET', url: path })
  const headers: Record<string, string | undefined> = {}
  for (const h of [...LEDGER_HEADERS, 'content-type']) headers[h] = res.headers[h] === undefined ? undefined : String(res.headers[h])
  return { status: res.statusCode, headers, body: res.body }
}

async function memoryServer(file: string): Promise<ReadApiServer> {
  // The replicas are `serve` processes, which put the checkout's git hash in ledger info.
  return createServer({ store: await MemoryStore.fromJsonLines(file), gitHash: gitHash(packageRoot()) })
}

/** Every URL answers the same (status, ledger headers, body) from each replica as from a MemoryStore of `file`. */
async function expectReplicasServe(file: string, n: number): Promise<void> {
  // A replica that fell behind catches its estimates up on the next estimate request, reading
  // the new blocks one query each within its store deadline (1000 ms here, for the outage test);
  // on a loaded machine that can run out once, answering 503 store_timeout, and the next request
  // resumes where it stopped. Compared once the catch-up is through; anything but 200 or that
  // 503 on the way fails.
  for (const r of replicas) {
    let other: { status: number; body: string } | undefined
    await waitUntil(async () => {
      const res = await fetch(`${r.url}/v1/estimate_gas_price`)
      const body = await res.text()
      if (res.status !== 200 && !(res.status === 503 && body.includes('did not answer within'))) other = { status: res.status, body }
      return res.status === 200 || other !== undefined
    }, `${r.url} to catch its estimates up`)
    expect(other).toBeUndefined()
  }
  const memory = await memoryServer(file)
  try {
    for (const path of urlsUpTo(n)) {
      const expected = { path, ...(await injectAnswer(memory, path)) }
      const got = await Promise.all(replicas.map(async (r) => ({ path, ...(await fetchAnswer(r.url, path)) })))
      for (const g of got) expect(g).toEqual(expected)
    }
  } finally {
    await memory.close()
  }
}

async function waitUntil(test: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await test().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function heightOf(base: string): Promise<number> {
  const res = await fetch(`${base}/v1`)
  return res.status === 200 ? Number(res.headers.get('x-node-block-height')) : -1
}

function startReplica(): Promise<CliChild & { url: string; port: number }> {
  return startServe(['--db', url, '--poll', '200', '--store-timeout', '1000'])
}

/**
 * One statement, so one snapshot: the ledger holds exactly the transactions of its blocks and
 * ends at the newest block's last version (keys are biased by 2^63, which differences and max()
 * do not mind).
 */
const WHOLE_BLOCKS = `SELECT
  (SELECT count(*) FROM transactions)::int AS txns,
  (SELECT coalesce(sum(last_version - first_version + 1), 0) FROM blocks)::int AS spanned,
  (SELECT max(version) FROM transactions) IS NOT DISTINCT FROM (SELECT max(last_version) FROM blocks) AS tip_ok,
  (SELECT count(*) FROM blocks)::int AS blocks`

describe('PostgreSQL scale-out: one writer, many replicas', () => {
  it('ingest SIGKILLed mid-run, then resumed: no reader ever saw part of a block, nothing committed is lost, the rest is appended', { timeout: 90_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest', '--db', url, '--input', STAGE1, '--batch', '8'], { cwd: ROOT, stdio: 'ignore' })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
    let done = false
    void exited.then(() => (done = true))
    const census: { txns: number; spanned: number; tip_ok: boolean; blocks: number }[] = []
    const reader = new pg.Client({ connectionString: url })
    await reader.connect()
    try {
      while (!done) {
        await new Promise((r) => setTimeout(r, 5))
        let row
        try {
          row = (await reader.query(WHOLE_BLOCKS)).rows[0]
        } catch {
          continue // the tables do not exist yet
        }
        census.push(row)
        if (row.blocks >= 200) {
          child.kill('SIGKILL')
          break
        }
      }
    } finally {
      await reader.end()
    }
    expect(await exited).toBe('SIGKILL')
    expect(census.length).toBeGreaterThan(0)
    for (const c of census) {
      expect(c.txns).toBe(c.spanned)
      expect(c.tip_ok).toBe(true)
    }
    const seen = (census[census.length - 1] as { blocks: number }).blocks
    expect(seen).toBeGreaterThanOrEqual(200)
    expect(seen).toBeLessThan(500)

    const resumed = await runCli(['ingest', '--db', url, '--input', STAGE1])
    expect(resumed.code).toBe(0)
    const [, appended, skipped] = /(\d+) blocks appended, (\d+) skipped/.exec(resumed.stdout) ?? []
    expect(Number(appended) + Number(skipped)).toBe(500)
    expect(Number(skipped)).toBeGreaterThanOrEqual(seen)
    expect(resumed.stdout).not.toContain(new URL(url).password)
  })

  it('two replicas answer equal to each other and to a MemoryStore of the file, and only ever whole blocks while a writer appends', { timeout: 90_000 }, async () => {
    replicas.push(...(await Promise.all([startReplica(), startReplica()])))
    await expectReplicasServe(STAGE1, 500)

    const writer = spawnCli(['ingest', '--db', url, '--input', STAGE2, '--batch', '16'])
    let writing = true
    void writer.exited.then(() => (writing = false))
    const memory = await memoryServer(STAGE2)
    let checked = 0
    let grew = false
    try {
      while (writing) {
        for (const r of replicas) {
          const h = heightAt(400) + Math.floor(Math.random() * 600)
          const path = `/v1/blocks/by_height/${h}?with_transactions=true`
          const got = await fetchAnswer(r.url, path)
          expect(got.status === 200 || got.status === 404).toBe(true)
          const tip = Number(got.headers['x-node-block-height'])
          if (tip > heightAt(500)) grew = true
          // A block at or below the replica's height is whole and the file's; above it, not found.
          if (h <= tip) expect(got.body).toBe((await injectAnswer(memory, path)).body)
          else expect(got.status).toBe(404)
          checked++
        }
      }
    } finally {
      await memory.close()
    }
    expect((await writer.exited).code).toBe(0)
    expect(checked).toBeGreaterThan(0)
    expect(grew).toBe(true)
    await expectReplicasServe(STAGE2, 1000)
  })

  it('PostgreSQL stopped under load: the replicas answer 503, never 500 or a dropped connection; restarted, they answer correctly again without a restart of their own', { timeout: 90_000 }, async () => {
    const paths = ['/v1', '/v1/estimate_gas_price', '/v1/transactions/by_version/777', '/v1/blocks/by_height/321?with_transactions=true', `/v1/accounts/${parseAddress((blocks[3]?.transactions[1] as { sender: string }).sender)}/transactions`]
    const statuses = new Map<number, number>()
    const failures: string[] = []
    let phase: 'up' | 'down' | 'stop' = 'up'
    const unavailable = [0, 0]
    const load = replicas.map(async (r, i) => {
      for (let k = 0; phase !== 'stop'; k++) {
        try {
          const res = await fetch(`${r.url}${paths[k % paths.length]}`)
          await res.text()
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          if (res.status === 503 && phase === 'down') unavailable[i] = (unavailable[i] as number) + 1
        } catch (error) {
          failures.push(String(error))
        }
      }
    })
    await waitUntil(async () => (statuses.get(200) ?? 0) > 20, '200s before the outage')
    await server.stopServer()
    phase = 'down'
    await waitUntil(async () => unavailable.every((n) => n >= 5), 'five 503s from each replica')
    await server.startServer()
    for (const r of replicas) await waitUntil(async () => (await heightOf(r.url)) === heightAt(1000), `${r.url} to read the ledger again`)
    phase = 'stop'
    await Promise.all(load)
    expect(failures).toEqual([])
    expect([...statuses.keys()].sort()).toEqual([200, 503])
    await expectReplicasServe(STAGE2, 1000)
  })

  it('a replica killed and restarted catches up with blocks appended meanwhile; the live one follows them', { timeout: 90_000 }, async () => {
    const killed = replicas.pop() as CliChild & { url: string }
    killed.child.kill('SIGKILL')
    await killed.exited
    const ingest = await runCli(['ingest', '--db', url, '--input', FULL])
    expect(ingest.code).toBe(0)
    expect(ingest.stdout).toMatch(/200 blocks appended, 1000 skipped/)
    replicas.push(await startReplica())
    for (const r of replicas) await waitUntil(async () => (await heightOf(r.url)) === heightAt(BLOCKS), `${r.url} at the new height`)
    await expectReplicasServe(FULL, BLOCKS)
  })

  it('ingest --from-node copies a replica, as it would an Aptos node, into another database: the newest 1000 blocks, then nothing more on a second run', { timeout: 60_000 }, async () => {
    const copy = await server.createDatabase()
    const node = `${(replicas[0] as { url: string }).url}/v1`
    const first = await runCli(['ingest', '--db', copy, '--from-node', node, '--once', '--batch', '50'])
    expect(first.code).toBe(0)
    expect(first.stdout).toMatch(/^ingest: 1000 blocks appended from /)
    const again = await runCli(['ingest', '--db', copy, '--from-node', node, '--once'])
    expect(again.stdout).toMatch(/^ingest: 0 blocks appended from /)
    const store = await PgStore.open(copy, { readonly: true })
    try {
      expect(await store.ledgerInfo()).toMatchObject({ oldest_block_height: heightAt(201), block_height: heightAt(BLOCKS) })
      for (const n of [201, 202, 640, 1001, BLOCKS]) expect(await store.blockByHeight(heightAt(n), true)).toEqual(blocks[n - 1])
    } finally {
      await store.close()
    }
  })
})
