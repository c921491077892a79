import type { FastifyInstance } from 'fastify'
import { acceptTypeOf } from './accept.js'
import type { RouteConfig } from '../context.js'
import type { Cors } from './cors.js'
import { ApiError } from './errors.js'
import { NOT_FOUND_OPERATION, type ServerMetrics } from './metrics.js'
import type { RouteRecord, RouteSchema } from '../openapi.js'
import { REQUEST_ID_HEADER } from './request-id.js'

/**
 * The hooks every answer goes through (routes, 404s, disabled endpoints, errors), in one place:
 *
 * - `onRoute`: each route's config gets its operation id, what it produces and its metrics
 *   recorder (made once here, not looked up per request); routes with a schema are reported
 *   for the OpenAPI document.
 * - `onRequest`: the request id, CORS, the Host and Expect checks Node would have answered
 *   bare, and content negotiation (`Accept: application/x-bcs` on a JSON-only route → 400
 *   `bcs_not_supported`).
 * - `onResponse`: the request's latency into `aptos_api_requests` under its operation id.
 *
 * Each is a callback hook (no promise per request) that allocates nothing of its own.
 */
export function installConventions(fastify: FastifyInstance, options: { cors: Cors; metrics: ServerMetrics; onSchemaRoute: (record: RouteRecord) => void }): void {
  const { cors, metrics } = options
  const notFound = metrics.route(NOT_FOUND_OPERATION)
  fastify.addHook('onRoute', (route) => {
    const schema = route.schema as RouteSchema | undefined
    const config = (route.config ?? {}) as Partial<RouteConfig>
    const operationId = schema?.operationId ?? config.operationId ?? route.url
    const produces = config.produces ?? 'json'
    route.config = { ...config, operationId, produces, recorder: metrics.route(operationId) } satisfies RouteConfig
    if (route.method === 'HEAD' || schema === undefined) return
    options.onSchemaRoute({ method: String(route.method), url: route.url, schema, bcs: produces === 'json+bcs' })
  })
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    const h = request.headers
    if (h.origin !== undefined) cors.apply(request, reply)
    if (h.host === undefined && request.raw.httpVersion === '1.1') {
      reply.header('connection', 'close')
      return done(new ApiError('missing_host', 'an HTTP/1.1 request must have a Host header'))
    }
    if (h.expect !== undefined && !/^100-continue$/i.test(h.expect)) {
      reply.header('connection', 'close')
      return done(new ApiError('expectation_failed', `Expect: ${JSON.stringify(h.expect.slice(0, 64))} is not supported; only 100-continue is`))
    }
    if (h.accept !== undefined && acceptTypeOf(h.accept) === 'bcs') {
      const config = request.routeOptions.config as Partial<RouteConfig>
      if (config.produces === 'json') return done(new ApiError('bcs_not_supported', `BCS is not supported by ${config.operationId}; ask for application/json`))
    }
    done()
  })
  fastify.addHook('onResponse', (request, reply, done) => {
    const recorder = (request.routeOptions.config as Partial<RouteConfig>).recorder ?? notFound
    recorder.record(request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
}
