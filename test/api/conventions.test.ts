import { describe, expect, it } from 'vitest'
import { ENDPOINTS } from '../../src/api/index.js'
import { CORS_MAX_AGE } from '../../src/api/plumbing/cors.js'
import { isSaneRequestId, MAX_REQUEST_ID_LENGTH } from '../../src/api/plumbing/request-id.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { headerNames, serverOf } from '../helpers/api-server.js'

const blocks = new ChainBuilder().blocks(5, () => [{ sender: 1 }])

/** One request of every kind the server answers: each endpoint, the non-/v1 routes, a 404, an error, a preflight. */
const REQUESTS: [string, string][] = [
  ['GET', '/v1'],
  ['GET', `/v1/accounts/${addr(1)}/transactions`],
  ['GET', '/v1/transactions/by_version/1'],
  ['GET', '/v1/estimate_gas_price'],
  ['HEAD', '/v1/estimate_gas_price'],
  ['GET', '/v1/blocks/by_height/1'],
  ['GET', '/v1/spec.json'],
  ['GET', '/v1/gas/estimate'],
  ['GET', '/v1/gas/history'],
  ['GET', '/v1/-/healthy'],
  ['GET', '/metrics'],
  ['GET', '/v1/nope'],
  ['GET', '/v1/transactions/by_version/x'],
  ['OPTIONS', '/v1/estimate_gas_price'],
]

describe('request ids', () => {
  it('every answer carries x-request-id: a sane incoming one echoed, else a generated one', async () => {
    const server = await serverOf(blocks)
    const generated = new Set<string>()
    for (const [method, url] of REQUESTS) {
      const echoed = await server.fastify.inject({ method: method as 'GET', url, headers: { 'x-request-id': 'trace-42/a.b' } })
      expect(echoed.headers['x-request-id'], `${method} ${url}`).toBe('trace-42/a.b')
      const fresh = await server.fastify.inject({ method: method as 'GET', url })
      const id = fresh.headers['x-request-id'] as string
      expect(isSaneRequestId(id), `${method} ${url}`).toBe(true)
      generated.add(id)
    }
    expect(generated.size).toBe(REQUESTS.length)
  })

  it(`an incoming id that is empty, longer than ${MAX_REQUEST_ID_LENGTH}, or has spaces or control bytes is replaced`, async () => {
    const server = await serverOf(blocks)
    for (const bad of ['', 'x'.repeat(MAX_REQUEST_ID_LENGTH + 1), 'a b', 'a\tb', 'é']) {
      const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price', headers: { 'x-request-id': bad } })
      expect(res.headers['x-request-id']).not.toBe(bad)
      expect(isSaneRequestId(res.headers['x-request-id'])).toBe(true)
    }
    const longest = 'y'.repeat(MAX_REQUEST_ID_LENGTH)
    expect((await server.fastify.inject({ method: 'GET', url: '/v1', headers: { 'x-request-id': longest } })).headers['x-request-id']).toBe(longest)
  })

  it('the id is the reqId of the request log lines', async () => {
    const lines: string[] = []
    const server = await serverOf(blocks, { logger: { level: 'info', stream: { write: (l: string) => void lines.push(l) } } })
    await server.fastify.inject({ method: 'GET', url: '/v1', headers: { 'x-request-id': 'find-me-7' } })
    const logged = lines.map((l) => JSON.parse(l) as { reqId?: string; msg: string }).filter((l) => l.reqId === 'find-me-7')
    expect(logged.map((l) => l.msg)).toEqual(['incoming request', 'request completed'])
  })
})

describe('CORS (as the Aptos node allows it)', () => {
  it('every answer to a request with an Origin echoes it, with credentials, vary and the ledger headers exposed', async () => {
    const server = await serverOf(blocks)
    for (const [method, url] of REQUESTS) {
      const res = await server.fastify.inject({ method: method as 'GET', url, headers: { origin: 'https://dapp.example' } })
      expect(res.headers['access-control-allow-origin'], `${method} ${url}`).toBe('https://dapp.example')
      expect(res.headers['access-control-allow-credentials']).toBe('true')
      expect(res.headers.vary).toMatch(/origin/i)
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(', ')
      expect(exposed).toEqual(expect.arrayContaining([...headerNames(), 'x-request-id']))
    }
    const plain = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    expect(plain.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('a preflight is answered 204 with the methods, the headers asked for and a max-age, on any path', async () => {
    const server = await serverOf(blocks)
    for (const url of ['/v1/estimate_gas_price', '/v1/accounts/0x1/transactions', '/v1/nope']) {
      const res = await server.fastify.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://dapp.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type, x-aptos-client' },
      })
      expect(res.statusCode).toBe(204)
      expect(res.body).toBe('')
      expect(res.headers['access-control-allow-origin']).toBe('https://dapp.example')
      expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS')
      expect(res.headers['access-control-allow-headers']).toBe('content-type, x-aptos-client')
      expect(res.headers['access-control-max-age']).toBe(String(CORS_MAX_AGE))
    }
  })
})

describe('one web layer', () => {
  it('/v1/estimate_gas_price goes through the hooks like every route: counted in the metrics, its errors logged with their reqId', async () => {
    const server = await serverOf(blocks)
    for (let i = 0; i < 3; i++) expect((await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })).statusCode).toBe(200)
    const text = (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    expect(text).toContain('aptos_api_requests_count{method="GET",operation_id="estimate_gas_price",status="200"} 3')
  })

  it('every endpoint can be disabled, and a disabled one is still counted and still carries the conventions', async () => {
    const server = await serverOf(blocks, { disabled: [...ENDPOINTS] })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price', headers: { origin: 'https://x.example' } })
    expectError(res, 403, 'api_disabled')
    expect(res.headers['x-request-id']).toBeDefined()
    expect(res.headers['access-control-allow-origin']).toBe('https://x.example')
  })
})
