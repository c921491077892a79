import { LedgerGasError } from '../../core/errors.js'

/**
 * What went wrong while answering a request, in the API's own words. The HTTP status and the
 * spec's `error_code` of each kind are decided in `error-map.ts` only.
 */
export type ApiErrorKind =
  /** A path or query value does not parse (not a number, out of u64/u16 range, bad hex). */
  | 'invalid_parameter'
  /** A value parses but is not acceptable (e.g. `limit=0`). */
  | 'invalid_input'
  /** The endpoint is switched off in the server's options. */
  | 'api_disabled'
  /** No route matches the method and path. */
  | 'route_not_found'
  /** The request target is longer than the server's `maxUrlLength`. */
  | 'uri_too_long'
  /** The request line and headers are larger than Node's header limit (16 KiB). */
  | 'headers_too_large'
  /** The request was not received in full within the server's `requestTimeoutMs`. */
  | 'request_timeout'
  /** Bytes that are not an HTTP request. */
  | 'malformed_request'
  /** An HTTP/1.1 request without a `Host` header (RFC 9112 §3.2). */
  | 'missing_host'
  /** An `Expect` header other than `100-continue`. */
  | 'expectation_failed'
  /** A method this server never answers on any path (`CONNECT`). */
  | 'method_not_allowed'
  /** `Accept: application/x-bcs` on a route that only speaks JSON. */
  | 'bcs_not_supported'
  /** `GET /v1/-/healthy?duration_secs=N` and the newest block is older than N seconds. */
  | 'health_check_failed'
  | 'transaction_not_found'
  | 'block_not_found'
  | 'version_pruned'
  | 'block_pruned'
  /** The store failed; the message never carries the cause. */
  | 'internal_error'
  /** No ledger info: the store holds no block yet, or could not be read. */
  | 'ledger_unavailable'
  /** An asynchronous store read did not settle within the server's `storeTimeoutMs`. */
  | 'store_timeout'

/**
 * An error the API answers with a spec error object. `code` is the kind; the message is safe to
 * send (it names the bad value, never internals).
 *
 * @example throw new ApiError('transaction_not_found', 'Transaction not found by Ledger version(12)')
 */
export class ApiError extends LedgerGasError {
  override readonly code: ApiErrorKind
  constructor(kind: ApiErrorKind, message: string, options?: { cause?: unknown }) {
    super(kind, message, options)
    this.code = kind
  }
}
