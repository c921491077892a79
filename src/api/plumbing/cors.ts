import type { FastifyReply, FastifyRequest } from 'fastify'
import { REQUEST_ID_HEADER } from './request-id.js'

/** Methods a browser may use here: the API is read-only. */
export const CORS_METHODS = 'GET, HEAD, OPTIONS'

/** How long (s) a browser may cache a preflight answer; the default of poem's `Cors`, which the Aptos node uses. */
export const CORS_MAX_AGE = 86_400

/**
 * CORS as the Aptos node allows it (poem `Cors` with `allow_credentials(true)` and no origin
 * list): any origin, echoed back (a credentialed request may not be answered with `*`), with
 * `vary: origin` so caches keep answers per origin. The ledger headers and `x-request-id` are
 * exposed, so a dapp can read the ledger version it was answered at.
 */
export class Cors {
  /** `access-control-expose-headers` value, built once. */
  private readonly expose: string

  constructor(ledgerHeaderNames: readonly string[]) {
    this.expose = [...ledgerHeaderNames, REQUEST_ID_HEADER].join(', ')
  }

  /** Adds the CORS headers of a request that named its `Origin` (browsers always do cross-origin). O(1). */
  apply(request: FastifyRequest, reply: FastifyReply): void {
    const origin = request.headers.origin
    if (origin === undefined) return
    reply.header('access-control-allow-origin', origin)
    reply.header('access-control-allow-credentials', 'true')
    reply.header('access-control-expose-headers', this.expose)
    reply.header('vary', 'origin')
  }

  /**
   * Answers a preflight (`OPTIONS` with `Access-Control-Request-Method`): 204 with the methods
   * and the headers asked for; a plain `OPTIONS` gets 204 with `allow`. The origin headers are
   * added by `apply` in the `onRequest` hook.
   */
  preflight(request: FastifyRequest, reply: FastifyReply): void {
    reply.header('allow', CORS_METHODS)
    if (request.headers['access-control-request-method'] !== undefined && request.headers.origin !== undefined) {
      reply.header('access-control-allow-methods', CORS_METHODS)
      const asked = request.headers['access-control-request-headers']
      if (typeof asked === 'string' && asked.length > 0) reply.header('access-control-allow-headers', asked)
      reply.header('access-control-max-age', String(CORS_MAX_AGE))
    }
    reply.code(204).send()
  }
}
