/**
 * Lowercase hex digits decoded to bytes for the packer (`txn-pack.ts`): two digits a byte, read a
 * 32-bit word (four digits) at a time while a whole word lies within the bytes.
 */

/** Lowercase hex digit → value, else -1 (uppercase hex is not packed: the token writes lowercase). */
export const hexValue = new Int8Array(256).fill(-1)
for (let c = 0; c < 10; c++) hexValue[48 + c] = c
for (let c = 0; c < 6; c++) hexValue[97 + c] = 10 + c

/**
 * Two bytes read as a little-endian 16-bit number, `first | (second << 8)` → their value when both
 * are lowercase hex digits (the first the high digit), else -1: one load per pair of a hex string,
 * two per 32-bit word read.
 */
export const hexPair = new Int16Array(1 << 16).fill(-1)
for (let hi = 0; hi < 256; hi++) {
  if ((hexValue[hi] as number) < 0) continue
  for (let lo = 0; lo < 256; lo++) if ((hexValue[lo] as number) >= 0) hexPair[hi | (lo << 8)] = ((hexValue[hi] as number) << 4) | (hexValue[lo] as number)
}

/**
 * Decodes the lowercase hex digits of `b` from `k` into `out` from `w`, two a byte (an odd last
 * digit alone in a byte of its own), up to the first byte that is not one; `view` is a DataView
 * of `b`'s bytes. Returns where the digits end: `count = end − k` digits, ⌈count/2⌉ bytes written.
 */
export function decodeHexDigits(b: Uint8Array, view: DataView<ArrayBufferLike>, k: number, out: Uint8Array, w: number): number {
  for (const last = b.length - 4; k <= last; k += 4) {
    const x = view.getUint32(k, true)
    const v0 = hexPair[x & 0xffff] as number
    const v1 = hexPair[x >>> 16] as number
    if ((v0 | v1) < 0) break
    out[w] = v0
    out[w + 1] = v1
    w += 2
  }
  for (;;) {
    const v = hexPair[(b[k] as number) | ((b[k + 1] as number) << 8)] as number
    if (v < 0) {
      const hi = hexValue[b[k] as number] as number
      if (hi >= 0) {
        out[w] = hi
        k++
      }
      return k
    }
    out[w++] = v
    k += 2
  }
}
