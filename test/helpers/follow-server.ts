import { expect } from 'vitest'
import { createServer, type ReadApiServer, type ServerOptions } from '../../src/api/index.js'
import { gasEstimateToJson, type EstimatorConfigInput } from '../../src/core/index.js'
import type { Follower } from '../../src/follow/follow-node.js'
import type { FollowMode } from '../../src/follow/follow-options.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'

/** This project's server over `blocks`, listening on 127.0.0.1 (any free port). */
export async function startServer(blocks: readonly BlockJson[], headerPrefix = 'X-NODE-', estimator: EstimatorConfigInput = {}, options: Partial<ServerOptions> = {}) {
  const store = new MemoryStore()
  for (const b of blocks) store.appendBlock(b)
  const server: ReadApiServer = await createServer({ store, headerPrefix, estimator, ...options })
  const origin = await server.listen({ port: 0, host: '127.0.0.1' })
  return { server, store, origin, url: `${origin}/v1`, headerPrefix, close: () => server.close() }
}

export type TestServer = Awaited<ReturnType<typeof startServer>>

/**
 * The server's own `GET /v1/estimate_gas_price` (asked directly, not through any proxy) and the
 * follower's estimate, compared at the same block height: the server's ledger header says which.
 */
export async function expectServerEstimate(s: TestServer, follower: Follower<FollowMode>): Promise<void> {
  const res = await fetch(`${s.url}/estimate_gas_price`)
  const body = await res.text()
  expect(res.status).toBe(200)
  expect(Number(res.headers.get(`${s.headerPrefix}BLOCK-HEIGHT`))).toBe(follower.asOf?.block_height)
  expect(gasEstimateToJson(follower.estimate())).toBe(body)
}
