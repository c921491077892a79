import { Deserializer, U64 } from '@aptos-labs/ts-sdk'
import { describe, expect, it } from 'vitest'
import { acceptTypeOf } from '../../src/api/plumbing/accept.js'
import { gasEstimationToBcs, stringStructToBcs } from '../../src/api/bcs.js'
import { U64_MAX } from '../../src/core/u64.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { serverOf } from '../helpers/api-server.js'

const BCS = 'application/x-bcs'
const blocks = new ChainBuilder().blocks(12, (i) => [{ sender: 1, gas_unit_price: 100 + i * 40 }, { sender: 2 }, { sender: 3 }])

/** Reads the node's BCS `GasEstimation` back with the Aptos SDK's deserializer: Option<u64>, u64, Option<u64>, nothing after. */
function decode(bytes: Buffer) {
  const d = new Deserializer(bytes)
  const out = { deprioritized_gas_estimate: d.deserializeOption(U64)?.value ?? null, gas_estimate: d.deserializeU64(), prioritized_gas_estimate: d.deserializeOption(U64)?.value ?? null }
  d.assertFinished()
  return out
}

/** A BCS string (ULEB128 length, UTF-8 bytes) read with the Aptos SDK, nothing after. */
function decodeString(bytes: Uint8Array): string {
  const d = new Deserializer(bytes)
  const out = d.deserializeStr()
  d.assertFinished()
  return out
}

describe('Accept: application/x-bcs', () => {
  it('the estimate is the node’s BCS GasEstimation, equal to the JSON, labelled application/x-bcs', async () => {
    const server = await serverOf(blocks, { estimator: { full_block_txns: 3, static_override: null } })
    const json = (await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })).json() as Record<string, number>
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price', headers: { accept: BCS } })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe(BCS)
    expect(res.rawPayload.length).toBe(26)
    const back = decode(res.rawPayload)
    expect(back).toEqual({ deprioritized_gas_estimate: BigInt(json.deprioritized_gas_estimate as number), gas_estimate: BigInt(json.gas_estimate as number), prioritized_gas_estimate: BigInt(json.prioritized_gas_estimate as number) })
    expect(res.headers['x-node-block-height']).toBe('11')
  })

  it('u64 values are exact in BCS up to 2^64−1 (a static override of u64::MAX)', async () => {
    const server = await serverOf(blocks, { estimator: { static_override: { low: U64_MAX, market: U64_MAX, aggressive: U64_MAX } } })
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price', headers: { accept: BCS } })
    expect(decode(res.rawPayload)).toEqual({ deprioritized_gas_estimate: 2n ** 64n - 1n, gas_estimate: 2n ** 64n - 1n, prioritized_gas_estimate: 2n ** 64n - 1n })
    expect([...gasEstimationToBcs({ deprioritized_gas_estimate: 1, gas_estimate: 256, prioritized_gas_estimate: U64_MAX })]).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255, 255, 255, 255, 255, 255])
  })

  it('the health check answers BCS too (HealthCheckSuccess: a ULEB128-prefixed string)', async () => {
    const server = await serverOf(blocks)
    const res = await server.fastify.inject({ method: 'GET', url: '/v1/-/healthy', headers: { accept: BCS } })
    expect(res.headers['content-type']).toBe(BCS)
    expect(res.rawPayload).toEqual(Buffer.concat([Buffer.from([13]), Buffer.from('aptos-node:ok')]))
    expect(decodeString(res.rawPayload)).toBe('aptos-node:ok')
    expect([...stringStructToBcs('x'.repeat(200)).subarray(0, 2)]).toEqual([0xc8, 0x01])
    expect(decodeString(stringStructToBcs('x'.repeat(200)))).toBe('x'.repeat(200))
  })

  it('every JSON-only route answers 400 bcs_not_supported, never JSON labelled as JSON for a BCS request', async () => {
    const server = await serverOf(blocks)
    for (const url of ['/v1', `/v1/accounts/${addr(1)}/transactions`, '/v1/transactions/by_version/1', '/v1/blocks/by_height/1', '/v1/spec.json', '/v1/gas/estimate', '/v1/gas/history', '/v1/gas/explain']) {
      const res = await server.fastify.inject({ method: 'GET', url, headers: { accept: BCS } })
      expect(expectError(res, 400, 'bcs_not_supported').message, url).toMatch(/^BCS is not supported by \w+; ask for application\/json$/)
      // JSON still wins when the client prefers it.
      expect((await server.fastify.inject({ method: 'GET', url, headers: { accept: `application/json, ${BCS};q=0.5` } })).statusCode, url).toBe(200)
    }
  })

  it('negotiation as the node: highest q first, header order among equals, */* and unknown types → JSON, q=0 never chosen', () => {
    expect(acceptTypeOf(undefined)).toBe('json')
    expect(acceptTypeOf('*/*')).toBe('json')
    expect(acceptTypeOf(BCS)).toBe('bcs')
    expect(acceptTypeOf('APPLICATION/X-BCS')).toBe('bcs')
    expect(acceptTypeOf(`${BCS}, application/json`)).toBe('bcs')
    expect(acceptTypeOf(`application/json, ${BCS}`)).toBe('json')
    expect(acceptTypeOf(`application/json;q=0.5, ${BCS}`)).toBe('bcs')
    expect(acceptTypeOf(`text/html, ${BCS};q=0.9, */*;q=0.8`)).toBe('bcs')
    expect(acceptTypeOf(`${BCS};q=0`)).toBe('json')
  })
})
