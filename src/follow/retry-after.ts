/** Whole seconds, as RFC 9110 §10.2.3 writes `delay-seconds`. */
const SECONDS = /^[0-9]+$/

/**
 * Milliseconds to wait that a `Retry-After` header asks for: `delay-seconds` (`"3"`) or an
 * HTTP date (`"Wed, 21 Oct 2015 07:28:00 GMT"`) measured from `nowMs`. A date in the past is 0;
 * a missing or unreadable value is `null` (the caller's own backoff applies).
 *
 * @example parseRetryAfter('2', 0) // 2000
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null
  const v = value.trim()
  if (SECONDS.test(v)) return Number(v) * 1000
  // Date.parse reads IMF-fixdate (and the obsolete RFC 850 / asctime forms); nothing else here
  // may look like a date, so a bare number that failed the test above stays unreadable.
  if (!/[a-z]/i.test(v)) return null
  const at = Date.parse(v)
  if (Number.isNaN(at)) return null
  return Math.max(0, at - nowMs)
}
