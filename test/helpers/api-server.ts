import { createServer, type ReadApiServer, type ServerOptions } from '../../src/api/index.js'
import { LEDGER_HEADER_SUFFIXES } from '../../src/api/ledger-headers.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { expectSchema } from './api-schemas.js'

/** A memory store holding `blocks`. */
export function storeOf(blocks: readonly BlockJson[], chainId = 4): MemoryStore {
  const store = new MemoryStore({ chainId })
  for (const b of blocks) store.appendBlock(b)
  return store
}

/** A server over `blocks` (or over `options.store`). */
export async function serverOf(blocks: readonly BlockJson[], options: Partial<ServerOptions> = {}): Promise<ReadApiServer> {
  return createServer({ store: storeOf(blocks), ...options })
}

/** The schema a response body of `url` must satisfy: the route's 200 schema, or the error object. */
export function schemaFor(url: string, status: number): string | null {
  if (status >= 400) return 'AptosError'
  if (status !== 200) return null
  const path = url.split('?')[0] as string
  if (/^\/v1\/?$/.test(path)) return 'IndexResponse'
  if (/^\/v1\/accounts\/[^/]+\/transactions\/?$/.test(path)) return 'Transaction[]'
  if (path.startsWith('/v1/transactions/by_version/')) return 'Transaction'
  if (path.startsWith('/v1/estimate_gas_price')) return 'GasEstimation'
  if (path.startsWith('/v1/blocks/by_height/')) return 'Block'
  const gas: Record<string, string> = {
    '/v1/gas/estimate': 'CalibratedGasEstimate',
    '/v1/gas/inclusion': 'InclusionProbability',
    '/v1/gas/price': 'PriceForInclusion',
    '/v1/gas/history': 'GasHistoryBlock[]',
    '/v1/gas/explain': 'GasExplain',
  }
  if (path.replace(/\/$/, '') in gas) return gas[path.replace(/\/$/, '')] as string
  return null
}

/** GET through `inject`; every JSON body is checked against its schema (200 body or error object). */
export async function get(server: ReadApiServer, url: string) {
  const res = await server.fastify.inject({ method: 'GET', url })
  const schema = schemaFor(url, res.statusCode)
  if (schema !== null) expectSchema(schema, res.json())
  return res
}

/** The seven ledger header names for a prefix, lower-cased as Node delivers them. */
export function headerNames(prefix = 'X-NODE-'): string[] {
  return LEDGER_HEADER_SUFFIXES.map((s) => `${prefix}${s}`.toLowerCase())
}

/**
 * A store wrapper whose methods can be made to throw or to answer `null`, for the 500 and 503
 * paths. `fail.x = true` makes method `x` throw an error carrying secret internals.
 */
export function faultyStore(inner: LedgerStore): LedgerStore & { fail: Partial<Record<keyof LedgerStore, boolean>>; empty: boolean } {
  const fail: Partial<Record<keyof LedgerStore, boolean>> = {}
  const wrapper = {
    fail,
    empty: false,
    ledgerInfo() {
      if (fail.ledgerInfo) throw new Error('SECRET: disk /var/db corrupted at page 7')
      return wrapper.empty ? null : inner.ledgerInfo()
    },
    transactionByVersion(v: Parameters<LedgerStore['transactionByVersion']>[0]) {
      if (fail.transactionByVersion) throw new Error('SECRET: sqlite I/O error')
      return inner.transactionByVersion(v)
    },
    accountTransactions(a: string, s: Parameters<LedgerStore['accountTransactions']>[1], l: number) {
      if (fail.accountTransactions) throw new Error('SECRET: sqlite I/O error')
      return inner.accountTransactions(a, s, l)
    },
    accountSequenceNumber(a: string) {
      if (fail.accountSequenceNumber) throw new Error('SECRET: sqlite I/O error')
      return inner.accountSequenceNumber(a)
    },
    blockByHeight(h: Parameters<LedgerStore['blockByHeight']>[0], w: boolean) {
      if (fail.blockByHeight) throw new Error('SECRET: sqlite I/O error')
      return inner.blockByHeight(h, w)
    },
    appendBlock: (b: BlockJson) => inner.appendBlock(b),
    pruneBelow: (v: Parameters<LedgerStore['pruneBelow']>[0]) => inner.pruneBelow(v),
    close: () => inner.close(),
  }
  return wrapper
}
