import type { EstimatorConfig } from './config.js'
import { InvalidConfigError } from './errors.js'
import type { U64 } from './u64.js'
import type { GasEstimate } from './wire.js'

/** What a transaction is, as far as its minimum gas unit price goes (Aptos gas schedule v1.47). */
export type TxnKind = 'standard' | 'encrypted' | 'high_limit'

/** Every kind, in the order the API lists them. */
export const TXN_KINDS: readonly TxnKind[] = Object.freeze(['standard', 'encrypted', 'high_limit'])

/**
 * The least gas unit price a transaction of `kind` may carry: `min_gas_unit_price` (standard),
 * `encrypted_txn_min_price_per_gas_unit` or `high_limit_txn_min_price_per_gas_unit`.
 *
 * @example kindFloor(resolveConfig(), 'encrypted') // 200
 */
export function kindFloor(config: EstimatorConfig, kind: TxnKind): U64 {
  switch (kind) {
    case 'standard':
      return config.min_gas_unit_price
    case 'encrypted':
      return config.encrypted_txn_min_price_per_gas_unit
    case 'high_limit':
      return config.high_limit_txn_min_price_per_gas_unit
    default:
      throw new InvalidConfigError('kind', `must be one of ${TXN_KINDS.join(', ')}, got ${JSON.stringify(kind)}`)
  }
}

/**
 * An estimate for transactions of `kind`: every tier raised to that kind's floor. A block's
 * requirement for a kind is never below its floor, so a price under it is never included and
 * the standard answer at or above it stands. O(1).
 *
 * @example estimateForKind({ deprioritized_gas_estimate: 100, gas_estimate: 150, prioritized_gas_estimate: 300 }, resolveConfig(), 'encrypted').gas_estimate // 200
 */
export function estimateForKind(e: GasEstimate, config: EstimatorConfig, kind: TxnKind): GasEstimate {
  if (kind === 'standard') return e
  const floor = kindFloor(config, kind)
  const up = (p: U64): U64 => (p < floor ? floor : p)
  return Object.freeze({ deprioritized_gas_estimate: up(e.deprioritized_gas_estimate), gas_estimate: up(e.gas_estimate), prioritized_gas_estimate: up(e.prioritized_gas_estimate) })
}
