import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ERROR_MAP } from '../../src/api/plumbing/error-map.js'
import { createServer, ENDPOINTS, type EndpointName } from '../../src/api/index.js'
import { InvalidConfigError } from '../../src/core/errors.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { faultyStore, get, headerNames, serverOf, storeOf } from '../helpers/api-server.js'

const blocks = new ChainBuilder().blocks(5, () => [{ sender: 1 }])
/** A valid request of each endpoint. */
const URL_OF: Record<EndpointName, string> = {
  get_ledger_info: '/v1',
  get_account_transactions: `/v1/accounts/${addr(1)}/transactions`,
  get_transaction_by_version: '/v1/transactions/by_version/1',
  estimate_gas_price: '/v1/estimate_gas_price',
  get_block_by_height: '/v1/blocks/by_height/1',
  spec: '/v1/spec.json',
  get_gas_estimate: '/v1/gas/estimate',
  get_gas_inclusion: '/v1/gas/inclusion?price=100&k=1',
  get_gas_price: '/v1/gas/price?k=1&q=0.5',
  get_gas_history: '/v1/gas/history',
  get_gas_explain: '/v1/gas/explain',
  healthy: '/v1/-/healthy',
}
/** Every route that needs the ledger (all but the OpenAPI document). */
const LEDGER_URLS = ENDPOINTS.filter((name) => name !== 'spec').map((name) => URL_OF[name])
/** The routes that read the estimators, and so catch up with the store first. */
const ESTIMATE_URLS = ['/v1/estimate_gas_price', ...ENDPOINTS.filter((name) => name.startsWith('get_gas_')).map((name) => URL_OF[name])]

describe('errors', () => {
  it('unknown routes and methods are 404 web_framework_error JSON, with ledger headers', async () => {
    const server = await serverOf(blocks)
    for (const [method, url] of [['GET', '/v1/nope'], ['GET', '/index.html'], ['GET', '/v2/estimate_gas_price'], ['POST', '/v1/estimate_gas_price'], ['DELETE', '/v1/transactions/by_version/1'], ['GET', '/v1/accounts/0x1']] as const) {
      const res = await server.fastify.inject({ method, url })
      expect(expectError(res, 404, 'web_framework_error').message).toContain('not found')
      for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    }
  })

  it('a malformed URL or an over-long path parameter is 400 web_framework_error JSON, without the URL echoed', async () => {
    const server = await serverOf(blocks)
    const bad = expectError(await get(server, '/v1/transactions/by_version/%E0%A4%A'), 400, 'web_framework_error')
    expect(bad.message).toBe('failed to parse path: invalid percent-encoding')
    expect(expectError(await get(server, `/v1/accounts/0x${'1'.repeat(300)}/transactions`), 400, 'web_framework_error').message).toContain('invalid account address')
    const long = expectError(await get(server, `/v1/transactions/by_version/${'9'.repeat(1500)}`), 400, 'web_framework_error')
    expect(long.message.length).toBeLessThan(100)
  })

  it('a URL over maxUrlLength is 414 web_framework_error JSON with ledger headers, whatever it names', async () => {
    const server = await serverOf(blocks, { maxUrlLength: 100 })
    for (const url of [`/v1/transactions/by_version/${'9'.repeat(200)}`, `/v1/estimate_gas_price?x=${'a'.repeat(100)}`, `/v1/nope/${'%zz'.repeat(50)}`]) {
      const res = await get(server, url)
      expect(expectError(res, 414, 'web_framework_error').message).toMatch(/^URI is \d+ characters long, more than the limit of 100$/)
      for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    }
    const fits = `/v1/transactions/by_version/1?${'x'.repeat(100 - '/v1/transactions/by_version/1?'.length)}`
    expect(fits.length).toBe(100)
    expect((await get(server, fits)).statusCode).toBe(200)
  })

  it('a failing store read is 500 internal_error without internals, keeping the ledger headers', async () => {
    const cases = [
      ['transactionByVersion', '/v1/transactions/by_version/2'],
      ['accountTransactions', `/v1/accounts/${addr(1)}/transactions?start=0`],
      ['accountSequenceNumber', `/v1/accounts/${addr(1)}/transactions`],
      ['blockByHeight', '/v1/blocks/by_height/2?with_transactions=true'],
    ] as const
    for (const [method, url] of cases) {
      const store = faultyStore(storeOf(blocks))
      const server = await createServer({ store })
      store.fail[method] = true
      const res = await get(server, url)
      const body = expectError(res, 500, 'internal_error')
      expect(body.message).not.toMatch(/SECRET|sqlite|Error|at /)
      expect(res.body).not.toContain('SECRET')
      for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    }
  })

  it('a store failure while the estimate catches up is 500 internal_error', async () => {
    const chain = new ChainBuilder()
    const store = faultyStore(storeOf(chain.blocks(3)))
    const server = await createServer({ store })
    store.appendBlock(chain.block())
    store.fail.blockByHeight = true
    for (const url of ESTIMATE_URLS) expectError(await get(server, url), 500, 'internal_error')
    store.fail.blockByHeight = false
    for (const url of ESTIMATE_URLS) expect((await get(server, url)).statusCode, url).toBe(200)
  })

  it('ledger info unavailable (empty store, or the store throws) is 503 internal_error without ledger headers', async () => {
    const store = faultyStore(storeOf(blocks))
    const server = await createServer({ store })
    for (const setup of [() => (store.empty = true), () => ((store.empty = false), (store.fail.ledgerInfo = true))]) {
      setup()
      for (const url of LEDGER_URLS) {
        const res = await get(server, url)
        const body = expectError(res, 503, 'internal_error')
        expect(body.message).not.toContain('SECRET')
        for (const h of headerNames()) expect(res.headers[h]).toBeUndefined()
      }
    }
  })

  it('a store that fails at startup does not stop the server; it serves once the store recovers', async () => {
    const store = faultyStore(storeOf(blocks))
    store.fail.ledgerInfo = true
    const server = await createServer({ store })
    expectError(await get(server, '/v1/estimate_gas_price'), 503, 'internal_error')
    store.fail.ledgerInfo = false
    const res = await get(server, '/v1/estimate_gas_price')
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-node-block-height']).toBe('4')
  })

  it('a server over an empty store starts, answers 503, then serves once blocks arrive', async () => {
    const store = new MemoryStore()
    const server = await createServer({ store })
    expectError(await get(server, '/v1/estimate_gas_price'), 503, 'internal_error')
    expect((await get(server, '/v1/spec.json')).statusCode).toBe(200)
    await server.appendBlock(new ChainBuilder().block())
    expect((await get(server, '/v1/estimate_gas_price')).statusCode).toBe(200)
  })

  it('a disabled endpoint is 403 api_disabled (before its parameters are read); the others still serve', async () => {
    const server = await serverOf(blocks, { disabled: ['estimate_gas_price', 'get_account_transactions'] })
    const res = await get(server, '/v1/estimate_gas_price')
    expect(expectError(res, 403, 'api_disabled').message).toBe('Estimate gas price is disabled on this node')
    for (const h of headerNames()) expect(res.headers[h]).toBeDefined()
    expectError(await get(server, '/v1/accounts/not-an-address/transactions?limit=0'), 403, 'api_disabled')
    expect((await get(server, '/v1/transactions/by_version/1')).statusCode).toBe(200)
    for (const name of ENDPOINTS) {
      const one = await serverOf(blocks, { disabled: [name] })
      expectError(await get(one, URL_OF[name]), 403, 'api_disabled')
      expect((await get(one, name === 'spec' ? '/v1' : '/v1/spec.json')).statusCode).toBe(200)
    }
  })

  it('rejects bad options with InvalidConfigError naming the option', async () => {
    const store = storeOf(blocks)
    const bad: [object, string][] = [
      [{ headerPrefix: 'X NODE ' }, 'headerPrefix'],
      [{ maxPageSize: 0 }, 'maxPageSize'],
      [{ maxPageSize: 70000 }, 'maxPageSize'],
      [{ defaultPageSize: 101 }, 'defaultPageSize'],
      [{ disabled: ['estimate'] }, 'disabled'],
      [{ estimator: { low_block_history: 0 } }, 'low_block_history'],
      [{ estimatorMode: 'geth' }, 'estimatorMode'],
      [{ calibrated: { regular: { q: 1 } } }, 'regular.q'],
      [{ calibrated: { window: 0 } }, 'window'],
      [{ storeTimeoutMs: 0 }, 'storeTimeoutMs'],
      [{ requestTimeoutMs: 1.5 }, 'requestTimeoutMs'],
      [{ maxUrlLength: 1e6 }, 'maxUrlLength'],
    ]
    for (const [options, key] of bad) {
      const err = await createServer({ store, ...options }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(InvalidConfigError)
      expect((err as InvalidConfigError).key).toBe(key)
    }
  })
})

describe('ledger headers', () => {
  it('carry the seven values of the ledger info on every 200, and no cursor or gas-used (X14)', async () => {
    const store = storeOf(new ChainBuilder({ height: 7, version: 300 }).blocks(3, () => [{ sender: 1 }]), 33)
    const server = await createServer({ store })
    store.pruneBelow(303)
    const gas = ENDPOINTS.filter((name) => name.startsWith('get_gas_')).map((name) => URL_OF[name])
    for (const url of ['/v1', `/v1/accounts/${addr(1)}/transactions`, '/v1/transactions/by_version/305', '/v1/estimate_gas_price', '/v1/blocks/by_height/8', '/v1/spec.json', ...gas]) {
      const res = await get(server, url)
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-node-chain-id']).toBe('33')
      expect(res.headers['x-node-ledger-version']).toBe('308')
      expect(res.headers['x-node-ledger-oldest-version']).toBe('303')
      expect(res.headers['x-node-ledger-timestampusec']).toBe(String(1_700_000_000_000_000 + 9 * 250_000))
      expect(res.headers['x-node-epoch']).toBe('1')
      expect(res.headers['x-node-block-height']).toBe('9')
      expect(res.headers['x-node-oldest-block-height']).toBe('8')
      expect(res.headers['x-node-cursor']).toBeUndefined()
      expect(res.headers['x-node-gas-used']).toBeUndefined()
    }
  })

  it('use the configured prefix, e.g. X-APTOS- for drop-in use', async () => {
    const server = await serverOf(blocks, { headerPrefix: 'X-APTOS-' })
    for (const url of ['/v1/estimate_gas_price', '/v1/transactions/by_version/999']) {
      const res = await get(server, url)
      for (const h of headerNames('X-APTOS-')) expect(res.headers[h]).toMatch(/^[0-9]+$/)
      for (const h of headerNames()) expect(res.headers[h]).toBeUndefined()
    }
  })

  it('move with the ledger as blocks are appended', async () => {
    const chain = new ChainBuilder()
    const server = await serverOf(chain.blocks(2))
    expect((await get(server, '/v1')).headers['x-node-block-height']).toBe('1')
    await server.appendBlock(chain.block({ users: [{ sender: 4 }] }))
    const res = await get(server, '/v1/transactions/by_version/5')
    expect(res.headers['x-node-block-height']).toBe('2')
    expect(res.headers['x-node-ledger-version']).toBe('6')
  })
})

describe('the README error table', () => {
  it('lists exactly the (status, error_code) pairs of ERROR_MAP', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8')
    const section = readme.slice(readme.indexOf('### HTTP errors'), readme.indexOf('## Operating the server'))
    const documented = new Set([...section.matchAll(/\| (\d{3}) \| `([a-z_]+)` \|$/gm)].map((m) => `${m[1]} ${m[2]}`))
    const mapped = new Set(Object.values(ERROR_MAP).map((r) => `${r.status} ${r.error_code}`))
    expect([...documented].sort()).toEqual([...mapped].sort())
  })
})
