import { parseU64 } from '../core/u64.js'

/** Where the node's chain stands, as far as the follower needs it. Heights are exact (bigint). */
export interface NodePosition {
  /** Height of the node's newest block. */
  block_height: bigint
  /** Height of the oldest block the node still serves. */
  oldest_block_height: bigint
  epoch: bigint
}

/** Ledger header prefixes tried, in order: the Aptos node's, then this project's default. */
export const DEFAULT_HEADER_PREFIXES: readonly string[] = Object.freeze(['X-APTOS-', 'X-NODE-'])

function u64(v: unknown): bigint | undefined {
  const parsed = typeof v === 'string' ? parseU64(v) : undefined
  return parsed === undefined ? undefined : BigInt(parsed)
}

/**
 * Reads the ledger info body of `GET {url}/` (the node's `IndexResponse`): `block_height`,
 * `oldest_block_height` and `epoch` as u64 decimal strings. Returns the name of the first bad
 * field instead when one is missing or not a u64 string.
 */
export function parseLedgerInfo(body: unknown): NodePosition | { bad: string; value: unknown } {
  const o = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>
  const block_height = u64(o.block_height)
  if (block_height === undefined) return { bad: 'block_height', value: o.block_height }
  const oldest_block_height = u64(o.oldest_block_height)
  if (oldest_block_height === undefined) return { bad: 'oldest_block_height', value: o.oldest_block_height }
  const epoch = u64(o.epoch)
  if (epoch === undefined) return { bad: 'epoch', value: o.epoch }
  return { block_height, oldest_block_height, epoch }
}

/**
 * The position in a response's ledger headers (`{prefix}BLOCK-HEIGHT`,
 * `{prefix}OLDEST-BLOCK-HEIGHT`, `{prefix}EPOCH`; names are case-insensitive), trying each
 * prefix in turn; `null` when no prefix gives all three as u64. Headers are advisory: an error
 * answer may lack them (Aptos "no info" errors).
 */
export function positionFromHeaders(headers: Headers, prefixes: readonly string[]): NodePosition | null {
  for (const prefix of prefixes) {
    const block_height = u64(headers.get(`${prefix}BLOCK-HEIGHT`) ?? undefined)
    if (block_height === undefined) continue
    const oldest_block_height = u64(headers.get(`${prefix}OLDEST-BLOCK-HEIGHT`) ?? undefined)
    const epoch = u64(headers.get(`${prefix}EPOCH`) ?? undefined)
    if (oldest_block_height === undefined || epoch === undefined) continue
    return { block_height, oldest_block_height, epoch }
  }
  return null
}
