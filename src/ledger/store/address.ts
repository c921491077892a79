const HEX = /^[0-9a-fA-F]+$/

/** Whether `s` (66 characters) is `0x` and 64 lowercase hex digits. */
function isLowerHexAddress(s: string): boolean {
  if (s.charCodeAt(0) !== 48 || s.charCodeAt(1) !== 120) return false
  for (let i = 2; i < 66; i++) {
    const c = s.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

/**
 * Parses an account address as the node does (`Address::from_str`): `0x` followed by 1 to 64
 * hex digits (left-padded with zeros), or exactly 64 hex digits without the prefix. Returns the
 * canonical long form (`0x` + 64 lowercase hex digits) or `undefined`.
 *
 * @example parseAddress('0x1') // '0x0000…0001'
 */
export function parseAddress(input: string): string | undefined {
  // Already canonical (what a chain file holds): itself, without a RegExp or a new string.
  if (input.length === 66 && isLowerHexAddress(input)) return input
  let hex: string
  if (input.startsWith('0x')) {
    hex = input.slice(2)
    if (hex.length === 0 || hex.length > 64) return undefined
  } else {
    if (input.length !== 64) return undefined
    hex = input
  }
  if (!HEX.test(hex)) return undefined
  return `0x${hex.toLowerCase().padStart(64, '0')}`
}

/** The node's display form of a canonical address: leading zeros stripped (`0x1`, `0xa550c18`). */
export function toShortAddress(long: string): string {
  const stripped = long.slice(2).replace(/^0+/, '')
  return `0x${stripped === '' ? '0' : stripped}`
}

/**
 * True for the special (framework) addresses `0x0`..`0xf` (Aptos `AccountAddress::is_special`:
 * all bytes zero but the last, which is below 16). Input is the canonical long form.
 */
export function isSpecialAddress(long: string): boolean {
  return /^0x0{63}[0-9a-f]$/.test(long)
}
