import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { hostileUrl, type Endpoint } from './hostile/arbitraries.js'
import { HostileFixture, prototypeKeys, REQUESTS, SEED, type Reply } from './hostile/harness.js'
import { RawClient } from './hostile/raw-client.js'

/** A tenth of the inject budget per endpoint, over a real socket: 100 each by default, 1,000 deep. */
const RAW_REQUESTS = Math.max(1, Math.floor(REQUESTS / 10))
const ENDPOINTS: Endpoint[] = ['by_version', 'accounts', 'estimate', 'blocks', 'ledger']

let fx: HostileFixture
const clients: RawClient[] = []
afterAll(async () => {
  for (const c of clients) c.close()
  await fx?.server.close()
})

/**
 * CR, LF, space and tab end the request target and frame a different request (what Node makes of
 * that is its parser's business, not the API's): those four are sent encoded, every other byte raw.
 */
const onOneLine = (target: string) => target.replace(/[\r\n \t]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}`)

describe('hostile input over a raw socket (no URL normalization, Node’s own parser, the connection gate)', () => {
  it(`${RAW_REQUESTS * ENDPOINTS.length} hostile targets sent byte for byte (${RAW_REQUESTS} per endpoint): each answered as on inject, or 400/431 with the error object when Node's parser refuses the bytes; a valid request after each on the same socket is unchanged`, { timeout: 120_000 }, async () => {
    fx = await HostileFixture.create()
    const url = await fx.server.listen({ port: 0, host: '127.0.0.1' })
    const client = new RawClient(Number(new URL(url).port))
    clients.push(client)
    const before = prototypeKeys()
    let i = 0
    for (const endpoint of ENDPOINTS) {
      await fc.assert(
        fc.asyncProperty(hostileUrl(endpoint).map(onOneLine), async (target) => {
          // Node hands the server the request target's bytes one character each (latin1).
          fx.check(target, Buffer.from(target, 'utf8').toString('latin1'), await client.get(target), true)
          const valid = fx.valid[i++ % fx.valid.length] as { url: string; reply: Reply }
          const again = await client.get(valid.url)
          if (again.status !== valid.reply.status || again.body !== valid.reply.body) throw new Error(`after ${JSON.stringify(target.slice(0, 300))}: ${valid.url} answered ${again.status} ${again.body.slice(0, 200)}`)
        }),
        { numRuns: RAW_REQUESTS, seed: SEED, includeErrorInReport: true },
      )
    }
    expect(prototypeKeys()).toBe(before)
  })
})
