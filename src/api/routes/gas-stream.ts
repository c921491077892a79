import type { FastifyReply, FastifyRequest } from 'fastify'
import { STREAM_HISTORY, type GasStream } from '../gas-stream.js'
import type { ApiRoute } from '../openapi.js'
import { ref } from '../schema/ref.js'
import { responses } from './responses.js'

/**
 * `GET /v1/gas/stream`: the gas estimates as Server-Sent Events (see `GasStream`). The reply is
 * hijacked after the hooks ran, so it carries the request id and CORS headers like any answer;
 * Fastify's onResponse still sees it end, so it is counted in `aptos_api_requests` then (its
 * latency is the stream's whole life). Registered outside `/v1`'s plugin (it is not one of the
 * endpoints `disabled` names; `serve --stream off` removes it), documented in the OpenAPI
 * document like the others.
 */
export function gasStreamRoute(stream: GasStream): ApiRoute {
  return {
    method: 'GET',
    url: '/v1/gas/stream',
    config: { operationId: 'get_gas_stream', produces: 'other' },
    schema: {
      operationId: 'get_gas_stream',
      summary: 'Stream gas estimates',
      description: [
        'Server-Sent Events: one `estimate` event per block, in height order, with `id` the block height and as `data` both estimators’ estimates as of that block (a `GasStreamEvent`).',
        'A new client first gets the newest event. A client resuming with `Last-Event-ID` gets every held event after that id (the newest ' +
          `${STREAM_HISTORY} are held); an id older than the oldest held gets a comment naming the heights no longer held, then the held events from the oldest.`,
        'A `: keep-alive` comment goes out periodically; a client that leaves too many bytes unread is dropped and may reconnect with its `Last-Event-ID`.',
        'Not served when the server runs with `--stream off` (404 `route_not_found`).',
      ].join(' '),
      tags: ['Gas'],
      contentType: 'text/event-stream',
      ledgerHeaders: false,
      headerParams: {
        'Last-Event-ID': { type: 'string', pattern: '^[0-9]{1,20}$', description: 'The id (block height) of the last event received: resume after it' },
      },
      response: responses(
        {
          type: 'string',
          description: 'An event stream: `retry: 2000`, then events `id: <block height>`, `event: estimate`, `data: <GasStreamEvent as JSON>`, and `: keep-alive` comments',
          'x-event-data': ref('GasStreamEvent'),
        },
        [500],
      ),
    },
    handler(request: FastifyRequest, reply: FastifyReply) {
      const headers = reply.getHeaders() as Record<string, string | number | string[]>
      reply.hijack()
      const last = request.headers['last-event-id']
      stream.attach(reply.raw, headers, typeof last === 'string' ? last : undefined)
    },
  }
}
