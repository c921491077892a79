/**
 * How many times, since the process started, the wire-text writer (wire-text.ts, user-text.ts)
 * handed a whole transaction (`transaction`) or one part of a transaction it writes (an `event`,
 * a write-set `change`, a `signature`, a `payload`) to the message decoder and its text twin in
 * convert/. The writer only ever adds to them, on its fallback branches (never on the wire
 * path), so counting costs the common shapes nothing; bench/stream-decode.ts reads them for the
 * fast path's share of a chain, and the tests for which shapes it covers.
 */
export const fallbacks = { transaction: 0, event: 0, change: 0, signature: 0, payload: 0 }

/** The sum of `fallbacks`' part counts (everything but whole transactions). */
export function partFallbacks(): number {
  return fallbacks.event + fallbacks.change + fallbacks.signature + fallbacks.payload
}
