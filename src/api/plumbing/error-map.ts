import { ApiError, type ApiErrorKind } from './errors.js'

/** The `error_code` values the spec allows (read-api.md §7), in its order. */
export const ERROR_CODES = [
  'account_not_found',
  'resource_not_found',
  'module_not_found',
  'struct_field_not_found',
  'version_not_found',
  'transaction_not_found',
  'table_item_not_found',
  'block_not_found',
  'state_value_not_found',
  'version_pruned',
  'block_pruned',
  'invalid_input',
  'invalid_transaction_update',
  'sequence_number_too_old',
  'vm_error',
  'rejected_by_filter',
  'health_check_failed',
  'mempool_is_full',
  'internal_error',
  'web_framework_error',
  'bcs_not_supported',
  'api_disabled',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

/** The spec's error object (§2.6). `vm_error_code` is only for VM submissions, so never sent here. */
export interface ErrorBody {
  message: string
  error_code: ErrorCode
  vm_error_code?: number
}

/**
 * The one place an error becomes an HTTP status and an `error_code` (the README's table).
 * Codes follow the Aptos node where the spec leaves the mapping open (aptos-node-notes §3.3–3.5).
 */
export const ERROR_MAP: Readonly<Record<ApiErrorKind, { status: number; error_code: ErrorCode }>> = Object.freeze({
  invalid_parameter: { status: 400, error_code: 'web_framework_error' },
  invalid_input: { status: 400, error_code: 'invalid_input' },
  api_disabled: { status: 403, error_code: 'api_disabled' },
  route_not_found: { status: 404, error_code: 'web_framework_error' },
  // Transport limits: HTTP's own statuses (the spec lists none for them), the spec's error object.
  request_timeout: { status: 408, error_code: 'web_framework_error' },
  uri_too_long: { status: 414, error_code: 'web_framework_error' },
  headers_too_large: { status: 431, error_code: 'web_framework_error' },
  malformed_request: { status: 400, error_code: 'web_framework_error' },
  missing_host: { status: 400, error_code: 'web_framework_error' },
  expectation_failed: { status: 417, error_code: 'web_framework_error' },
  method_not_allowed: { status: 405, error_code: 'web_framework_error' },
  bcs_not_supported: { status: 400, error_code: 'bcs_not_supported' },
  health_check_failed: { status: 503, error_code: 'health_check_failed' },
  transaction_not_found: { status: 404, error_code: 'transaction_not_found' },
  block_not_found: { status: 404, error_code: 'block_not_found' },
  version_pruned: { status: 410, error_code: 'version_pruned' },
  block_pruned: { status: 410, error_code: 'block_pruned' },
  internal_error: { status: 500, error_code: 'internal_error' },
  ledger_unavailable: { status: 503, error_code: 'internal_error' },
  store_timeout: { status: 503, error_code: 'internal_error' },
})

/** Message of every 500: the cause goes to the log, never to the client. */
export const INTERNAL_MESSAGE = 'Internal error while serving the request'

/** An error answer: status, spec body, and whether the cause should be logged as a server fault. */
export interface ErrorReply {
  status: number
  body: ErrorBody
  fault: boolean
}

interface FrameworkError {
  code?: unknown
  statusCode?: unknown
  message?: unknown
}

/**
 * Maps anything thrown while serving a request to the reply. `ApiError` → its kind's row;
 * Fastify's own client errors (failed parameter validation, bad URL, unsupported media type, …)
 * → their 4xx status with `web_framework_error`; anything else → 500 `internal_error` with a
 * fixed message.
 */
export function toErrorReply(error: unknown): ErrorReply {
  if (error instanceof ApiError) {
    const row = ERROR_MAP[error.code]
    // A failed health check is the answer asked for (a load balancer probes every few seconds), not a server fault to log.
    const fault = row.status >= 500 && error.code !== 'health_check_failed'
    return { status: row.status, body: { message: row.status === 500 ? INTERNAL_MESSAGE : error.message, error_code: row.error_code }, fault }
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as FrameworkError
  // An over-long path segment is an unparsable path value like any other (the router's own 414
  // would echo the whole URL back).
  if (e.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return { status: 400, body: { message: 'failed to parse path: a path parameter is too long', error_code: 'web_framework_error' }, fault: false }
  }
  // Fastify's message quotes the whole path; the client knows what it sent.
  if (e.code === 'FST_ERR_BAD_URL') {
    return { status: 400, body: { message: 'failed to parse path: invalid percent-encoding', error_code: 'web_framework_error' }, fault: false }
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500
  if (typeof e.code === 'string' && e.code.startsWith('FST_') && status >= 400 && status < 500 && typeof e.message === 'string') {
    return { status, body: { message: e.message, error_code: 'web_framework_error' }, fault: false }
  }
  return { status: 500, body: { message: INTERNAL_MESSAGE, error_code: 'internal_error' }, fault: true }
}
