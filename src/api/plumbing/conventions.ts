import type { FastifyPluginCallback } from 'fastify'
import fp from 'fastify-plugin'
import { acceptTypeOf } from './accept.js'
import type { Cors } from './cors.js'
import { ApiError } from './errors.js'
import { NOT_FOUND_OPERATION, type ServerMetrics } from './metrics.js'
import type { RouteRecord, RouteSchema } from '../openapi.js'
import { REQUEST_ID_HEADER } from './request-id.js'
import type { RouteConfig } from './route-config.js'

/** Options of the `conventions` plugin. */
export interface ConventionsOptions {
  cors: Cors
  metrics: ServerMetrics
  /** Told of every route that has a schema (for the OpenAPI document). */
  onSchemaRoute: (record: RouteRecord) => void
}

/**
 * The hooks every answer goes through (routes, 404s, disabled endpoints, errors), as one
 * plugin; `fastify-plugin` lifts its hooks out of its own encapsulation context so they apply
 * to the whole server. Register it before any route, so its `onRoute` sees them all:
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
const installConventions: FastifyPluginCallback<ConventionsOptions> = (fastify, options, done) => {
  const { cors, metrics } = options
  const notFound = metrics.route(NOT_FOUND_OPERATION)
  fastify.addHook('onRoute', (route) => {
    const schema = route.schema as RouteSchema | undefined
    const config = route.config ?? {}
    const operationId = schema?.operationId ?? config.operationId ?? route.url
    const produces = config.produces ?? 'json'
    route.config = { ...config, operationId, produces, recorder: metrics.route(operationId) } satisfies Required<RouteConfig>
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
      const config = request.routeOptions.config
      if (config.produces === 'json') return done(new ApiError('bcs_not_supported', `BCS is not supported by ${config.operationId}; ask for application/json`))
    }
    done()
  })
  fastify.addHook('onResponse', (request, reply, done) => {
    const recorder = request.routeOptions.config.recorder ?? notFound
    recorder.record(request.method, reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
  done()
}

/** The shared hooks (see `installConventions` above) as a Fastify plugin, applied to the whole server. */
export const conventions = fp(installConventions, { name: 'ledger-gas-conventions', fastify: '5.x' })
