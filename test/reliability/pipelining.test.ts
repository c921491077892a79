import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { storeOf } from '../helpers/api-server.js'

/** Sender 1 has 150 transactions, so each page of 100 is a large answer (~100 KB). */
const blocks = new ChainBuilder().blocks(30, () => Array.from({ length: 5 }, () => ({ sender: 1 })))
const page = (start: number) => `/v1/accounts/${addr(1)}/transactions?start=${start}&limit=100`

const open: ReadApiServer[] = []
afterEach(async () => {
  for (const s of open.splice(0)) {
    s.fastify.server.closeAllConnections()
    await s.close()
  }
})

async function listening(options: object) {
  const server = await createServer({ store: storeOf(blocks), ...options })
  open.push(server)
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  return { server, port: Number(new URL(url).port), url }
}

/** Yields to the event loop `n` times (timers and I/O included), so pending work gets its chance to run. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0))
}

/** Reads pipelined HTTP/1.1 answers off `socket` (content-length framed) until `count` have arrived. */
function answers(socket: Socket, count: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const out: { status: number; body: string }[] = []
    let buffer = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n')
        if (end === -1) break
        const head = buffer.subarray(0, end).toString('latin1')
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1])
        if (buffer.length < end + 4 + length) break
        out.push({ status: Number(head.slice(9, 12)), body: buffer.subarray(end + 4, end + 4 + length).toString('utf8') })
        buffer = buffer.subarray(end + 4 + length)
      }
      if (out.length >= count) resolve(out)
    })
    socket.on('error', reject)
    socket.on('close', () => (out.length >= count ? resolve(out) : reject(new Error(`closed after ${out.length} of ${count} answers`))))
  })
}

describe('pipelining and slow readers', () => {
  it('400 pipelined requests in one write, never read: the server stops reading, runs at most maxInFlight of them, stops working once the socket is full, answers others meanwhile, and all 400 in order once the client reads', async () => {
    const { server, port, url } = await listening({ maxInFlightPerConnection: 2 })
    const gate = server.connections
    let started = 0
    let mostAtOnce = 0
    gate.on('start', (_socket, inFlight) => {
      started++
      mostAtOnce = Math.max(mostAtOnce, inFlight)
    })
    // Read at the moment the gate pauses: whether the socket is then really not being read.
    const paused = new Promise<{ socket: Socket; waiting: number; reading: boolean }>((resolve) =>
      gate.once('pause', (socket, waiting) => resolve({ socket, waiting, reading: !socket.isPaused() })),
    )

    const attacker = connect(port, '127.0.0.1')
    attacker.pause()
    await once(attacker, 'connect')
    const requests = Array.from({ length: 400 }, (_, i) => `GET ${page(i % 50)} HTTP/1.1\r\nhost: x\r\n\r\n`)
    attacker.write(requests.join(''))

    // The server stopped reading the connection: requests are waiting, not running.
    const { socket: serverSide, waiting: waitingAtPause, reading } = await paused
    expect(waitingAtPause).toBeGreaterThan(0)
    expect(reading).toBe(false)

    // It works until the socket's buffers are full, then holds: nothing more starts (waited for
    // as 50 event-loop turns in a row without a start while the socket needs draining; a
    // server that kept working would never get there, so a bound on the turns says so).
    for (let quiet = 0, turn = 0; quiet < 50; turn++) {
      if (turn > 100_000) throw new Error(`the server never held: ${started} of 400 requests started, socket needs draining: ${serverSide.writableNeedDrain}`)
      const before = started
      await turns(1)
      quiet = started === before && serverSide.writableNeedDrain ? quiet + 1 : 0
    }
    expect(started).toBeLessThan(400)
    expect(gate.waiting).toBe(400 - started)
    expect(gate.paused).toBe(1)
    expect(serverSide.isPaused()).toBe(true)

    // Another client is answered while the attacker holds its socket.
    expect((await fetch(`${url}/v1/estimate_gas_price`)).status).toBe(200)

    // Never more than maxInFlight of the connection's requests at once.
    expect(mostAtOnce).toBeLessThanOrEqual(2)
    expect(gate.maxInFlightSeen).toBeLessThanOrEqual(2)

    // Once the client reads, every answer arrives, in request order.
    const all = answers(attacker, 400)
    attacker.resume()
    const got = await all
    expect(got.map((a) => a.status)).toEqual(Array(400).fill(200))
    got.forEach((a, i) => expect((JSON.parse(a.body) as { sequence_number: string }[])[0]?.sequence_number).toBe(String(i % 50)))
    expect(mostAtOnce).toBeLessThanOrEqual(2)
    expect(gate.waiting).toBe(0)
    expect(gate.paused).toBe(0)
    attacker.destroy()
  })

  it('more than maxWaitingPerConnection waiting requests close the connection, counted in the metrics; other connections are untouched', async () => {
    const { server, port, url } = await listening({ maxInFlightPerConnection: 1, maxWaitingPerConnection: 10 })
    const overflow = once(server.connections, 'overflow')
    const attacker = connect(port, '127.0.0.1')
    attacker.pause()
    attacker.on('error', () => {})
    await once(attacker, 'connect')
    attacker.write(`GET ${page(0)} HTTP/1.1\r\nhost: x\r\n\r\n`.repeat(50))
    await overflow
    const closed = once(attacker, 'close')
    attacker.resume()
    await closed
    expect((await fetch(`${url}/v1/estimate_gas_price`)).status).toBe(200)
    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toContain('ledger_gas_http_connections_closed_total{reason="pipelining"} 1')
    expect(server.connections.waiting).toBe(0)
  })

  it('a few pipelined requests are all answered in order (the gate delays, it does not drop)', async () => {
    const { port } = await listening({})
    const client = connect(port, '127.0.0.1')
    await once(client, 'connect')
    const got = answers(client, 20)
    client.write(Array.from({ length: 20 }, (_, i) => `GET ${i % 2 === 0 ? '/v1/estimate_gas_price' : page(i)} HTTP/1.1\r\nhost: x\r\n\r\n`).join(''))
    const all = await got
    expect(all.map((a) => a.status)).toEqual(Array(20).fill(200))
    all.forEach((a, i) => {
      if (i % 2 === 0) expect(a.body).toMatch(/^\{"deprioritized_gas_estimate"/)
      else expect((JSON.parse(a.body) as { sequence_number: string }[])[0]?.sequence_number).toBe(String(i))
    })
    client.destroy()
  })
})
