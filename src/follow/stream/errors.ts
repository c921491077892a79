import { LedgerGasError } from '../../core/errors.js'

/**
 * The stream answered something the ingest cannot use and that a retry would not mend: a
 * refused key (UNAUTHENTICATED, PERMISSION_DENIED), an unknown method, transactions out of
 * version order or past a gap, a transaction kind the node's REST API does not serve. The
 * message names the endpoint, never the key.
 */
export class StreamResponseError extends LedgerGasError {
  /** The endpoint, as given. */
  readonly endpoint: string
  /** The gRPC status code name when the call ended with one (`UNAUTHENTICATED`), else `null`. */
  readonly status: string | null
  constructor(endpoint: string, status: string | null, message: string, options?: { cause?: unknown }) {
    super('node_response', `stream ${endpoint}: ${message}`, options)
    this.endpoint = endpoint
    this.status = status
  }
}

/** The stream stayed unreachable or overloaded (UNAVAILABLE, RESOURCE_EXHAUSTED, cut calls) through every retry without progress. */
export class StreamUnavailableError extends LedgerGasError {
  readonly endpoint: string
  /** Calls made since the last one that delivered a block. */
  readonly attempts: number
  constructor(endpoint: string, attempts: number, lastFailure: string, options?: { cause?: unknown }) {
    super('node_unavailable', `stream ${endpoint} failed ${attempts} times without progress, last: ${lastFailure}`, options)
    this.endpoint = endpoint
    this.attempts = attempts
  }
}

/**
 * The stream serves another chain than the ledger holds (`chain_id` of its responses). Nothing
 * is written. Code `invalid_database`: the ledger named does not fit the source, as a ledger of
 * another chain id given with `--chain-id` does not.
 */
export class StreamChainError extends LedgerGasError {
  readonly endpoint: string
  readonly streamChainId: number
  readonly ledgerChainId: number
  constructor(endpoint: string, streamChainId: number, ledgerChainId: number, ledger: string) {
    super('invalid_database', `stream ${endpoint} serves chain id ${streamChainId}, but ${ledger} holds chain id ${ledgerChainId}; nothing was written`)
    this.endpoint = endpoint
    this.streamChainId = streamChainId
    this.ledgerChainId = ledgerChainId
  }
}
