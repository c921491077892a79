import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id'

/** Longest incoming id echoed back: enough for a UUID or a trace id, too short to make logs a carrier. */
export const MAX_REQUEST_ID_LENGTH = 64

/** Printable ASCII without spaces: safe in a header, a log line and a metric-free label. */
const SANE = /^[\x21-\x7e]+$/

/**
 * Whether an incoming `x-request-id` is echoed as it is: one value of 1 to 64 printable ASCII
 * characters (no spaces, no control bytes). Anything else is replaced by a generated id, so a
 * client cannot put newlines in the logs or a kilobyte in every answer.
 *
 * @example isSaneRequestId('b7e2-41') // true
 */
export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_REQUEST_ID_LENGTH && SANE.test(value)
}

/** 48 random bits per process, so ids of two server processes (or restarts) do not collide. */
const PREFIX = randomBytes(6).toString('hex')
let counter = 0

/**
 * Fastify's `genReqId`: a sane incoming `x-request-id`, else `<12 hex digits of this process>-<a
 * counter in base 36>` (unique per process, cheaper than a UUID on the hot path). The id is the
 * `reqId` of the request's log lines and the `x-request-id` of its answer.
 *
 * @example requestIdOf(req) // '3f9a0c12b7e4-1k2'
 */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER]
  if (given !== undefined && isSaneRequestId(given)) return given
  counter = counter === Number.MAX_SAFE_INTEGER ? 1 : counter + 1
  return `${PREFIX}-${counter.toString(36)}`
}
