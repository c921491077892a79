import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError, expectSchema } from '../helpers/api-schemas.js'
import { get, headerNames, serverOf, storeOf } from '../helpers/api-server.js'

/** Account 1 sends 40 sequence-number txns (seq 0..39) and 3 orderless ones; account 2 sends 1. */
function chain40() {
  const chain = new ChainBuilder()
  const blocks = chain.blocks(20, (i) => [{ sender: 1 }, { sender: 1 }, ...(i % 7 === 0 ? [{ sender: 1, nonce: i }] : []), ...(i === 3 ? [{ sender: 2 }] : [])])
  return { chain, blocks }
}

const seqs = (body: unknown) => (body as { sequence_number: string }[]).map((t) => Number(t.sequence_number))
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i)
const A1 = addr(1)

describe('GET /v1/accounts/{address}/transactions', () => {
  it('without start returns the latest 25 sequence-number txns, ascending (X1)', async () => {
    const server = await serverOf(chain40().blocks)
    const res = await get(server, `/v1/accounts/${A1}/transactions`)
    expect(res.statusCode).toBe(200)
    expectSchema('Transaction[]', res.json())
    expect(seqs(res.json())).toEqual(range(15, 40))
    for (const h of headerNames()) expect(res.headers[h]).toMatch(/^[0-9]+$/)
  })

  it('never returns orderless transactions and only the account’s own', async () => {
    const server = await serverOf(chain40().blocks)
    const all = (await get(server, `/v1/accounts/${A1}/transactions?start=0&limit=100`)).json() as { sender: string; replay_protection_nonce: unknown }[]
    expect(all).toHaveLength(40)
    for (const t of all) {
      expect(t.replay_protection_nonce).toBeNull()
      expect(t.sender).toBe(A1)
    }
  })

  it('limit=100 without start saturates the start at 0 (X2)', async () => {
    const server = await serverOf(chain40().blocks)
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?limit=100`)).json())).toEqual(range(0, 40))
  })

  it('start and limit select [start, start+limit)', async () => {
    const server = await serverOf(chain40().blocks)
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?start=5&limit=3`)).json())).toEqual([5, 6, 7])
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?start=30`)).json())).toEqual(range(30, 40))
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?start=0`)).json())).toEqual(range(0, 25))
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?limit=1`)).json())).toEqual([39])
  })

  it('limit above the maximum is clamped to it (X4), and the maximum is configurable', async () => {
    const chain = new ChainBuilder()
    const blocks = chain.blocks(60, () => [{ sender: 1 }, { sender: 1 }, { sender: 1 }])
    const server = await serverOf(blocks)
    expect((await get(server, `/v1/accounts/${A1}/transactions?start=0&limit=1000`)).json()).toHaveLength(100)
    expect((await get(server, `/v1/accounts/${A1}/transactions?start=0&limit=65535`)).json()).toHaveLength(100)
    const small = await serverOf(blocks, { maxPageSize: 10, defaultPageSize: 4 })
    expect(seqs((await get(small, `/v1/accounts/${A1}/transactions`)).json())).toEqual([176, 177, 178, 179])
    expect((await get(small, `/v1/accounts/${A1}/transactions?limit=50`)).json()).toHaveLength(10)
  })

  it('limit=0 is 400 invalid_input (X3)', async () => {
    const server = await serverOf(chain40().blocks)
    const res = await get(server, `/v1/accounts/${A1}/transactions?limit=0`)
    expect(expectError(res, 400, 'invalid_input').message).toBe('Given limit value (0) must not be zero')
    for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
  })

  it('a limit or start that does not parse is 400 web_framework_error (X5, X6)', async () => {
    const server = await serverOf(chain40().blocks)
    for (const q of ['limit=70000', 'limit=65536', 'limit=abc', 'limit=-1', 'limit=1e2', 'limit=0x10', 'limit=', 'limit=%205', 'limit=1&limit=2', 'start=hello', 'start=-1', 'start=1.5', 'start=18446744073709551616', 'start=']) {
      const body = expectError(await get(server, `/v1/accounts/${A1}/transactions?${q}`), 400, 'web_framework_error')
      expect(body.message).toMatch(/^failed to parse parameter `(limit|start)`/)
    }
  })

  it('start past the end and unknown accounts give 200 [] (X7, X8)', async () => {
    const server = await serverOf(chain40().blocks)
    for (const url of [`/v1/accounts/${A1}/transactions?start=40`, `/v1/accounts/${A1}/transactions?start=1000`, `/v1/accounts/${A1}/transactions?start=18446744073709551615`, '/v1/accounts/0xdead/transactions', '/v1/accounts/0xdead/transactions?start=0']) {
      const res = await get(server, url)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual([])
      for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    }
  })

  it('accepts 0x + 1..64 hex digits (any case) or 64 hex digits without 0x (X9)', async () => {
    const server = await serverOf(chain40().blocks)
    const want = seqs((await get(server, `/v1/accounts/${A1}/transactions?start=0&limit=5`)).json())
    expect(want).toEqual([0, 1, 2, 3, 4])
    for (const a of ['0x1', '0x001', `0x${'0'.repeat(63)}1`, '0'.repeat(63) + '1', '0x00000000000000000000000000000001']) {
      expect(seqs((await get(server, `/v1/accounts/${a}/transactions?start=0&limit=5`)).json())).toEqual(want)
    }
    const chain = new ChainBuilder()
    const upper = await serverOf(chain.blocks(1, () => [{ sender: 0xabc }]))
    expect((await get(upper, '/v1/accounts/0xABC/transactions')).json()).toHaveLength(1)
  })

  it('rejects other address forms with 400 web_framework_error (X10)', async () => {
    const server = await serverOf(chain40().blocks)
    for (const a of ['1', '01', 'x1', '00x1', 'invalid', '0x', '0xg1', `0x${'1'.repeat(65)}`, '1'.repeat(63), '1'.repeat(65), '0X1']) {
      const body = expectError(await get(server, `/v1/accounts/${a}/transactions`), 400, 'web_framework_error')
      expect(body.message).toContain('invalid account address')
    }
  })

  it('start naming a pruned transaction is 410 version_pruned; retained ones still answer', async () => {
    const { blocks } = chain40()
    const store = storeOf(blocks)
    const server = await createServer({ store })
    // Blocks 0..4 hold account 1's seq 0..9.
    store.pruneBelow(Number(blocks[5]?.first_version))
    const res = await get(server, `/v1/accounts/${A1}/transactions?start=3`)
    expectError(res, 410, 'version_pruned')
    for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    expectError(await get(server, `/v1/accounts/${A1}/transactions?start=0&limit=100`), 410, 'version_pruned')
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?start=10&limit=3`)).json())).toEqual([10, 11, 12])
    // Without start the latest page is served even if part of it was pruned (as the node does).
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?limit=100`)).json())).toEqual(range(10, 40))
    // Account 2's only txn (block 3) is gone: start=0 is pruned, start=1 is past the end.
    expectError(await get(server, `/v1/accounts/${addr(2)}/transactions?start=0`), 410, 'version_pruned')
    expect((await get(server, `/v1/accounts/${addr(2)}/transactions?start=1`)).json()).toEqual([])
  })

  it('on a ledger that begins late, sequence numbers before its first block are pruned', async () => {
    const chain = new ChainBuilder({ height: 500, version: 90_000 }).startSequence(1, 17)
    const server = await serverOf(chain.blocks(3, () => [{ sender: 1 }]))
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions`)).json())).toEqual([17, 18, 19])
    expectError(await get(server, `/v1/accounts/${A1}/transactions?start=16`), 410, 'version_pruned')
    expect(seqs((await get(server, `/v1/accounts/${A1}/transactions?start=18`)).json())).toEqual([18, 19])
  })
})
