/**
 * The Chain Ledger Read API: a Fastify server over a ledger store with the gas estimator.
 * @module
 */
export { createServer, ENDPOINTS } from './server.js'
export type { EndpointName, ReadApiServer, ServerOptions } from './server.js'
export type { EstimatorMode } from '../service/estimate-feed.js'
export { ApiError } from './plumbing/errors.js'
export type { ApiErrorKind } from './plumbing/errors.js'
export { ERROR_CODES, ERROR_MAP, toErrorReply } from './plumbing/error-map.js'
export type { ErrorBody, ErrorCode } from './plumbing/error-map.js'
export { COMPONENT_SCHEMAS } from './schema/components.js'
export { LEDGER_HEADER_SUFFIXES } from './ledger-headers.js'
export type { ServerMetrics } from './plumbing/metrics.js'
export type { ReadinessSource } from './plumbing/readiness.js'
export type { ConnectionGate, GateEvents } from './plumbing/connection-gate.js'
export type { GasStream } from './gas-stream.js'
