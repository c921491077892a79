import { createServer as createHttpServer } from 'node:http'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { resolveCalibratedConfig, type CalibratedConfigInput } from '../core/calibrated/calibrated-config.js'
import { resolveConfig, type EstimatorConfigInput } from '../core/config.js'
import { InvalidConfigError } from '../core/errors.js'
import type { GasEstimate } from '../core/wire.js'
import type { LedgerStore } from '../ledger/store/store.js'
import type { BlockJson } from '../ledger/store/types.js'
import { ConnectionGate, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING } from './plumbing/connection-gate.js'
import { JSON_TYPE, readLedger, type ApiContext } from './context.js'
import { conventions } from './plumbing/conventions.js'
import { Cors } from './plumbing/cors.js'
import { toErrorReply } from './plumbing/error-map.js'
import { ApiError } from './plumbing/errors.js'
import { ESTIMATOR_MODES, EstimateFeed, type EstimatorMode } from '../service/estimate-feed.js'
import { drainOnClose } from './plumbing/drain.js'
import { DEFAULT_STREAM_BUFFER_BYTES, DEFAULT_STREAM_KEEPALIVE_MS, DEFAULT_STREAM_POLL_MS, GasStream, STREAM_HISTORY } from './gas-stream.js'
import { checkLimit, clientErrorHandler, connectHandler, DEFAULT_MAX_URL_LENGTH, DEFAULT_REQUEST_TIMEOUT_MS, MAX_HEADER_BYTES, urlLimit } from './plumbing/http-limits.js'
import { LedgerHeaders } from './ledger-headers.js'
import { TierHistory } from './live-page/tier-history.js'
import { ServerMetrics } from './plumbing/metrics.js'
import type { ReadinessSource } from './plumbing/readiness.js'
import { buildOpenApi, type ApiRoute, type RouteRecord } from './openapi.js'
import { checkPageSizes, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './page.js'
import { compileParamParser } from './params.js'
import { accountTransactionsRoute } from './routes/account-transactions.js'
import { blockByHeightRoute } from './routes/block-by-height.js'
import { estimateGasPriceRoute } from './routes/estimate-gas-price.js'
import { gasEstimateRoute } from './routes/gas-estimate.js'
import { gasExplainRoute } from './routes/gas-explain.js'
import { gasHistoryRoute } from './routes/gas-history.js'
import { gasInclusionRoute } from './routes/gas-inclusion.js'
import { gasPageRoutes } from './routes/gas-page.js'
import { gasPriceRoute } from './routes/gas-price.js'
import { gasStreamRoute } from './routes/gas-stream.js'
import { healthyRoute } from './routes/healthy.js'
import { ledgerInfoRoute } from './routes/ledger-info.js'
import { metricsRoute } from './routes/metrics.js'
import { isQuietLogger } from './routes/quiet-logger.js'
import { specRoute } from './routes/spec.js'
import { transactionByVersionRoute } from './routes/transaction-by-version.js'
import { REQUEST_ID_HEADER, requestIdOf } from './plumbing/request-id.js'
import { DEFAULT_STORE_TIMEOUT_MS, guardStore } from './plumbing/store-guard.js'

/** The endpoints, by their Aptos operation ids; any of them can be disabled (403 `api_disabled`). */
export const ENDPOINTS = [
  'get_ledger_info',
  'get_account_transactions',
  'get_transaction_by_version',
  'estimate_gas_price',
  'get_block_by_height',
  'spec',
  'get_gas_estimate',
  'get_gas_inclusion',
  'get_gas_price',
  'get_gas_history',
  'get_gas_explain',
  'healthy',
] as const
export type EndpointName = (typeof ENDPOINTS)[number]

/** Age (s) of the newest block past which the live page shows the ledger as stale: the health check the docs recommend, `/v1/-/healthy?duration_secs=30`. */
export const DEFAULT_STALE_AFTER_SECS = 30

/** Options of `createServer`. Only `store` is required. */
export interface ServerOptions {
  /** The ledger to serve. The server reads it and, through `appendBlock`, appends to it; it never closes it. */
  store: LedgerStore
  /**
   * Estimator configuration (Aptos key names); defaults are the Aptos node's. The calibrated
   * estimator reads its block pricing and floor (`full_block_txns`, `min_gas_unit_price`, …) too.
   */
  estimator?: EstimatorConfigInput
  /**
   * Which estimator answers `GET /v1/estimate_gas_price`: `aptos` (the node's algorithm, byte
   * for byte) or `calibrated` (each tier promises inclusion within k blocks with probability
   * q). Both are fed the same blocks either way, and the `/v1/gas/*` routes read both.
   * Default `aptos`.
   */
  estimatorMode?: EstimatorMode | undefined
  /** The calibrated estimator's promises, window and learning rate; defaults as `DEFAULT_CALIBRATED_CONFIG`. */
  calibrated?: CalibratedConfigInput | undefined
  /** Prefix of the ledger headers; `X-APTOS-` for drop-in use. Default `X-NODE-`. */
  headerPrefix?: string | undefined
  /** Page size when `limit` is omitted. Default 25 (Aptos). */
  defaultPageSize?: number
  /** Largest `limit` honoured; larger ones are clamped. Default 100 (Aptos). */
  maxPageSize?: number
  /** Endpoints answered with 403 `api_disabled`. */
  disabled?: readonly EndpointName[]
  /** Fastify logger option. Default off. */
  logger?: FastifyServerOptions['logger']
  /** `git_hash` of `GET /v1`; omitted when unknown. */
  gitHash?: string | undefined
  /** `node_role` of `GET /v1`. Default `full_node`. */
  nodeRole?: 'full_node' | 'validator'
  /** `info.version` of the OpenAPI document. */
  version?: string | undefined
  /** Wall clock (ms since the Unix epoch) of the health check's `duration_secs`. Default `Date.now`. */
  clock?: () => number
  /**
   * Requests of one connection started at once (HTTP/1.1 pipelining); later ones wait, and the
   * connection is not read while any wait. Default 4.
   */
  maxInFlightPerConnection?: number
  /** Requests of one connection parsed and waiting; more → the connection is closed. Default 1024. */
  maxWaitingPerConnection?: number
  /**
   * Whether `GET /v1/gas/stream` is served. When `false` the route does not exist (404
   * `route_not_found`, absent from the OpenAPI document) and the live page at `/` polls
   * instead, every `streamPollMs`. Default `true`.
   */
  stream?: boolean | undefined
  /** Interval (ms) of the `/v1/gas/stream` keep-alive comment. Default 15000. */
  streamKeepAliveMs?: number
  /** Unread bytes a `/v1/gas/stream` client may hold before it is dropped. Default 65536. */
  streamBufferBytes?: number
  /** How often (ms) the store is polled for new blocks while stream clients are connected (and the live page polls when the stream is off). Default 1000. */
  streamPollMs?: number
  /**
   * Deadline (ms) of each asynchronous store read, and of the estimate's catch-up within a
   * request: past it the request is answered 503 and the store's late answer is dropped.
   * Synchronous stores (memory, SQLite) answer before a timer could fire. Default 3000.
   */
  storeTimeoutMs?: number
  /** Longest request target (path + query) answered; longer → 414 `web_framework_error`. Default 2048. */
  maxUrlLength?: number
  /**
   * Time (ms) a client has to send a whole request over a socket; slower → 408
   * `web_framework_error` and the connection is closed. Default 10000.
   */
  requestTimeoutMs?: number
  /**
   * Age (s) of the newest block past which the live page at `/` shows the ledger as stale
   * instead of live: the server's health threshold, the `duration_secs` a load balancer should
   * pass to `/v1/-/healthy`. Default 30.
   */
  staleAfterSecs?: number
  /**
   * What keeps the ledger current, when something does (`serve --follow` passes its follower's):
   * `GET /v1/-/healthy` answers 503 `health_check_failed` with its reason while it has one, and
   * `/metrics` counts its errors (`ledger_gas_follow_errors_total`). Default none.
   */
  readiness?: ReadinessSource | undefined
}

/** A read API server over a ledger store. */
export interface ReadApiServer {
  /** The Fastify instance (routes under `/v1`); use `inject` in tests. */
  readonly fastify: FastifyInstance
  /**
   * Appends the next block to the store and to the estimator, so the estimate follows the chain.
   * Blocks appended to the store by others are picked up by the next estimate request.
   *
   * @throws InvalidBlockError when the engine cannot read the block (the store is not touched); whatever the store throws.
   */
  appendBlock(block: BlockJson): Promise<void>
  /** Brings the estimate to the store's current height now (instead of on the next request). */
  sync(): Promise<void>
  /** The estimate `GET /v1/estimate_gas_price` serves (of `estimatorMode`), as of the last block the server has seen. */
  estimate(): GasEstimate
  /** The server's Prometheus metrics (`GET /metrics`). */
  readonly metrics: ServerMetrics
  /** The per-connection bound on pipelined work; its events tell when a connection stops being read. */
  readonly connections: ConnectionGate
  /** The `/v1/gas/stream` hub (clients, events); `undefined` when the stream is off (`stream: false`). */
  readonly stream: GasStream | undefined
  /** Starts listening; resolves to the URL (e.g. `http://127.0.0.1:8080`). */
  listen(options?: { port?: number; host?: string }): Promise<string>
  /** Stops accepting connections and waits for in-flight requests. Does not close the store. */
  close(): Promise<void>
}

/**
 * The compilers of every route schema. Route schemas document and drive parsing (`params.ts`);
 * handlers send their bodies already written, so anything else a route returns is
 * `JSON.stringify`'d. Given to Fastify as its compilers' factories so that it never loads its
 * defaults (Ajv and fast-json-stringify, a sixth of a cold start's module loading), which no
 * route would use. Fastify types the factories by those libraries' signatures, hence the cast.
 */
const compilersFactory = {
  buildValidator: () => compileParamParser,
  buildSerializer: () => () => (data: unknown) => JSON.stringify(data),
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>

/**
 * Creates the Chain Ledger Read API server (Fastify 5): account transactions, transaction by
 * version, gas price estimate, ledger info, block by height, the calibrated estimate and fee
 * history (`/gas/*`) and the OpenAPI document, under `/v1`. Feeds both estimators (Aptos and
 * calibrated) with the store's newest blocks before resolving (a store that cannot be read yet
 * does not stop the server; its requests answer 503 until it can).
 *
 * Every store read goes through `guardStore` (answers checked, asynchronous reads bounded by
 * `storeTimeoutMs`); `close()` lets responses under way finish to their last byte (`drainOnClose`).
 *
 * @throws InvalidConfigError for a bad estimator or calibrated config, estimator mode, page sizes, limit or timeout, header prefix or endpoint name.
 * @example
 * const server = await createServer({ store })
 * await server.listen({ port: 8080 })
 */
export async function createServer(options: ServerOptions): Promise<ReadApiServer> {
  const config = resolveConfig(options.estimator ?? {})
  const calibrated = resolveCalibratedConfig(options.calibrated ?? {})
  const mode = options.estimatorMode ?? 'aptos'
  if (!ESTIMATOR_MODES.includes(mode)) throw new InvalidConfigError('estimatorMode', `must be one of ${ESTIMATOR_MODES.join(', ')}, got ${JSON.stringify(mode)}`)
  const defaultPageSize = options.defaultPageSize ?? DEFAULT_PAGE_SIZE
  const maxPageSize = options.maxPageSize ?? MAX_PAGE_SIZE
  checkPageSizes(defaultPageSize, maxPageSize)
  const headerPrefix = options.headerPrefix ?? 'X-NODE-'
  const headers = new LedgerHeaders(headerPrefix)
  const storeTimeoutMs = checkLimit('storeTimeoutMs', options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS)
  const requestTimeoutMs = checkLimit('requestTimeoutMs', options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS)
  const urls = urlLimit(checkLimit('maxUrlLength', options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH, MAX_HEADER_BYTES))
  const store = guardStore(options.store, storeTimeoutMs)
  const disabled = new Set<string>(options.disabled ?? [])
  for (const name of disabled) {
    if (!(ENDPOINTS as readonly string[]).includes(name)) throw new InvalidConfigError('disabled', `unknown endpoint ${JSON.stringify(name)}; known: ${ENDPOINTS.join(', ')}`)
  }

  const maxInFlight = checkLimit('maxInFlightPerConnection', options.maxInFlightPerConnection ?? DEFAULT_MAX_IN_FLIGHT)
  const maxWaiting = checkLimit('maxWaitingPerConnection', options.maxWaitingPerConnection ?? DEFAULT_MAX_WAITING)
  const clock = options.clock ?? Date.now
  const streamOptions = {
    keepAliveMs: checkLimit('streamKeepAliveMs', options.streamKeepAliveMs ?? DEFAULT_STREAM_KEEPALIVE_MS),
    bufferBytes: checkLimit('streamBufferBytes', options.streamBufferBytes ?? DEFAULT_STREAM_BUFFER_BYTES),
    pollMs: checkLimit('streamPollMs', options.streamPollMs ?? DEFAULT_STREAM_POLL_MS),
  }
  const staleAfterSecs = checkLimit('staleAfterSecs', options.staleAfterSecs ?? DEFAULT_STALE_AFTER_SECS)
  const streaming = options.stream ?? true
  if (typeof streaming !== 'boolean') throw new InvalidConfigError('stream', `must be true or false, got ${JSON.stringify(streaming)}`)

  // The gate needs Fastify's handler and the metrics; both exist only once Fastify is made.
  let gate: ConnectionGate | undefined
  // eslint-disable-next-line prefer-const -- assigned once Fastify exists; the gate's callbacks, made before, read it
  let metrics: ServerMetrics | undefined
  const fastify = Fastify({
    logger: options.logger ?? false,
    genReqId: requestIdOf,
    // Every request's own work goes through the gate (pipelining bound); Node's own bare answers
    // (no Host, a bad Expect, CONNECT) are turned into the spec's error object.
    // Fastify leaves a factory-made server's timeouts alone. Node checks request timeouts only
    // every `connectionsCheckingInterval` (30 s by default), so it is tied to the timeout.
    serverFactory: (handler) => {
      gate = new ConnectionGate(handler, maxInFlight, maxWaiting, () => metrics?.countConnectionClosed())
      const server = createHttpServer(
        {
          requestTimeout: requestTimeoutMs,
          headersTimeout: requestTimeoutMs,
          connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(requestTimeoutMs / 2))),
          maxHeaderSize: MAX_HEADER_BYTES,
          // Checked in the onRequest hook, so the 400 is the spec's error object, not Node's empty one.
          requireHostHeader: false,
        },
        gate.handle,
      )
      // Without a listener Node answers a bad `Expect` with a bare 417: through Fastify instead.
      server.on('checkExpectation', gate.handle)
      server.on('connect', connectHandler)
      drainOnClose(server)
      return server
    },
    rewriteUrl: urls.rewriteUrl,
    clientErrorHandler,
    // Long enough that a wrong address (or u64) reaches the parser and gets its precise message.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    // Requests that reach a closing server are still answered (in the spec's format), not 503'd raw.
    return503OnClosing: false,
    frameworkErrors: (error, request, reply) => void sendError(error, request, reply),
    schemaController: { compilersFactory },
  })
  // The feed publishes the estimates of each of a catch-up's newest blocks: the stream's history and the live page's tier chart.
  const depth = STREAM_HISTORY
  const feed = new EstimateFeed(store, config, { mode, calibrated, depth }, (height, error) => fastify.log.warn({ err: error }, `block ${height} left out of the estimate`))
  const tiers = new TierHistory(feed)
  const connections = gate as unknown as ConnectionGate
  const sync = async () => {
    const info = await store.ledgerInfo()
    if (info !== null) await feed.syncTo(info)
  }
  const stream = streaming
    ? new GasStream(feed, {
        ...streamOptions,
        sync,
        onDrop: () => metrics?.countStreamDrop(),
        onEvent: (events) => metrics?.countStreamEvents(events),
      })
    : undefined
  metrics = new ServerMetrics({ feed, readiness: options.readiness }, { streamClients: () => stream?.size ?? 0, waitingRequests: () => connections.waiting, pausedConnections: () => connections.paused })
  const ctx: ApiContext = {
    store,
    feed,
    headers,
    defaultPageSize,
    maxPageSize,
    nodeRole: options.nodeRole ?? 'full_node',
    gitHash: options.gitHash,
    storeTimeoutMs,
    metrics,
    clock,
    readiness: options.readiness,
  }
  const cors = new Cors(headers.names)

  async function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const answer = toErrorReply(error)
    if (answer.fault) request.log.error(isQuietLogger(request.log) ? { err: error, reqId: request.id } : { err: error }, 'request failed')
    // Errors raised before the onRequest hook (bad URL encoding) still carry the conventions.
    if (!reply.hasHeader(REQUEST_ID_HEADER)) {
      reply.header(REQUEST_ID_HEADER, request.id)
      cors.apply(request, reply)
    }
    if (answer.status !== 503 && !reply.hasHeader(headers.names[0] as string)) {
      try {
        await readLedger(ctx, reply)
      } catch {
        // No ledger info: the error goes out without ledger headers.
      }
    }
    reply.code(answer.status).header('content-type', JSON_TYPE).send(JSON.stringify(answer.body))
  }

  fastify.setErrorHandler((error: FastifyError, request, reply) => sendError(error, request, reply))
  fastify.setNotFoundHandler((request, reply) => {
    const tooLong = urls.rejection(request.raw)
    if (tooLong !== undefined) return sendError(tooLong, request, reply)
    const url = request.url.length > 200 ? `${request.url.slice(0, 200)}…` : request.url
    return sendError(new ApiError('route_not_found', `Route ${request.method}:${url} not found`), request, reply)
  })

  const records: RouteRecord[] = []
  await fastify.register(conventions, { cors, metrics, onSchemaRoute: (record) => records.push(record) })
  let specJson: string | undefined
  const document = () => (specJson ??= JSON.stringify(buildOpenApi(records, { headerPrefix, version: options.version ?? '0.0.0' })))

  const routes: ApiRoute[] = [
    ledgerInfoRoute(ctx),
    accountTransactionsRoute(ctx),
    transactionByVersionRoute(ctx),
    estimateGasPriceRoute(ctx),
    blockByHeightRoute(ctx),
    specRoute(ctx, document),
    gasEstimateRoute(ctx),
    gasInclusionRoute(ctx),
    gasPriceRoute(ctx),
    gasHistoryRoute(ctx),
    gasExplainRoute(ctx),
    healthyRoute(ctx),
  ]
  await fastify.register(
    async (v1) => {
      for (const route of routes) {
        const schema = route.schema
        const name = schema.operationId ?? route.url
        if (disabled.has(name)) {
          const summary = schema.summary ?? name
          route.onRequest = (_request, _reply, done) => done(new ApiError('api_disabled', `${summary} is disabled on this node`))
        }
        v1.route(route)
      }
    },
    { prefix: '/v1' },
  )
  fastify.route(metricsRoute(ctx))
  if (stream !== undefined) fastify.route(gasStreamRoute(stream))
  for (const route of gasPageRoutes({ stream: streaming, serves: mode, pollMs: streamOptions.pollMs, headerPrefix, staleAfterSecs }, tiers)) fastify.route(route)
  // Event streams never end on their own: ended before Fastify waits for connections to finish.
  fastify.addHook('preClose', (done) => {
    stream?.close()
    done()
  })
  fastify.route({
    method: 'OPTIONS',
    url: '*',
    config: { operationId: 'cors_preflight', produces: 'other' },
    handler: (request, reply) => cors.preflight(request, reply),
  })
  await fastify.ready()

  try {
    await sync()
  } catch (error) {
    // A store that fails now may recover: requests answer 503/500 meanwhile, and the estimate
    // catches up on the first request that finds the ledger readable.
    fastify.log.warn({ err: error }, 'could not read the ledger at startup')
  }

  return {
    fastify,
    metrics,
    connections,
    stream,
    appendBlock: (block) => ctx.feed.append(block),
    sync,
    estimate: () => ctx.feed.estimate(),
    listen: (o = {}) => fastify.listen({ port: o.port ?? 8080, host: o.host ?? '127.0.0.1' }),
    close: () => fastify.close(),
  }
}
