import type { U64 } from './u64.js'

/** The gas estimate object of the API (spec §2.5), tiers as exact u64. */
export interface GasEstimate {
  /** Low-priority estimate (Aptos "low"). */
  deprioritized_gas_estimate: U64
  /** The regular estimate (Aptos "market"). */
  gas_estimate: U64
  /** Aggressive estimate (Aptos "aggressive"). */
  prioritized_gas_estimate: U64
}

/**
 * Serializes a gas estimate as the wire JSON object with JSON integers that are exact for every
 * u64 (a bigint is written digit for digit; nothing goes through a lossy double). Key order as
 * the node writes it.
 *
 * @example gasEstimateToJson({ deprioritized_gas_estimate: 100, gas_estimate: 150, prioritized_gas_estimate: 18446744073709551615n })
 * // '{"deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":18446744073709551615}'
 */
export function gasEstimateToJson(estimate: GasEstimate): string {
  return `{"deprioritized_gas_estimate":${String(estimate.deprioritized_gas_estimate)},"gas_estimate":${String(estimate.gas_estimate)},"prioritized_gas_estimate":${String(estimate.prioritized_gas_estimate)}}`
}

/**
 * `JSON.stringify` that writes bigints as exact JSON integers (Node 20 has no `JSON.rawJSON`).
 * Numbers, strings, booleans, null, arrays and plain objects as `JSON.stringify` does;
 * `undefined` properties are left out.
 */
export function stringifyExact(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stringifyExact(v))).join(',')}]`
  const parts: string[] = []
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue
    parts.push(`${JSON.stringify(k)}:${stringifyExact(v)}`)
  }
  return `{${parts.join(',')}}`
}
