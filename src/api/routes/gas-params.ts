import { MAX_PROMISE_K } from '../../core/calibrated/calibrated-config.js'
import { ApiError } from '../plumbing/errors.js'

/**
 * A horizon `k` of the `/v1/gas/*` queries: 1 to `MAX_PROMISE_K`, as a tier's promise may name.
 *
 * @throws ApiError `invalid_input` (400) outside that range.
 */
export function checkK(k: number): number {
  if (k < 1 || k > MAX_PROMISE_K) throw new ApiError('invalid_input', `Given k (${k}) must be from 1 to ${MAX_PROMISE_K}`)
  return k
}

/**
 * A probability `q` of the `/v1/gas/*` queries: strictly between 0 and 1, as a tier's promise.
 *
 * @throws ApiError `invalid_input` (400) outside that range.
 */
export function checkQ(q: number): number {
  if (!(q > 0 && q < 1)) throw new ApiError('invalid_input', `Given q (${q}) must be strictly between 0 and 1`)
  return q
}
