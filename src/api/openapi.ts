import { LEDGER_HEADER_DESCRIPTIONS, LEDGER_HEADER_SUFFIXES } from './ledger-headers.js'
import { COMPONENT_SCHEMAS } from './schema/components.js'
import type { Schema } from './schema/ref.js'

/** A registered route as the OpenAPI generator sees it. */
export interface RouteRecord {
  method: string
  /** Full URL pattern, e.g. `/v1/accounts/:address/transactions`. */
  url: string
  schema: RouteSchema
  /** `true` when the route also answers `Accept: application/x-bcs` with BCS. */
  bcs?: boolean
}

/** The route schema keys this API uses (Fastify's plus the OpenAPI operation fields). */
export interface RouteSchema {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  params?: Schema
  querystring?: Schema
  response?: Record<number, Schema>
  /** Media type of the 200 answer when it is not JSON (e.g. `text/event-stream`); its schema describes that body. */
  contentType?: string
  /** Request headers the operation reads, documented as header parameters (not validated). */
  headerParams?: Record<string, Schema>
  /** `false` when the answers carry no ledger headers (the event stream). Default `true`. */
  ledgerHeaders?: boolean
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request: a parameter does not parse or is not acceptable',
  403: 'Forbidden: the endpoint is disabled',
  404: 'Not Found',
  410: 'Gone: pruned',
  500: 'Internal Server Error',
  503: 'Service Unavailable: ledger info unavailable',
}

/** The parameter schema without the `x-parse` instruction meant for the server's parser. */
function publicSchema(schema: Schema): Schema {
  const { 'x-parse': _parse, description: _description, ...rest } = schema as Record<string, unknown>
  return rest
}

function parameters(schema: Schema | undefined, where: 'path' | 'query' | 'header'): unknown[] {
  if (schema === undefined) return []
  const s = schema as { properties?: Record<string, Schema>; required?: string[] }
  return Object.entries(s.properties ?? {}).map(([name, p]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    ...(typeof p.description === 'string' ? { description: p.description } : {}),
    schema: publicSchema(p),
  }))
}

function headers(prefix: string, required: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const suffix of LEDGER_HEADER_SUFFIXES) {
    out[`${prefix}${suffix}`] = {
      description: LEDGER_HEADER_DESCRIPTIONS[suffix],
      required,
      schema: { type: 'integer', format: suffix === 'CHAIN-ID' ? 'uint8' : 'uint64' },
    }
  }
  return out
}

/**
 * Builds the OpenAPI 3.0 document of the served routes from their route schemas: one operation
 * per route, parameters from `params`/`querystring`, responses from `response` with the ledger
 * headers (required on 200, optional on errors, as the spec says), and every named schema.
 */
export function buildOpenApi(routes: readonly RouteRecord[], options: { headerPrefix: string; version: string; basePath?: string }): Record<string, unknown> {
  const base = options.basePath ?? '/v1'
  const paths: Record<string, Record<string, unknown>> = {}
  const sorted = [...routes].sort((a, b) => a.url.localeCompare(b.url))
  for (const route of sorted) {
    const rel = route.url.startsWith(base) ? route.url.slice(base.length) : route.url
    const path = (rel === '' ? '/' : rel).replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    const s = route.schema
    const responses: Record<string, unknown> = {}
    for (const [status, schema] of Object.entries(s.response ?? {})) {
      const code = Number(status)
      const type = code === 200 && s.contentType !== undefined ? s.contentType : 'application/json'
      responses[status] = {
        description: STATUS_TEXT[code] ?? String(code),
        ...(s.ledgerHeaders === false ? {} : { headers: headers(options.headerPrefix, code === 200) }),
        content: {
          [type]: { schema },
          ...(route.bcs === true && code === 200 ? { 'application/x-bcs': { schema: { type: 'string', format: 'binary', description: 'The BCS encoding of the same value' } } } : {}),
        },
      }
    }
    paths[path] ??= {}
    ;(paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      ...(s.tags === undefined ? {} : { tags: s.tags }),
      ...(s.summary === undefined ? {} : { summary: s.summary }),
      ...(s.description === undefined ? {} : { description: s.description }),
      ...(s.operationId === undefined ? {} : { operationId: s.operationId }),
      parameters: [...parameters(s.params, 'path'), ...parameters(s.querystring, 'query'), ...parameters(s.headerParams === undefined ? undefined : { properties: s.headerParams }, 'header')],
      responses,
    }
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'ledger-gas Chain Ledger Read API',
      description: 'Account transactions, transactions by version, blocks, ledger info and gas price estimates, Aptos node compatible.',
      version: options.version,
    },
    servers: [{ url: base }],
    paths,
    components: { schemas: COMPONENT_SCHEMAS },
  }
}

/** A route definition of this API: Fastify route options whose schema also carries the OpenAPI operation fields. */
export type ApiRoute = Omit<import('fastify').RouteOptions, 'schema'> & { schema: RouteSchema }
