import { u64ToBigInt } from '../core/u64.js'
import type { GasEstimate } from '../core/wire.js'

/** Content type of a BCS body, as the Aptos node labels it. */
export const BCS_TYPE = 'application/x-bcs'

function writeU64(out: Buffer, at: number, value: bigint): number {
  out.writeBigUInt64LE(value, at)
  return at + 8
}

/**
 * The node's BCS encoding of `GasEstimation` (api/types/src/transaction.rs): fields in order
 * `deprioritized_gas_estimate: Option<u64>`, `gas_estimate: u64`,
 * `prioritized_gas_estimate: Option<u64>`; an `Option` is 0x00, or 0x01 and the value; a u64
 * is 8 bytes little-endian. This server always has all three, so the body is 26 bytes.
 *
 * @example gasEstimationToBcs({ deprioritized_gas_estimate: 100, gas_estimate: 150, prioritized_gas_estimate: 300 }).length // 26
 */
export function gasEstimationToBcs(estimate: GasEstimate): Buffer {
  const out = Buffer.alloc(26)
  let at = out.writeUInt8(1, 0)
  at = writeU64(out, at, u64ToBigInt(estimate.deprioritized_gas_estimate))
  at = writeU64(out, at, u64ToBigInt(estimate.gas_estimate))
  at = out.writeUInt8(1, at)
  writeU64(out, at, u64ToBigInt(estimate.prioritized_gas_estimate))
  return out
}

/** ULEB128, BCS's length prefix. */
function uleb128(n: number): number[] {
  const bytes: number[] = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n !== 0) b |= 0x80
    bytes.push(b)
  } while (n !== 0)
  return bytes
}

/** BCS of a struct holding one `String` (the node's `HealthCheckSuccess { message }`): ULEB128 byte length, then UTF-8. */
export function stringStructToBcs(text: string): Buffer {
  const utf8 = Buffer.from(text, 'utf8')
  return Buffer.concat([Buffer.from(uleb128(utf8.length)), utf8])
}
