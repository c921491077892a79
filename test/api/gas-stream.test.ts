import { once } from 'node:events'
import { get, type IncomingMessage, type ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer, type ServerOptions } from '../../src/api/index.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { storeOf } from './helpers/server.js'

interface Event {
  id: string
  event: string
  data: { block_height: string; serves: string; aptos: Record<string, number>; calibrated: Record<string, number> }
}

const open: ReadApiServer[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

async function streaming(options: Partial<ServerOptions> = {}) {
  const chain = new ChainBuilder()
  const server = await createServer({ store: storeOf(chain.blocks(5, () => [{ sender: 1 }])), ...options })
  open.push(server)
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  return { chain, server, url }
}

/** An SSE client over a real socket: parsed events and comments as they arrive, and a way to wait for them. */
function subscribe(url: string, headers: Record<string, string> = {}) {
  const events: Event[] = []
  const comments: string[] = []
  const waiters: (() => void)[] = []
  let res: IncomingMessage | undefined
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    const req = get(`${url}/v1/gas/stream`, { headers }, (r) => {
      res = r
      let buffer = ''
      r.setEncoding('utf8')
      r.on('data', (chunk: string) => {
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]))
          if (block.startsWith(':')) comments.push(block)
          else if (fields.event === 'estimate') events.push({ id: fields.id as string, event: fields.event, data: JSON.parse(fields.data as string) as Event['data'] })
        }
        for (const w of waiters.splice(0)) w()
      })
      resolve(r)
    })
    req.on('error', reject)
  })
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise<void>((r) => waiters.push(r))
  }
  return { events, comments, opened, until, close: () => res?.destroy() }
}

describe('GET /v1/gas/stream (Server-Sent Events)', () => {
  it('sends the current estimate at once, then one estimate event per appended block: id = block height, data = both estimators', async () => {
    const { chain, server, url } = await streaming()
    const client = subscribe(url, { origin: 'https://dapp.example' })
    const res = await client.opened
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(res.headers['x-request-id']).toBeDefined()
    expect(res.headers['access-control-allow-origin']).toBe('https://dapp.example')
    await client.until(() => client.events.length === 1)
    expect(client.events[0]?.id).toBe('4')
    for (let i = 0; i < 3; i++) await server.appendBlock(chain.block({ users: [{ sender: 2, gas_unit_price: 150 + i }] }))
    await client.until(() => client.events.length === 4)
    expect(client.events.map((e) => e.id)).toEqual(['4', '5', '6', '7'])
    const last = client.events[3] as Event
    expect(last.data.block_height).toBe('7')
    expect(last.data.serves).toBe('aptos')
    expect(last.data.aptos).toEqual(await (await fetch(`${url}/v1/estimate_gas_price`)).json())
    const calibrated = (await (await fetch(`${url}/v1/gas/estimate`)).json()) as Record<string, { price: number }>
    expect(last.data.calibrated.gas_estimate).toBe(calibrated.regular?.price)
    client.close()
  })

  it('resumes with Last-Event-ID: the events after it, none before, none twice', async () => {
    const { chain, server, url } = await streaming()
    for (let i = 0; i < 4; i++) await server.appendBlock(chain.block())
    const client = subscribe(url, { 'last-event-id': '6' })
    await client.opened
    await server.appendBlock(chain.block())
    await client.until(() => client.events.some((e) => e.id === '9'))
    expect(client.events.map((e) => e.id)).toEqual(['7', '8', '9'])
    client.close()
  })

  it('blocks appended to the store by someone else reach the stream without a request (the store is polled)', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(3))
    const server = await createServer({ store, streamPollMs: 20 })
    open.push(server)
    const client = subscribe(await server.listen({ port: 0, host: '127.0.0.1' }))
    await client.until(() => client.events.length === 1)
    store.appendBlock(chain.block())
    await client.until(() => client.events.some((e) => e.id === '3'))
    client.close()
  })

  it('sends keep-alive comments', async () => {
    const { url } = await streaming({ streamKeepAliveMs: 20 })
    const client = subscribe(url)
    await client.until(() => client.comments.length >= 2)
    expect(client.comments[0]).toBe(': keep-alive')
    client.close()
  })

  it('a client that stops reading is dropped once its unread bytes pass the budget, counted in the metrics; others keep receiving', async () => {
    const { chain, server, url } = await streaming({ streamBufferBytes: 2048 })
    // A response whose writes never complete: what the server sees of a client that stopped
    // reading once the kernel's socket buffers are full (megabytes on loopback, too many
    // events to wait for here).
    const stuck = new (class extends Writable {
      override _write(_chunk: unknown, _encoding: string, _done: () => void): void {}
      writeHead(): this {
        return this
      }
    })()
    const good = subscribe(url)
    await good.until(() => good.events.length === 1)
    server.stream.attach(stuck as unknown as ServerResponse, {}, undefined)
    const closed = once(stuck, 'close')
    let appended = 0
    while (!stuck.destroyed) {
      await server.appendBlock(chain.block())
      appended++
    }
    await closed
    // About 200 bytes an event: dropped after roughly 2048 / 200 of them, not buffered on.
    expect(appended).toBeLessThan(20)
    expect(stuck.writableLength).toBeLessThan(2048 + 512)
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('ledger_gas_stream_dropped_total 1')
    await good.until(() => good.events.length === appended + 1)
    good.close()
  })

  it('server.close() ends open streams instead of waiting for them forever', async () => {
    const { server, url } = await streaming()
    const client = subscribe(url)
    const res = await client.opened
    const ended = once(res, 'end')
    await server.close()
    open.splice(open.indexOf(server), 1)
    await ended
    // Counted once it ended, like any request (the server sees its end after the client does).
    const counted = 'aptos_api_requests_count{method="GET",operation_id="get_gas_stream",status="200"} 1'
    while (!(await server.metrics.text(null)).includes(counted)) await new Promise((r) => setTimeout(r, 5))
  })
})
