import { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { InvalidConfigError } from '../../core/errors.js'
import { JSON_TYPE } from '../context.js'
import { toErrorReply } from './error-map.js'
import { ApiError, type ApiErrorKind } from './errors.js'
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js'

/**
 * Longest request target (path and query) answered; longer → 414. The longest valid URL of this
 * API is ~150 characters; 2048 is the common limit of browsers and proxies.
 */
export const DEFAULT_MAX_URL_LENGTH = 2048
/** Time a client has to send a whole request (request line and headers; GETs have no body) → 408. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000
/** Node's `maxHeaderSize`: request line plus headers above it → 431 (node:http, not configurable here). */
export const MAX_HEADER_BYTES = 16 * 1024

/** Checks a positive integer option (a limit or a timeout). */
export function checkLimit(key: string, value: number, max = 2 ** 31 - 1): number {
  if (!(Number.isInteger(value) && value >= 1 && value <= max)) throw new InvalidConfigError(key, `must be an integer from 1 to ${max}, got ${value}`)
  return value
}

/** Where an over-long URL is routed: a path no GET route has (`/` is the gas page). */
const OVERLONG_PATH = '/-/uri-too-long'

/**
 * The URL length limit, applied through Fastify's `rewriteUrl` so that it holds for sockets and
 * `inject` alike and before the router reads any parameter: an over-long URL is routed to a path
 * no route has, and the not-found handler asks `rejection` for the 414.
 */
export function urlLimit(maxUrlLength: number) {
  const tooLong = new WeakMap<IncomingMessage, number>()
  return {
    rewriteUrl(req: IncomingMessage): string {
      const url = req.url ?? '/'
      if (url.length <= maxUrlLength) return url
      tooLong.set(req, url.length)
      return OVERLONG_PATH
    },
    /** The 414 error of a request whose URL was over the limit, `undefined` for any other. */
    rejection(req: IncomingMessage): ApiError | undefined {
      const length = tooLong.get(req)
      return length === undefined ? undefined : new ApiError('uri_too_long', `URI is ${length} characters long, more than the limit of ${maxUrlLength}`)
    },
  }
}

const CLIENT_ERRORS: Readonly<Record<string, [ApiErrorKind, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'the request was not received in time'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', `request line and headers are larger than ${MAX_HEADER_BYTES} bytes`],
}

/**
 * A whole HTTP/1.1 error answer in the spec's format, for the places where there is no request
 * object to answer through (Node's parser refused the bytes, or handed the socket over): JSON
 * error object, `x-request-id` (echoed from `req` when sane, else generated), `connection: close`.
 */
export function rawErrorAnswer(kind: ApiErrorKind, message: string, req?: IncomingMessage): string {
  const answer = toErrorReply(new ApiError(kind, message))
  const body = JSON.stringify(answer.body)
  const id = req === undefined ? requestIdOf({ headers: {} } as IncomingMessage) : requestIdOf(req)
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${id}\r\nconnection: close\r\n\r\n${body}`
}

/**
 * Answers what Node's HTTP parser rejects before there is a request (timeouts, oversized headers,
 * bytes that are not HTTP) with the spec's error object instead of Fastify's own body, then
 * closes the connection. Nothing is written when a response is already under way on the socket.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [kind, message] = CLIENT_ERRORS[error.code ?? ''] ?? ['malformed_request', 'the request is not valid HTTP/1.1']
  const busy = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent === true
  if (socket.writable && !busy) socket.write(rawErrorAnswer(kind, message))
  socket.destroy()
}

/**
 * `CONNECT`: Node hands the socket over (without a listener it destroys it, answering nothing).
 * This server tunnels nowhere: 405 in the spec's format, then the connection is closed.
 */
export function connectHandler(req: IncomingMessage, socket: Socket): void {
  if (socket.writable) socket.end(rawErrorAnswer('method_not_allowed', 'CONNECT is not supported: this server only answers GET, HEAD and OPTIONS', req))
  socket.destroySoon()
}
