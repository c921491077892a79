import { InvalidConfigError } from '../core/errors.js'

/** How the follower retries a request that failed for a reason that may pass. */
export interface RetryPolicy {
  /** Retries after the first attempt, for network errors, timeouts, 429 and 5xx. */
  retries: number
  /** Retries of a 404 for a block at or below the node's reported height before it counts as a gap. */
  notFoundRetries: number
  /** Delay cap of the first retry; doubles per retry. */
  baseDelayMs: number
  /** Largest backoff delay. */
  maxDelayMs: number
  /** Largest wait a `Retry-After` header can impose; longer asks are cut to this. */
  maxRetryAfterMs: number
}

/**
 * Defaults: 8 retries with delays capped at 0.2, 0.4 … 10 s, so a request gives up after
 * 16–33 s of a node that does not answer; a 404 below the node's height (a load-balanced node
 * behind its peers) is retried 3 times, well under a second.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  retries: 8,
  notFoundRetries: 3,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
})

/** The policy with defaults applied. @throws InvalidConfigError naming the bad key. */
export function resolveRetryPolicy(input: Partial<RetryPolicy> = {}): RetryPolicy {
  const p = { ...DEFAULT_RETRY_POLICY, ...input }
  for (const key of Object.keys(DEFAULT_RETRY_POLICY) as (keyof RetryPolicy)[]) {
    const v = p[key]
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
      throw new InvalidConfigError(`retry.${key}`, `must be a non-negative integer, got ${JSON.stringify(v)}`)
    }
  }
  if (p.maxDelayMs < p.baseDelayMs) {
    throw new InvalidConfigError('retry.maxDelayMs', `(${p.maxDelayMs}) must be at least retry.baseDelayMs (${p.baseDelayMs})`)
  }
  return p
}

/**
 * Delay before retry `retry` (0 for the first): "equal jitter" exponential backoff. With
 * `cap = min(maxDelayMs, baseDelayMs · 2^retry)` the delay is uniform in [cap/2, cap], so
 * clients that failed together spread out while each still waits at least half the cap.
 * `random` returns values in [0, 1).
 *
 * @example backoffDelay(2, DEFAULT_RETRY_POLICY, () => 0.5) // 600 (cap 800)
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(retry, 52))
  return Math.round(cap / 2 + random() * (cap / 2))
}
