import { LedgerGasError } from '../core/errors.js'

/**
 * The node answered something the follower cannot use: a status it does not retry (400, 403,
 * a 404 for ledger info, …), a body that is not the JSON it asked for, or a block that is short
 * of transactions and cannot be completed. Retrying would not help.
 */
export class NodeResponseError extends LedgerGasError {
  /** The URL asked for. */
  readonly url: string
  /** The HTTP status, or `null` when the status was fine and the body was not. */
  readonly status: number | null
  constructor(url: string, status: number | null, message: string, options?: { cause?: unknown }) {
    super('node_response', `GET ${url}: ${message}`, options)
    this.url = url
    this.status = status
  }
}

/**
 * The node stayed unreachable or overloaded (network errors, timeouts, 429, 5xx) through every
 * retry of one request. The follower stops; its estimate so far stays readable.
 */
export class NodeUnavailableError extends LedgerGasError {
  /** The URL asked for. */
  readonly url: string
  /** Requests made, the first one included. */
  readonly attempts: number
  constructor(url: string, attempts: number, lastFailure: string, options?: { cause?: unknown }) {
    super('node_unavailable', `GET ${url} failed ${attempts} times, last: ${lastFailure}`, options)
    this.url = url
    this.attempts = attempts
  }
}
