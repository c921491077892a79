/** What the server reads of a source that keeps its ledger current (see `Readiness`). */
export interface ReadinessSource {
  /** Why the server is not ready now; `undefined` when it is. */
  readonly reason: string | undefined
  /** Errors of the source since the server started (`ledger_gas_follow_errors_total`). */
  readonly errors: number
}

/**
 * Whether the source that keeps the ledger current (a `serve --follow` follower) is doing so,
 * for `GET /v1/-/healthy`: while it has a reason not to be counted ready, the health check
 * answers 503 `health_check_failed` with that reason, whatever the ledger holds. The source
 * reports; the server only reads.
 *
 * Two reasons, the failure first: `failed` (the source is failing now: each call is one error,
 * counted in `ledger_gas_follow_errors_total`) and `waiting` (nothing has arrived yet, for a
 * ledger that started empty). Both clear on `progressed` (a block arrived).
 *
 * @example
 * const readiness = new Readiness()
 * readiness.waiting('no block from http://node/v1 yet')
 * readiness.failed('GET http://node/v1/: connection refused') // healthy → 503 with this reason
 * readiness.progressed() // healthy → 200 again
 */
export class Readiness implements ReadinessSource {
  private failure: string | undefined
  private pending: string | undefined
  private count = 0

  /** Why the server is not ready now; `undefined` when it is. */
  get reason(): string | undefined {
    return this.failure ?? this.pending
  }

  /** Errors reported through `failed` since the server started. */
  get errors(): number {
    return this.count
  }

  /** Nothing has arrived yet: not ready until `progressed`, unless a failure says more. */
  waiting(reason: string): void {
    this.pending = reason
  }

  /** The source failed (one error); not ready until it makes progress again. */
  failed(reason: string): void {
    this.failure = reason
    this.count++
  }

  /** A block arrived: ready again. */
  progressed(): void {
    this.failure = undefined
    this.pending = undefined
  }
}
