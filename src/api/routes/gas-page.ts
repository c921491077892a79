import type { FastifyReply, RouteOptions } from 'fastify'
import { JSON_TYPE } from '../context.js'
import { gasPageHtml, PAGE_SCRIPT_PATH, PAGE_STYLE_PATH, PAGE_TIERS_PATH, type GasPageOptions } from '../live-page/gas-page.js'
import { loadPageScript } from '../live-page/page-script.js'
import { PAGE_CSS } from '../live-page/page-style.js'
import type { TierHistory } from '../live-page/tier-history.js'

/**
 * What the page may load: its own script and style sheet from this server, this server's API,
 * and nothing else — no inline script or style, no eval, no other origin.
 */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"

function send(reply: FastifyReply, type: string, body: Buffer | string): Buffer | string {
  reply.header('content-type', type).header('cache-control', 'no-cache')
  return body
}

/**
 * The live gas page (see live-page/gas-page.ts), outside `/v1` and the OpenAPI document: `GET /`
 * (the document, told how this server is set up), `GET /gas-page.js` (its bundled script, read
 * or bundled once, on the first request), `GET /gas-page.css` and `GET /gas-page/tiers` (the
 * tier prices of the newest blocks, from `tiers`).
 */
export function gasPageRoutes(options: GasPageOptions, tiers: TierHistory): RouteOptions[] {
  const html = Buffer.from(gasPageHtml(options), 'utf8')
  const css = Buffer.from(PAGE_CSS, 'utf8')
  let script: Promise<Buffer> | undefined
  return [
    {
      method: 'GET',
      url: '/',
      config: { operationId: 'gas_page', produces: 'other' },
      handler(_request, reply) {
        reply.header('content-security-policy', CSP)
        return send(reply, 'text/html; charset=utf-8', html)
      },
    },
    {
      method: 'GET',
      url: PAGE_SCRIPT_PATH,
      config: { operationId: 'gas_page_script', produces: 'other' },
      async handler(_request, reply) {
        script ??= loadPageScript().then((text) => Buffer.from(text, 'utf8'))
        return send(reply, 'text/javascript; charset=utf-8', await script)
      },
    },
    {
      method: 'GET',
      url: PAGE_STYLE_PATH,
      config: { operationId: 'gas_page_style', produces: 'other' },
      handler(_request, reply) {
        return send(reply, 'text/css; charset=utf-8', css)
      },
    },
    {
      method: 'GET',
      url: PAGE_TIERS_PATH,
      config: { operationId: 'gas_page_tiers', produces: 'json' },
      handler(_request, reply) {
        return send(reply, JSON_TYPE, tiers.json())
      },
    },
  ]
}
