import type { Rng } from './prng.js'

const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/**
 * `0x` followed by `bytes` random bytes in lowercase hex (a hash is 32 bytes, an ed25519
 * signature 64).
 *
 * @example randomHex(rng, 32) // '0x3f…' (66 characters)
 */
export function randomHex(rng: Rng, bytes: number): string {
  let out = '0x'
  for (let i = 0; i < bytes; i += 4) {
    let w = rng.u32()
    for (let j = 0; j < 4 && i + j < bytes; j++) {
      out += BYTE_HEX[w & 0xff]
      w >>>= 8
    }
  }
  return out
}

/**
 * An account address in the node's display form: `0x` and the hex with leading zeros stripped
 * (`0xa550c18`; all-zero is `0x0`), as `AccountAddress::to_hex_literal`.
 */
export function randomAddress(rng: Rng): string {
  const long = randomHex(rng, 32)
  const stripped = long.slice(2).replace(/^0+/, '')
  return `0x${stripped === '' ? '0' : stripped}`
}

/** A random u64 as a decimal string (two 32-bit draws). */
export function randomU64String(rng: Rng): string {
  return ((BigInt(rng.u32()) << 32n) | BigInt(rng.u32())).toString()
}
