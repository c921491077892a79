import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import type { U64 } from '../../src/core/u64.js'
import type { LedgerInfo, LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'
import { storeOf } from '../helpers/api-server.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { rawGet, refused, startServe, waitForStderr } from '../helpers/cli-child.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-shutdown-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Users in the big block: its JSON (~5 MB) is far more than loopback socket buffers hold. */
const BIG_BLOCK_USERS = 4000
const IN_FLIGHT = 8

const chain = new ChainBuilder()
const blocks = [
  ...chain.blocks(3, () => [{ sender: 1 }]),
  chain.block({ users: Array.from({ length: BIG_BLOCK_USERS }, (_, i) => ({ sender: 10 + (i % 50) })) }),
  ...chain.blocks(3, () => [{ sender: 1 }]),
]
const data = join(dir, 'chain.jsonl')
writeFileSync(data, blocks.map((b) => JSON.stringify(b)).join('\n') + '\n')

describe('graceful shutdown of ledger-gas serve', () => {
  // A serve child under tsx writing eight ~5 MB answers: on a loaded 2-core machine that passed
  // 30 s. The limit only turns a hang into a failure.
  it('on SIGTERM: stops accepting connections, every in-flight response completes with 200, then exits 0', { timeout: 60_000 }, async () => {
    const serve = await startServe(['--data', data])
    try {
      // Responses held in flight: each client reads the head, then stops reading a ~5 MB body.
      const exchanges = Array.from({ length: IN_FLIGHT }, () => rawGet(serve.port, '/v1/blocks/by_height/3?with_transactions=true', { pauseAfterHead: true }))
      const heads = await Promise.all(exchanges.map((e) => e.head))
      for (const h of heads) expect(h.status).toBe(200)
      // Each client stopped reading at its head, so its body (far more than socket buffers hold)
      // is still in flight: the server cannot finish writing it until the client reads.
      for (const [i, e] of exchanges.entries()) expect(e.received()).toBeLessThan((heads[i] as { contentLength: number }).contentLength)

      serve.child.kill('SIGTERM')
      await waitForStderr(serve, /shutting down/)
      // The listener closes (serve says so just before) while the in-flight responses are still
      // being written: probe until a connection is refused; the checks below show they were.
      while (!(await refused(serve.port))) await new Promise((r) => setImmediate(r))
      // Still running with the bodies unwritten. A serve that exited now would close the
      // connections, and each `done` below would reject naming the body bytes it got.
      expect(serve.child.exitCode).toBeNull()
      expect(serve.child.signalCode).toBeNull()

      for (const e of exchanges) e.resume()
      const answers = await Promise.all(exchanges.map((e) => e.done))
      for (const a of answers) {
        expect(a.status).toBe(200)
        const block = JSON.parse(a.body.toString('utf8')) as { block_height: string; transactions: unknown[] }
        expect(block.block_height).toBe('3')
        expect(block.transactions).toHaveLength(BIG_BLOCK_USERS + 2)
      }
      const exit = await serve.exited
      expect(exit).toEqual({ code: 0, signal: null })
    } finally {
      serve.child.kill('SIGKILL')
    }
  })
})

/** `inner` (synchronous) with every read made asynchronous and, once `gate()`d, held until `release()`; `waiting` counts held reads. */
function gatedStore(inner: LedgerStore) {
  let open: () => void = () => {}
  const gate = new Promise<void>((r) => (open = r))
  let waiting = 0
  let gated = false
  const hold = async <T>(read: () => T): Promise<T> => {
    if (!gated) return read()
    waiting++
    await gate
    return read()
  }
  const store: LedgerStore = {
    ledgerInfo: () => hold(() => inner.ledgerInfo() as LedgerInfo | null),
    transactionByVersion: (v) => hold(() => inner.transactionByVersion(v) as TransactionJson | null),
    accountTransactions: (a, s, l) => hold(() => inner.accountTransactions(a, s, l) as TransactionJson[]),
    accountSequenceNumber: (a) => hold(() => inner.accountSequenceNumber(a) as U64),
    blockByHeight: (h, w) => hold(() => inner.blockByHeight(h, w) as BlockJson | null),
    appendBlock: (b) => inner.appendBlock(b),
    pruneBelow: (v) => inner.pruneBelow(v),
    close: () => inner.close(),
  }
  return { store, gate: () => (gated = true), release: () => open(), waiting: () => waiting }
}

describe('graceful close of the server', () => {
  it('close() with 60 requests waiting on a slow store: all answer 200 with the right body, and new connections are refused', async () => {
    const small = new ChainBuilder().blocks(20, (i) => [{ sender: 1 + (i % 3) }])
    const slow = gatedStore(storeOf(small))
    const server = await createServer({ store: slow.store })
    const url = await server.listen({ port: 0, host: '127.0.0.1' })
    const port = Number(new URL(url).port)
    slow.gate()
    const paths = Array.from({ length: 60 }, (_, i) =>
      [`/v1/transactions/by_version/${i}`, `/v1/accounts/0x${(1 + (i % 3)).toString(16)}/transactions?limit=3`, '/v1/estimate_gas_price', `/v1/blocks/by_height/${i % 20}`][i % 4] as string,
    )
    let arrived = 0
    server.fastify.server.on('request', () => arrived++)
    const pending = paths.map((p) => fetch(`${url}${p}`).then(async (r) => ({ status: r.status, body: await r.text() })))
    // Every request received and waiting in the store (the estimate may read the ledger info twice).
    while (arrived < paths.length || slow.waiting() < paths.length) await new Promise((r) => setImmediate(r))

    const closing = server.close()
    // Once the listener has stopped (its own state, not a guess at how long that takes), a new
    // connection is refused while the 60 still wait in the store.
    while (server.fastify.server.listening) await new Promise((r) => setImmediate(r))
    expect(await refused(port)).toBe(true)
    slow.release()
    const answers = await Promise.all(pending)
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(200)
      if (i % 4 === 0) expect((JSON.parse(a.body) as { version: string }).version).toBe(String(i))
    }
    await closing
  })
})
