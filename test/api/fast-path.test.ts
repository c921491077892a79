import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { faultyStore, storeOf } from './helpers/server.js'

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function rawGet(url: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => {
        const { date: _date, ...headers } = res.headers
        resolve({ status: res.statusCode as number, headers, body })
      })
    })
      .on('error', reject)
      .end()
  })
}

const open: ReadApiServer[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

async function pair(options: Parameters<typeof createServer>[0]): Promise<[string, string]> {
  const fast = await createServer({ ...options, fastPath: true })
  const slow = await createServer({ ...options, fastPath: false })
  open.push(fast, slow)
  return [await fast.listen({ port: 0 }), await slow.listen({ port: 0 })]
}

describe('the estimate fast path', () => {
  it('answers the steady state without entering Fastify', async () => {
    const lines: string[] = []
    const stream = { write: (line: string) => void lines.push(line) }
    const server = await createServer({ store: storeOf(new ChainBuilder().blocks(3)), logger: { level: 'info', stream } })
    open.push(server)
    const url = await server.listen({ port: 0 })
    for (let i = 0; i < 5; i++) expect((await rawGet(`${url}/v1/estimate_gas_price`)).status).toBe(200)
    expect(lines.filter((l) => l.includes('incoming request'))).toHaveLength(0)
    expect((await rawGet(`${url}/v1`)).status).toBe(200)
    expect(lines.filter((l) => l.includes('incoming request'))).toHaveLength(1)
  })

  it('sends the same status, headers and body as the Fastify route', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(12, (i) => [{ sender: 1, gas_unit_price: 100 + i * 40 }, { sender: 2 }, { sender: 3 }]))
    const [fast, slow] = await pair({ store, estimator: { full_block_txns: 3, static_override: null }, headerPrefix: 'X-APTOS-' })
    for (const path of ['/v1/estimate_gas_price', '/v1/estimate_gas_price?x=1', '/v1/estimate_gas_price/']) {
      const a = await rawGet(`${fast}${path}`)
      const b = await rawGet(`${slow}${path}`)
      expect(a).toEqual(b)
      expect(a.status).toBe(200)
    }
    // After the store moves on, the first request catches up through Fastify and later ones are fast again.
    store.appendBlock(chain.block({ users: [{ sender: 1, gas_unit_price: 5000 }, { sender: 2, gas_unit_price: 5000 }, { sender: 3, gas_unit_price: 5000 }] }))
    store.appendBlock(chain.block())
    for (let i = 0; i < 3; i++) expect(await rawGet(`${fast}/v1/estimate_gas_price`)).toEqual(await rawGet(`${slow}/v1/estimate_gas_price`))
  })

  it('leaves errors to Fastify: empty, failing and disabled', async () => {
    const store = faultyStore(storeOf(new ChainBuilder().blocks(2)))
    const [fast, slow] = await pair({ store })
    store.empty = true
    expect(await rawGet(`${fast}/v1/estimate_gas_price`)).toEqual(await rawGet(`${slow}/v1/estimate_gas_price`))
    store.empty = false
    store.fail.ledgerInfo = true
    const failed = await rawGet(`${fast}/v1/estimate_gas_price`)
    expect(failed.status).toBe(503)
    expect(failed).toEqual(await rawGet(`${slow}/v1/estimate_gas_price`))
    const off = await createServer({ store: storeOf(new ChainBuilder().blocks(2)), disabled: ['estimate_gas_price'] })
    open.push(off)
    expect((await rawGet(`${await off.listen({ port: 0 })}/v1/estimate_gas_price`)).status).toBe(403)
  })
})
