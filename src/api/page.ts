import { InvalidConfigError } from '../core/errors.js'
import { ApiError } from './plumbing/errors.js'

/** Aptos `DEFAULT_PAGE_SIZE` (api/src/page.rs). */
export const DEFAULT_PAGE_SIZE = 25
/** Aptos `max_transactions_page_size` default (config/src/config/api_config.rs). */
export const MAX_PAGE_SIZE = 100

/**
 * The page size for a request, as the node's `Page::limit`: omitted → the default; 0 → 400
 * `invalid_input`; above the maximum → the maximum (the node clamps silently).
 *
 * @example pageLimit(1000, 25, 100) // 100
 */
export function pageLimit(requested: number | undefined, defaultPageSize: number, maxPageSize: number): number {
  const limit = requested ?? defaultPageSize
  if (limit === 0) throw new ApiError('invalid_input', 'Given limit value (0) must not be zero')
  return limit > maxPageSize ? maxPageSize : limit
}

/** Checks the page-size options: 1 ≤ default ≤ max ≤ 65535 (a `limit` is a u16). */
export function checkPageSizes(defaultPageSize: number, maxPageSize: number): void {
  const ok = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535
  if (!ok(maxPageSize)) throw new InvalidConfigError('maxPageSize', `must be an integer from 1 to 65535, got ${maxPageSize}`)
  if (!ok(defaultPageSize) || defaultPageSize > maxPageSize) {
    throw new InvalidConfigError('defaultPageSize', `must be an integer from 1 to maxPageSize (${maxPageSize}), got ${defaultPageSize}`)
  }
}
