import type { RouteRecorder } from './metrics.js'

/**
 * What a route sends, for content negotiation: `json` routes answer `Accept: application/x-bcs`
 * with 400 `bcs_not_supported`; `json+bcs` routes encode BCS themselves; `other` (HTML, text,
 * event streams) is never JSON, so never mislabelled.
 */
export type Produces = 'json' | 'json+bcs' | 'other'

/**
 * Fastify route `config` of this server, typed for every route and request by declaration
 * merging (below), so no reader casts it. A route may set `operationId` and `produces`; the
 * conventions plugin's `onRoute` hook fills in what is missing (the schema's operation id, or
 * the URL; `json`) and the recorder, so within a request all three are set. The not-found
 * handler's requests have none of them.
 */
export interface RouteConfig {
  /** Operation id: the `operation_id` label of the request metrics and the name `disabled` takes. */
  operationId?: string
  produces?: Produces
  /** Its request metrics, made once when the route is registered. */
  recorder?: RouteRecorder
}

declare module 'fastify' {
  // Merged into Fastify's own route config type (`request.routeOptions.config`, `RouteOptions.config`).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging adds the fields of RouteConfig
  interface FastifyContextConfig extends RouteConfig {}
}
