import type { FastifyReply, FastifyRequest } from 'fastify'
import { JSON_TYPE, readLedger, type ApiContext } from '../context.js'
import type { ApiRoute } from '../openapi.js'
import { responses } from './responses.js'

/**
 * `GET /v1/spec.json`: the OpenAPI document of the served routes, built once when the server is
 * ready (`document()` is called after every route is registered). Ledger headers are added when
 * the ledger can be read; the document itself does not need a ledger.
 */
export function specRoute(ctx: ApiContext, document: () => string): ApiRoute {
  return {
    method: 'GET',
    url: '/spec.json',
    schema: {
      operationId: 'spec',
      summary: 'OpenAPI document',
      description: 'The OpenAPI 3.0 document of this API.',
      tags: ['General'],
      response: responses({ type: 'object' }, [403, 500]),
    },
    async handler(_request: FastifyRequest, reply: FastifyReply) {
      try {
        await readLedger(ctx, reply)
      } catch {
        // The document does not depend on the ledger.
      }
      reply.header('content-type', JSON_TYPE)
      return document()
    },
  }
}
