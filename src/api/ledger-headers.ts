import { InvalidConfigError } from '../core/errors.js'
import type { LedgerInfo } from '../ledger/store/store.js'

/** Suffixes of the seven required ledger headers (spec §2.7), in the spec's order. */
export const LEDGER_HEADER_SUFFIXES = [
  'CHAIN-ID',
  'LEDGER-VERSION',
  'LEDGER-OLDEST-VERSION',
  'LEDGER-TIMESTAMPUSEC',
  'EPOCH',
  'BLOCK-HEIGHT',
  'OLDEST-BLOCK-HEIGHT',
] as const

/** What each header carries, for the OpenAPI document. */
export const LEDGER_HEADER_DESCRIPTIONS: Readonly<Record<(typeof LEDGER_HEADER_SUFFIXES)[number], string>> = {
  'CHAIN-ID': 'Chain ID of the current chain',
  'LEDGER-VERSION': 'Current ledger version of the chain',
  'LEDGER-OLDEST-VERSION': 'Oldest non-pruned ledger version of the chain',
  'LEDGER-TIMESTAMPUSEC': 'Current timestamp of the chain',
  EPOCH: 'Current epoch of the chain',
  'BLOCK-HEIGHT': 'Current block height of the chain',
  'OLDEST-BLOCK-HEIGHT': 'Oldest non-pruned block height of the chain',
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Checks a header prefix (`X-NODE-`, `X-APTOS-`): it must make valid header names. */
export function checkHeaderPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || !TOKEN.test(`${prefix}X`)) {
    throw new InvalidConfigError('headerPrefix', `must contain only header-name characters, got ${JSON.stringify(prefix)}`)
  }
  return prefix
}

/**
 * Builds the ledger header object for a ledger info. Keeps the last one built (compared by value,
 * since a store may reuse one mutable object): the ledger moves once per block while requests
 * come far more often, so most calls allocate nothing.
 *
 * The object's keys are the names in lower case, as Fastify stores reply headers and HTTP/1.1
 * sends them (names are case-insensitive): `reply.header` lower-cases every name it is given,
 * and an already lower-case name comes back as the same string, so setting the seven headers
 * allocates nothing and looks up no new property key (the largest cost of the estimate route's
 * own code in a CPU profile, bench/http.ts).
 */
export class LedgerHeaders {
  /** The header names as the spec writes them (`X-NODE-BLOCK-HEIGHT`), for documents and CORS. */
  readonly names: readonly string[]
  /** The same in lower case: the keys of `of()`. */
  private readonly keys: readonly string[]
  private lastValues: (number | bigint)[] = []
  private lastHeaders: Record<string, string> = {}

  constructor(prefix: string) {
    this.names = LEDGER_HEADER_SUFFIXES.map((s) => `${checkHeaderPrefix(prefix)}${s}`)
    this.keys = this.names.map((n) => n.toLowerCase())
  }

  /** The seven headers of `info` (names in lower case), values as decimal strings. */
  of(info: LedgerInfo): Record<string, string> {
    const v = this.lastValues
    if (
      v[0] === info.chain_id &&
      v[1] === info.ledger_version &&
      v[2] === info.oldest_ledger_version &&
      v[3] === info.ledger_timestamp_usec &&
      v[4] === info.epoch &&
      v[5] === info.block_height &&
      v[6] === info.oldest_block_height
    ) {
      return this.lastHeaders
    }
    const values = [info.chain_id, info.ledger_version, info.oldest_ledger_version, info.ledger_timestamp_usec, info.epoch, info.block_height, info.oldest_block_height]
    const headers: Record<string, string> = {}
    for (let i = 0; i < values.length; i++) headers[this.keys[i] as string] = String(values[i])
    this.lastValues = values
    this.lastHeaders = headers
    return headers
  }
}
