import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { RouteConfig } from '../context.js'
import type { GasStream } from '../gas-stream.js'

/**
 * `GET /v1/gas/stream`: the gas estimates as Server-Sent Events (see `GasStream`). The reply is
 * hijacked after the hooks ran, so it carries the request id and CORS headers like any answer;
 * Fastify's onResponse still sees it end, so it is counted in `aptos_api_requests` then (its
 * latency is the stream's whole life).
 */
export function gasStreamRoute(stream: GasStream): RouteOptions {
  const config: RouteConfig = { operationId: 'get_gas_stream', produces: 'other' }
  return {
    method: 'GET',
    url: '/v1/gas/stream',
    config,
    handler(request: FastifyRequest, reply: FastifyReply) {
      const headers = reply.getHeaders() as Record<string, string | number | string[]>
      reply.hijack()
      const last = request.headers['last-event-id']
      stream.attach(reply.raw, headers, typeof last === 'string' ? last : undefined)
    },
  }
}
