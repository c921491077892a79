import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { gasPageHtml, type GasPageOptions } from '../live-page/gas-page.js'

/** What the page may load: nothing from elsewhere, its own inline style and script, and this server's API. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"

/** `GET /`: the live gas page (see gas-page.ts), one self-contained document, told how this server is set up. */
export function gasPageRoute(options: GasPageOptions): RouteOptions {
  const body = Buffer.from(gasPageHtml(options), 'utf8')
  return {
    method: 'GET',
    url: '/',
    config: { operationId: 'gas_page', produces: 'other' },
    handler(_request: FastifyRequest, reply: FastifyReply) {
      reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP).header('cache-control', 'no-cache')
      return body
    },
  }
}
