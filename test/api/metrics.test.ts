import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GAS_LEVELS, LATENCY_BUCKETS } from '../../src/api/plumbing/metrics.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { serverOf } from '../helpers/api-server.js'

const blocks = new ChainBuilder().blocks(12, (i) => [{ sender: 1, gas_unit_price: 100 + i * 40 }, { sender: 2 }, { sender: 3 }])
const estimator = { full_block_txns: 3, static_override: null }

/** The metric lines (no comments) whose name starts with `prefix`. */
function lines(text: string, prefix: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(prefix))
}

describe('GET /metrics (Prometheus text)', () => {
  it('counts requests by method, operation id and status with latency histograms (the node buckets); labels never hold a raw path', async () => {
    const server = await serverOf(blocks, { estimator })
    const urls = ['/v1/transactions/by_version/1', '/v1/transactions/by_version/2', '/v1/transactions/by_version/999999', `/v1/accounts/${addr(1)}/transactions`, '/v1/nope/secret-path', '/v1/estimate_gas_price']
    for (const url of urls) await server.fastify.inject({ method: 'GET', url })
    const res = await server.fastify.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
    const text = res.body
    expect(text).toContain('# TYPE aptos_api_requests histogram')
    expect(lines(text, 'aptos_api_requests_count')).toEqual(
      expect.arrayContaining([
        'aptos_api_requests_count{method="GET",operation_id="get_transaction_by_version",status="200"} 2',
        'aptos_api_requests_count{method="GET",operation_id="get_transaction_by_version",status="404"} 1',
        'aptos_api_requests_count{method="GET",operation_id="get_account_transactions",status="200"} 1',
        'aptos_api_requests_count{method="GET",operation_id="route_not_found",status="404"} 1',
        'aptos_api_requests_count{method="GET",operation_id="estimate_gas_price",status="200"} 1',
      ]),
    )
    const buckets = lines(text, 'aptos_api_requests_bucket{method="GET",operation_id="get_transaction_by_version",status="200"')
    expect(buckets.map((l) => /le="([^"]+)"/.exec(l)?.[1])).toEqual([...LATENCY_BUCKETS.map(String), '+Inf'])
    expect(buckets.at(-1)).toMatch(/ 2$/)
    expect(lines(text, 'aptos_api_response_status_count')).toEqual(expect.arrayContaining(['aptos_api_response_status_count{status="200"} 4', 'aptos_api_response_status_count{status="404"} 2']))
    expect(text).not.toContain('secret-path')
    expect(text).not.toContain('by_version/')
    expect(text).not.toContain(addr(1))
  })

  it('the gas estimate: served values per level (aptos_api_gas_estimate, as the node), and both estimators current values', async () => {
    const server = await serverOf(blocks, { estimator })
    const served = (await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })).json() as Record<string, number>
    await server.fastify.inject({ method: 'GET', url: '/v1/estimate_gas_price' })
    const text = (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    const values = [served.deprioritized_gas_estimate, served.gas_estimate, served.prioritized_gas_estimate]
    GAS_LEVELS.forEach((level, i) => {
      expect(text).toContain(`aptos_api_gas_estimate_count{level="${level}"} 2`)
      expect(text).toContain(`aptos_api_gas_estimate_sum{level="${level}"} ${2 * (values[i] as number)}`)
      expect(text).toContain(`ledger_gas_estimate{estimator="aptos",level="${level}"} ${values[i]}`)
    })
    const calibrated = (await server.fastify.inject({ method: 'GET', url: '/v1/gas/estimate' })).json() as Record<string, { price: number }>
    expect(text).toContain(`ledger_gas_estimate{estimator="calibrated",level="current"} ${calibrated.regular?.price}`)
  })

  it('ledger height, version and timestamp, and the estimators progress (ledger_gas_estimate_block_height) follow appended blocks', async () => {
    const chain = new ChainBuilder()
    const server = await serverOf(chain.blocks(4))
    const scrape = async () => (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    let text = await scrape()
    expect(text).toContain('ledger_gas_block_height 3')
    expect(text).toContain('ledger_gas_estimate_block_height 3')
    expect(text).toMatch(/\naptos_storage_ledger_version \d+\n/)
    await server.appendBlock(chain.block())
    text = await scrape()
    expect(text).toContain('ledger_gas_block_height 4')
    expect(text).toContain('ledger_gas_estimate_block_height 4')
    expect(text).toContain('ledger_gas_oldest_block_height 0')
    expect(text).toContain('process_resident_memory_bytes')
  })

  it('counts made before the first scrape (prom-client loads on first use) are in it, and later ones add to them', async () => {
    const server = await serverOf(blocks)
    server.metrics.countStreamDrop()
    server.metrics.countStreamEvents(3)
    server.metrics.countConnectionClosed()
    const scrape = async () => (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    let text = await scrape()
    expect(lines(text, 'ledger_gas_stream_dropped_total ')).toEqual(['ledger_gas_stream_dropped_total 1'])
    expect(lines(text, 'ledger_gas_stream_events_total ')).toEqual(['ledger_gas_stream_events_total 3'])
    expect(lines(text, 'ledger_gas_http_connections_closed_total')).toEqual(['ledger_gas_http_connections_closed_total{reason="pipelining"} 1'])
    server.metrics.countStreamEvents(2)
    server.metrics.countConnectionClosed()
    text = await scrape()
    expect(lines(text, 'ledger_gas_stream_events_total ')).toEqual(['ledger_gas_stream_events_total 5'])
    expect(lines(text, 'ledger_gas_http_connections_closed_total')).toEqual(['ledger_gas_http_connections_closed_total{reason="pipelining"} 2'])
  })

  it('a counter never counted shows no labelled series, as before any scrape', async () => {
    const server = await serverOf(blocks)
    const text = (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    expect(text).toContain('# TYPE ledger_gas_http_connections_closed_total counter')
    expect(lines(text, 'ledger_gas_http_connections_closed_total')).toEqual([])
    expect(lines(text, 'ledger_gas_stream_dropped_total ')).toEqual(['ledger_gas_stream_dropped_total 0'])
  })

  it('two servers in one process count separately (a Registry each)', async () => {
    const a = await serverOf(blocks)
    const b = await serverOf(blocks)
    await a.fastify.inject({ method: 'GET', url: '/v1' })
    expect((await a.fastify.inject({ method: 'GET', url: '/metrics' })).body).toContain('operation_id="get_ledger_info",status="200"} 1')
    expect((await b.fastify.inject({ method: 'GET', url: '/metrics' })).body).not.toContain('operation_id="get_ledger_info"')
  })

  it("every metric of docs/operations.md's table is exported, and every exported one outside prom-client's defaults is in the table", async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../docs/operations.md'), 'utf8')
    const section = readme.slice(readme.indexOf('## Metrics (`GET /metrics`)'), readme.indexOf('## Request ids and logs'))
    const documented = new Set([...section.matchAll(/^\| ([^|]+) \|/gm)].flatMap((m) => [...(m[1] as string).matchAll(/`([a-z_]+)`/g)].map((n) => n[1] as string)))
    const server = await serverOf(blocks)
    const text = (await server.fastify.inject({ method: 'GET', url: '/metrics' })).body
    const exported = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1] as string).filter((n) => !/^(process|nodejs)_/.test(n)))
    expect([...documented].sort()).toEqual([...exported].sort())
  })
})
