/** `0x` + lower-case hex of the bytes (the node's `HexEncodedBytes`; zeros kept). */
export function hex(bytes: Uint8Array): string {
  // The decoder's bytes are views of the response Buffer: no second view is made for them.
  return `0x${(bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('hex')}`
}

/**
 * An address as the node's REST API writes it (Aptos `Address` Display, `to_hex_literal`):
 * leading zeros stripped, so the stream's long form `0x00ab…` becomes `0xab…` and `0x0…01` `0x1`.
 */
export function shortAddress(address: string): string {
  if (!address.startsWith('0x')) return address
  let i = 2
  while (i < address.length - 1 && address.charCodeAt(i) === 48) i++
  return i === 2 ? address : `0x${address.slice(i)}`
}

/** Microseconds since the epoch of a proto `Timestamp` (`seconds`, `nanos`), as the node's u64 decimal string. */
export function micros(t: { seconds: bigint; nanos: number } | undefined): string {
  if (t === undefined) return '0'
  return String(t.seconds * 1_000_000n + BigInt(Math.floor(t.nanos / 1000)))
}
