import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { gitHash, packageRoot } from '../../src/cli/package-info.js'
import { parseAddress } from '../../src/ledger/store/address.js'
import { PgStore } from '../../src/ledger/postgres/pg-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { chainLines } from '../../src/sim/index.js'
import { runCli } from '../helpers/run-cli.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'
import { spawnCli, startServe, waitForStderr, type CliChild } from '../helpers/cli-child.js'

/**
 * A live writer through a PostgreSQL outage, as real processes: `ingest --input -` fed a block
 * at a time (a paced pipe), two `serve` replicas on the same database, and the server stopped
 * for 10 s and started again in the middle. The writer must ride it out (no exit, no block lost
 * or doubled) and the replicas must end answering byte for byte as a clean ingest of the same
 * chain. This file starts its own server, since it stops it.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-pg-outage-'))
let server: TestPostgres
let url: string
const children: CliChild[] = []
beforeAll(async () => {
  server = await startTestPostgres({ own: true })
  url = await server.createDatabase()
}, 120_000)
afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL')
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

const BLOCKS = 450
const lines = [...chainLines({ blocks: BLOCKS, seed: 23, accounts: 20, scenario: 'mixed' })]
const blocks = lines.map((l) => JSON.parse(l) as BlockJson)
const heightAt = (n: number): number => Number((blocks[n - 1] as BlockJson).block_height)
const OUTAGE_MS = 10_000

const LEDGER_HEADERS = ['x-node-chain-id', 'x-node-ledger-version', 'x-node-ledger-oldest-version', 'x-node-ledger-timestampusec', 'x-node-epoch', 'x-node-block-height', 'x-node-oldest-block-height', 'content-type']

/** Reads that cover the whole chain: ledger info, the estimate, blocks with and without transactions, versions, account pages. */
function paths(): string[] {
  const last = blocks[BLOCKS - 1] as BlockJson
  const out = ['/v1', '/v1/estimate_gas_price', `/v1/blocks/by_height/${Number(last.block_height) + 1}`]
  for (let h = 0; h < BLOCKS; h += 17) out.push(`/v1/blocks/by_height/${heightAt(h + 1)}?with_transactions=${h % 2 === 0}`)
  const step = Math.ceil(Number(last.last_version) / 50)
  for (let v = 0; v <= Number(last.last_version); v += step) out.push(`/v1/transactions/by_version/${v}`)
  const senders = [...new Set(blocks.flatMap((b) => b.transactions.flatMap((t) => (t.type === 'user_transaction' ? [parseAddress(t.sender) as string] : []))))]
  for (const a of senders.slice(0, 6)) out.push(`/v1/accounts/${a}/transactions?limit=100`)
  return out
}

async function heightOf(base: string): Promise<number> {
  const res = await fetch(`${base}/v1`).catch(() => null)
  if (res === null) return -1
  await res.text()
  return res.status === 200 ? Number(res.headers.get('x-node-block-height')) : -1
}

/** Resolves once `test` holds, polling; the bound only turns a hang into a message. */
async function until(test: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await test().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`expected ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Writes `from..to-1` lines to the writer, one every `gapMs` (a producer at its own pace). */
async function feed(writer: CliChild, from: number, to: number, gapMs: number): Promise<void> {
  for (let i = from; i < to; i++) {
    writer.child.stdin?.write(lines[i])
    await new Promise((r) => setTimeout(r, gapMs))
  }
}

describe('PostgreSQL outage under a live writer and two replicas', () => {
  it('server stopped 10 s and restarted: the paced ingest never exits, loses and doubles nothing; the replicas end byte-identical to a clean ingest', { timeout: 240_000 }, async () => {
    // The ledger exists before the replicas start (a replica refuses a database without one).
    const first = await runCli(['ingest', '--db', url, '--input', '-'], lines.slice(0, 10).join(''))
    expect(first.code, first.stderr).toBe(0)
    const replicas = await Promise.all([startServe(['--db', url, '--poll', '200', '--store-timeout', '1000']), startServe(['--db', url, '--poll', '200', '--store-timeout', '1000'])])
    children.push(...replicas)
    const writer = spawnCli(['ingest', '--db', url, '--input', '-'], { stdin: 'pipe' })
    children.push(writer)
    let writerExited = false
    void writer.exited.then(() => (writerExited = true))
    const timeline: string[] = []
    const started = Date.now()
    const mark = (what: string) => timeline.push(`${((Date.now() - started) / 1000).toFixed(1)} s ${what}`)

    await feed(writer, 10, 150, 15)
    // Each replica sees the paced blocks: the writer commits on time, not when 4096 are read.
    for (const r of replicas) await until(async () => (await heightOf(r.url)) === heightAt(150), `${r.url} at block ${heightAt(150)} before the outage`)
    mark('replicas at the 150th block; stopping PostgreSQL')

    await server.stopServer()
    const down = Date.now()
    mark('PostgreSQL stopped')
    const outageSeen = waitForStderr(writer, /unreachable[^\n]*; retry \d+ in \d+ ms/)
    await feed(writer, 150, 300, 15)
    await outageSeen
    mark('writer reported the outage and kept reading')
    await new Promise((r) => setTimeout(r, Math.max(0, OUTAGE_MS - (Date.now() - down))))
    expect(writerExited, writer.stderr()).toBe(false)
    await server.startServer()
    mark('PostgreSQL started again')
    await waitForStderr(writer, /ledger reachable again after \d+ retr/)
    mark('writer reported the recovery')

    await feed(writer, 300, BLOCKS, 15)
    expect(writerExited, writer.stderr()).toBe(false)
    writer.child.stdin?.end()
    const exit = await writer.exited
    mark(`input ended; writer exited ${exit.code}`)
    expect(exit, `${timeline.join('; ')}\n${writer.stderr()}`).toEqual({ code: 0, signal: null })
    for (const r of replicas) await until(async () => (await heightOf(r.url)) === heightAt(BLOCKS), `${r.url} at the newest block after the outage`)
    mark('replicas at the newest block')

    // A clean ingest of the same chain, in a database of its own, read through the same server code.
    const cleanUrl = await server.createDatabase()
    const file = join(dir, 'chain.jsonl')
    writeFileSync(file, lines.join(''))
    const clean = await runCli(['ingest', '--db', cleanUrl, '--input', file])
    expect(clean.stdout).toMatch(new RegExp(`^ingest: ${BLOCKS} blocks appended, 0 skipped`))
    const cleanStore = await PgStore.open(cleanUrl, { readonly: true })
    const reference: ReadApiServer = await createServer({ store: cleanStore, gitHash: gitHash(packageRoot()) })
    try {
      for (const path of paths()) {
        const res = await reference.fastify.inject({ method: 'GET', url: path })
        const expected = { path, status: res.statusCode, body: res.body, headers: Object.fromEntries(LEDGER_HEADERS.map((h) => [h, res.headers[h] === undefined ? undefined : String(res.headers[h])])) }
        for (const r of replicas) {
          const got = await fetch(`${r.url}${path}`)
          const body = await got.text()
          expect({ path, status: got.status, body, headers: Object.fromEntries(LEDGER_HEADERS.map((h) => [h, got.headers.get(h) ?? undefined])) }).toEqual(expected)
        }
      }
    } finally {
      await reference.close()
    }
    // Each block once: the ledger holds exactly the chain's blocks and transactions.
    const store = await PgStore.open(url, { readonly: true })
    try {
      expect(await store.ledgerInfo()).toMatchObject({ block_height: heightAt(BLOCKS), ledger_version: Number((blocks[BLOCKS - 1] as BlockJson).last_version) })
      for (const n of [1, 150, 151, 220, 300, 301, BLOCKS]) expect(await store.blockByHeight(heightAt(n), true)).toEqual(blocks[n - 1])
    } finally {
      await store.close()
    }
  })
})
