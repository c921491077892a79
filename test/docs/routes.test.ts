import { describe, expect, it } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { readDoc } from './doc-blocks.js'

// The README's route table is the server's: every route its OpenAPI document describes, plus the
// two it leaves out (the metrics and the page), and no other.

/** The paths of the README's route table (`GET /v1/…`), without their query strings. */
function readmeRoutes(): string[] {
  return [...readDoc('README.md').matchAll(/^\| `GET (\/[^`?]*)[^`]*` \|/gm)].map((m) => m[1] as string)
}

describe("the README's route table", () => {
  it('lists every route of /v1/spec.json, /metrics and /, each once, and the server answers the last two', async () => {
    const store = new MemoryStore()
    for (const block of new ChainBuilder().blocks(3, () => [{ sender: 1 }])) store.appendBlock(block)
    const server = await createServer({ store })
    try {
      const spec = JSON.parse((await server.fastify.inject({ method: 'GET', url: '/v1/spec.json' })).body) as { servers: { url: string }[]; paths: Record<string, unknown> }
      const base = spec.servers[0]?.url ?? ''
      const served = [...Object.keys(spec.paths).map((p) => (p === '/' ? base : `${base}${p}`)), '/metrics', '/']
      const listed = readmeRoutes()
      expect(new Set(listed).size).toBe(listed.length)
      expect([...listed].sort()).toEqual([...served].sort())
      for (const url of ['/metrics', '/']) expect((await server.fastify.inject({ method: 'GET', url })).statusCode).toBe(200)
    } finally {
      await server.close()
    }
  })
})
