import { once } from 'node:events'
import { get as httpGet, type IncomingMessage, type ServerResponse } from 'node:http'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { STREAM_HISTORY } from '../../src/api/gas-stream.js'
import { createServer, type ReadApiServer, type ServerOptions } from '../../src/api/index.js'
import { CalibratedEstimator } from '../../src/core/calibrated/calibrated-estimator.js'
import { createEstimator } from '../../src/core/estimator.js'
import { gasEstimateToJson } from '../../src/core/wire.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { settled, until } from '../helpers/wait.js'
import { get, storeOf } from '../helpers/api-server.js'
import { expectSchema } from '../helpers/api-schemas.js'

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

/**
 * Small windows and 3-transaction full blocks, so a few dozen blocks move every estimate; a
 * calibrated window (the feed's span) longer than the catch-ups below, so they step through
 * every block instead of starting over.
 */
const ESTIMATOR = { full_block_txns: 3, low_block_history: 2, market_block_history: 4, aggressive_block_history: 8 } as const
const CALIBRATED = { window: 64 } as const

/** Block i of a chain whose estimates move: full blocks (3 txns) at varied prices, every third one not full. */
function variedBlock(chain: ChainBuilder, i: number): BlockJson {
  const price = (j: number) => 100 + ((i * 37 + j * 53) % 400)
  const users = i % 3 === 2 ? [{ sender: 1, gas_unit_price: price(0) }] : [0, 1, 2].map((j) => ({ sender: 1 + j, gas_unit_price: price(j) }))
  return chain.block({ users })
}

/**
 * The data of the event at each height, computed with the core estimators fed the chain from
 * its first block (independently of the feed: each estimator ingests the parsed block itself).
 */
function expectedEvents(blocks: readonly BlockJson[], serves: string): Map<string, Event['data']> {
  const aptos = createEstimator(ESTIMATOR)
  const calibrated = new CalibratedEstimator(ESTIMATOR, CALIBRATED)
  const out = new Map<string, Event['data']>()
  for (const block of blocks) {
    aptos.ingest(parseBlockJson(block))
    calibrated.ingest(parseBlockJson(block))
    out.set(block.block_height, {
      block_height: block.block_height,
      serves,
      aptos: JSON.parse(gasEstimateToJson(aptos.estimate())) as Record<string, number>,
      calibrated: JSON.parse(gasEstimateToJson(calibrated.estimate())) as Record<string, number>,
    })
  }
  return out
}

/** An SSE client over a real socket: parsed events and comments as they arrive, and a way to wait for them. */
function subscribe(url: string, headers: Record<string, string> = {}) {
  const events: Event[] = []
  const comments: string[] = []
  const waiters: (() => void)[] = []
  let res: IncomingMessage | undefined
  let ended = false
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpGet(`${url}/v1/gas/stream`, { headers }, (r) => {
      res = r
      let buffer = ''
      r.setEncoding('utf8')
      r.once('close', () => {
        ended = true
        for (const w of waiters.splice(0)) w()
      })
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
  /** Waits for `test` to hold, re-checked as each chunk arrives; fails naming it if the stream ends first or nothing comes. */
  const waitFor = async (test: () => boolean, what = String(test)) => {
    while (!test()) {
      if (ended) throw new Error(`the stream ended before ${what} (${events.length} events, ${comments.length} comments)`)
      await settled(new Promise<void>((r) => waiters.push(r)), `${what} (${events.length} events, ${comments.length} comments so far)`)
    }
  }
  return { events, comments, opened, until: waitFor, close: () => res?.destroy() }
}

/** A response whose writes never complete: what the server sees of a client that stopped reading once the kernel's socket buffers are full. */
function stuckClient() {
  return new (class extends Writable {
    override _write(_chunk: unknown, _encoding: string, _done: () => void): void {}
    writeHead(): this {
      return this
    }
  })()
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
    // Megabytes of kernel buffers on loopback are too many events to wait for here.
    const stuck = stuckClient()
    const good = subscribe(url)
    await good.until(() => good.events.length === 1)
    server.stream?.attach(stuck as unknown as ServerResponse, {}, undefined)
    const closed = once(stuck, 'close')
    let appended = 0
    while (!stuck.destroyed && appended < 1000) {
      await server.appendBlock(chain.block())
      appended++
    }
    expect(stuck.destroyed, `still attached after ${appended} blocks`).toBe(true)
    await settled(closed, 'the stuck client closed')
    // About 200 bytes an event: dropped after roughly 2048 / 200 of them, not buffered on.
    expect(appended).toBeLessThan(20)
    expect(stuck.writableLength).toBeLessThan(2048 + 512)
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('ledger_gas_stream_dropped_total 1')
    await good.until(() => good.events.length === appended + 1)
    good.close()
  })

  it('blocks appended in one go (a catch-up) give one event per block: ids consecutive, each the estimates as of its block', async () => {
    for (const serves of ['aptos', 'calibrated'] as const) {
      const chain = new ChainBuilder()
      const blocks = Array.from({ length: 5 }, (_, i) => variedBlock(chain, i))
      const store = storeOf(blocks)
      const server = await createServer({ store, estimator: ESTIMATOR, calibrated: CALIBRATED, estimatorMode: serves, streamPollMs: 60_000 })
      open.push(server)
      const url = await server.listen({ port: 0, host: '127.0.0.1' })
      const client = subscribe(url)
      await client.until(() => client.events.length === 1)
      const N = 40
      for (let i = 5; i < 5 + N; i++) {
        const block = variedBlock(chain, i)
        blocks.push(block)
        store.appendBlock(block)
      }
      await server.sync()
      await client.until(() => client.events.length === N + 1)
      expect(client.events.map((e) => Number(e.id))).toEqual(Array.from({ length: N + 1 }, (_, i) => 4 + i))
      const expected = expectedEvents(blocks, serves)
      for (const e of client.events) expect(e.data, `block ${e.id}`).toEqual(expected.get(e.id))
      // The estimates moved across the batch, so equal data is not equal by accident.
      expect(new Set(client.events.map((e) => JSON.stringify(e.data.aptos))).size).toBeGreaterThan(5)
      expect(new Set(client.events.map((e) => JSON.stringify(e.data.calibrated))).size).toBeGreaterThan(3)
      // The newest is what the endpoint answers now, in either mode.
      const last = client.events[N] as Event
      expect(await (await fetch(`${url}/v1/estimate_gas_price`)).json()).toEqual(last.data[serves])
      for (const e of client.events) expectSchema('GasStreamEvent', e.data)

      // Resuming mid-way: every event after the id, the same bytes, none before.
      const resumed = subscribe(url, { 'last-event-id': '20' })
      await resumed.until(() => resumed.events.length === N + 1 - 17)
      expect(resumed.events).toEqual(client.events.slice(17))
      expect(resumed.comments).toEqual([])
      client.close()
      resumed.close()
    }
  })

  it('each event equals what /v1/estimate_gas_price answered by a server started at that height, in both modes', async () => {
    const chain = new ChainBuilder()
    const blocks = Array.from({ length: 30 }, (_, i) => variedBlock(chain, i))
    const store = storeOf(blocks.slice(0, 3))
    const server = await createServer({ store, estimator: ESTIMATOR, calibrated: CALIBRATED, streamPollMs: 60_000 })
    open.push(server)
    const client = subscribe(await server.listen({ port: 0, host: '127.0.0.1' }))
    await client.until(() => client.events.length === 1)
    for (const block of blocks.slice(3)) store.appendBlock(block)
    await server.sync()
    await client.until(() => client.events.length === 28)
    for (const height of [9, 17, 29]) {
      const event = client.events.find((e) => e.id === String(height)) as Event
      for (const mode of ['aptos', 'calibrated'] as const) {
        const at = await createServer({ store: storeOf(blocks.slice(0, height + 1)), estimator: ESTIMATOR, calibrated: CALIBRATED, estimatorMode: mode })
        expect((await get(at, '/v1/estimate_gas_price')).json(), `${mode} at ${height}`).toEqual(event.data[mode])
        await at.close()
      }
    }
    client.close()
  })

  it(`a catch-up longer than the history builds only its newest ${STREAM_HISTORY} events; an older Last-Event-ID gets a comment naming the gap, then every held event`, async () => {
    const chain = new ChainBuilder()
    const blocks = Array.from({ length: 600 }, (_, i) => variedBlock(chain, i))
    // A calibrated window of 400: startup reads the newest 400 blocks, and the 300-block batch below is no restart.
    const wide = { window: 400 }
    const server = await createServer({ store: storeOf(blocks), estimator: ESTIMATOR, calibrated: wide, streamPollMs: 60_000 })
    open.push(server)
    const url = await server.listen({ port: 0, host: '127.0.0.1' })
    const emitted = async () => Number(/ledger_gas_stream_events_total (\d+)/.exec(await server.metrics.text(null))?.[1])
    const oldest = 600 - STREAM_HISTORY
    const client = subscribe(url, { 'last-event-id': '0' })
    await client.until(() => client.events.length === STREAM_HISTORY)
    expect(client.comments).toEqual([`: events 1 to ${oldest - 1} are no longer held; resuming at ${oldest}`])
    expect(client.events.map((e) => Number(e.id))).toEqual(Array.from({ length: STREAM_HISTORY }, (_, i) => oldest + i))
    // The Aptos estimate at each held height is exact (its span was read); the whole chain is not.
    const expected = expectedEvents(blocks, 'aptos')
    for (const e of client.events) expect(e.data.aptos, `block ${e.id}`).toEqual(expected.get(e.id)?.aptos)
    expect(await emitted()).toBe(STREAM_HISTORY)

    // A follower's batch of 300 blocks: the client gets the newest 256, told of the gap.
    const store = storeOf([])
    const follower = await createServer({ store, estimator: ESTIMATOR, calibrated: wide, streamPollMs: 60_000 })
    open.push(follower)
    for (const block of blocks.slice(0, 10)) store.appendBlock(block)
    await follower.sync()
    const live = subscribe(await follower.listen({ port: 0, host: '127.0.0.1' }))
    await live.until(() => live.events.length === 1)
    for (const block of blocks.slice(10, 310)) store.appendBlock(block)
    await follower.sync()
    await live.until(() => live.events.length === 1 + STREAM_HISTORY)
    expect(live.events.map((e) => Number(e.id))).toEqual([9, ...Array.from({ length: STREAM_HISTORY }, (_, i) => 310 - STREAM_HISTORY + i)])
    expect(live.comments).toEqual([`: events 10 to ${309 - STREAM_HISTORY} are no longer held; resuming at ${310 - STREAM_HISTORY}`])
    for (const e of live.events) expect(e.data.aptos, `block ${e.id}`).toEqual(expected.get(e.id)?.aptos)
    client.close()
    live.close()
  })

  it('the unread budget is checked before each write: a burst larger than the budget reaches a client that had read everything; the next write drops it if it is still unread', async () => {
    const chain = new ChainBuilder()
    const store = storeOf(chain.blocks(3))
    const server = await createServer({ store, streamBufferBytes: 1024, streamPollMs: 60_000 })
    open.push(server)
    const stuck = stuckClient()
    server.stream?.attach(stuck as unknown as ServerResponse, {}, undefined)
    const afterAttach = stuck.writableLength
    expect(afterAttach).toBeLessThan(1024)
    for (let i = 0; i < 20; i++) store.appendBlock(chain.block())
    await server.sync()
    // One write of 20 events (several kilobytes), not a drop.
    expect(stuck.destroyed).toBe(false)
    expect(stuck.writableLength).toBeGreaterThan(4 * 1024)
    await server.appendBlock(chain.block())
    expect(stuck.destroyed).toBe(true)
    expect(await server.metrics.text(null)).toContain('ledger_gas_stream_dropped_total 1')
  })

  it('server.close() ends open streams instead of waiting for them forever', async () => {
    const { server, url } = await streaming()
    const client = subscribe(url)
    const res = await client.opened
    const ended = once(res, 'end')
    await server.close()
    open.splice(open.indexOf(server), 1)
    await settled(ended, 'the stream to end')
    // Counted once it ended, like any request (the server sees its end after the client does).
    const counted = 'aptos_api_requests_count{method="GET",operation_id="get_gas_stream",status="200"} 1'
    await until(async () => (await server.metrics.text(null)).includes(counted), `${counted} in the metrics`)
  })
})

describe('GET /v1/gas/stream turned off (stream: false)', () => {
  it('answers like any unknown route, is left out of the OpenAPI document, and the live page is told to poll', async () => {
    const server = await createServer({ store: storeOf(new ChainBuilder().blocks(3)), stream: false, streamPollMs: 250 })
    open.push(server)
    expect(server.stream).toBeUndefined()
    const res = await get(server, '/v1/gas/stream')
    expect(res.statusCode).toBe(404)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    // Exactly what any unknown route gets, but for the path in the message.
    const unknown = await get(server, '/v1/gas/nothing')
    expect(unknown.statusCode).toBe(404)
    expect(res.json()).toEqual({ ...(unknown.json() as object), message: 'Route GET:/v1/gas/stream not found' })
    const doc = (await get(server, '/v1/spec.json')).json() as { paths: Record<string, unknown> }
    expect(doc.paths['/gas/stream']).toBeUndefined()
    expect(doc.paths['/gas/estimate']).toBeDefined()
    const page = await get(server, '/')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<body data-stream="off" data-serves="aptos" data-poll-ms="250" data-header-prefix="X-NODE-" data-stale-after-secs="30">')
    expect(await server.metrics.text(null)).toContain('ledger_gas_stream_clients 0')
  })

  it('is on by default: in the OpenAPI document as text/event-stream with its Last-Event-ID header, the page told to listen', async () => {
    const server = await createServer({ store: storeOf(new ChainBuilder().blocks(3)) })
    open.push(server)
    const doc = (await get(server, '/v1/spec.json')).json() as {
      paths: Record<string, { get: { operationId: string; parameters: { name: string; in: string }[]; responses: Record<string, { headers?: object; content: Record<string, { schema: Record<string, unknown> }> }> } }>
    }
    const op = doc.paths['/gas/stream']?.get
    expect(op?.operationId).toBe('get_gas_stream')
    expect(op?.parameters.map((p) => [p.name, p.in])).toEqual([['Last-Event-ID', 'header']])
    expect(Object.keys(op?.responses ?? {})).toEqual(['200', '500'])
    expect(Object.keys(op?.responses['200']?.content ?? {})).toEqual(['text/event-stream'])
    expect(op?.responses['200']?.content['text/event-stream']?.schema['x-event-data']).toEqual({ $ref: '#/components/schemas/GasStreamEvent' })
    expect(op?.responses['200']?.headers).toBeUndefined()
    expect((await get(server, '/')).body).toContain('<body data-stream="on" data-serves="aptos"')
  })
})
