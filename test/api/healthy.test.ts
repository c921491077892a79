import { describe, expect, it } from 'vitest'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { expectError, expectSchema } from '../helpers/api-schemas.js'
import { faultyStore, headerNames, serverOf, storeOf } from '../helpers/api-server.js'
import { ApiError, createServer, toErrorReply } from '../../src/api/index.js'

/** Five blocks; the newest is stamped at `newest` µs. */
const chain = new ChainBuilder({ timestamp: 1_700_000_000_000_000n })
const blocks = chain.blocks(5)
const newestUs = BigInt(blocks[blocks.length - 1]?.block_timestamp as string)
const newestMs = Number(newestUs / 1000n)

describe('GET /v1/-/healthy (as the Aptos node)', () => {
  it('without duration_secs: 200 {"message":"aptos-node:ok"} with the ledger headers, whatever the clock says', async () => {
    const server = await serverOf(blocks, { clock: () => newestMs + 10 * 365 * 86_400_000 })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toBe('{"message":"aptos-node:ok"}')
    expectSchema('HealthCheckSuccess', res.json())
    for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
  })

  it('duration_secs=N: 200 while the newest block is at most N s older than the clock, 503 health_check_failed once older', async () => {
    let now = newestMs
    const server = await serverOf(blocks, { clock: () => now })
    const at = () => server.fastify.inject({ method: 'GET', url: '/v1/-/healthy?duration_secs=30' })
    expect((await at()).statusCode).toBe(200)
    now = newestMs + 30_000
    expect((await at()).statusCode).toBe(200)
    now = newestMs + 30_001
    const stale = await at()
    expect(expectError(stale, 503, 'health_check_failed').message).toBe(`The latest ledger info timestamp is ${newestUs} µs, 30.001 s old, which is beyond the allowed skew (30s).`)
    for (const h of headerNames()) expect(stale.headers[h]).toBeDefined()
    expect(toErrorReply(new ApiError('health_check_failed', 'old')).fault).toBe(false)
    // A ledger ahead of the clock is healthy, as is any age with duration_secs at u32::MAX.
    now = newestMs - 60_000
    expect((await at()).statusCode).toBe(200)
    now = newestMs + 86_400_000
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy?duration_secs=4294967295' })).statusCode).toBe(200)
  })

  it('a block appended moves the health check with it', async () => {
    const c = new ChainBuilder({ timestamp: 1_700_000_000_000_000n })
    const first = c.blocks(3)
    const server = await serverOf(first, { clock: () => Number(BigInt(first[2]?.block_timestamp as string) / 1000n) + 5_000 })
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy?duration_secs=1' })).statusCode).toBe(503)
    c.timestamp += 5_000_000n
    await server.appendBlock(c.block())
    expect((await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy?duration_secs=1' })).statusCode).toBe(200)
  })

  it('an empty or failing ledger is 503; a bad duration_secs is 400', async () => {
    const store = faultyStore(storeOf(blocks))
    const server = await createServer({ store })
    store.empty = true
    expectError(await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy' }), 503, 'internal_error')
    store.empty = false
    store.fail.ledgerInfo = true
    expectError(await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy' }), 503, 'internal_error')
    store.fail.ledgerInfo = false
    for (const bad of ['-1', 'x', '4294967296', '1.5']) expectError(await server.fastify.inject({ method: 'GET', url: `/v1/-/healthy?duration_secs=${bad}` }), 400, 'web_framework_error')
  })
})
