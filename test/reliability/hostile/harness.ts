import { ERROR_CODES } from '../../../src/api/plumbing/error-map.js'
import { createServer, type ReadApiServer } from '../../../src/api/index.js'
import { LEDGER_HEADER_SUFFIXES } from '../../../src/api/ledger-headers.js'
import { MemoryStore } from '../../../src/ledger/memory-store.js'
import type { BlockJson, UserTransactionJson } from '../../../src/ledger/store/types.js'
import { validatorOf } from '../../helpers/api-schemas.js'
import { schemaFor } from '../../helpers/api-server.js'
import { addr, ChainBuilder } from '../../helpers/chain-builder.js'
import { ROOT } from '../../helpers/cli-child.js'
import { HOSTILE_REQUESTS } from '../../budget.js'

/**
 * Hostile requests per endpoint: `HOSTILE_REQUESTS` (see test/budget.ts: 10 × FC_NUM_RUNS, so
 * 1,000 by default; `npm run test:deep` sends 10,000). Each is followed by a valid request whose
 * answer must be unchanged. The seed is fixed, so a smaller budget sends a prefix of the same
 * requests.
 */
export const REQUESTS = HOSTILE_REQUESTS
/** Fixed seed so every run sends the same requests; FC_SEED overrides it to explore. */
export const SEED = Number(process.env.FC_SEED ?? 20_250_505)
/** The server's URL length limit in these tests (the default). */
export const MAX_URL_LENGTH = 2048

const U64_MAX = 18446744073709551615n
const HEADERS = LEDGER_HEADER_SUFFIXES.map((s) => `x-node-${s.toLowerCase()}`)
const SENDERS = [1, 2, 3, 4]

/** A reply as both `inject` and the raw-socket client see it. */
export interface Reply {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  body: string
}

/** What the oracle predicts for a request target; `body` when it is a 200 with a known body. */
interface Expected {
  status: number
  error_code?: string
  body?: string
}

/**
 * A pruned chain (blocks 40..99 kept of 30..99, so 410s exist) with four senders and orderless
 * transactions, a server over it, and the valid requests with their answers taken before any
 * hostile request.
 */
export class HostileFixture {
  readonly blocks: BlockJson[]
  readonly kept: BlockJson[]
  readonly store: MemoryStore
  readonly oldestVersion: bigint
  readonly ledgerVersion: bigint
  readonly ledgerHeaders: Record<string, string> = {}
  /** Sequence-number txns of each sender (canonical address), pruned ones included, by sequence number. */
  readonly byAccount = new Map<string, UserTransactionJson[]>()
  valid: { url: string; reply: Reply }[] = []
  estimateBody = ''
  ledgerBody = ''
  private constructor(readonly server: ReadApiServer, store: MemoryStore, blocks: BlockJson[], kept: BlockJson[]) {
    this.server = server
    this.store = store
    this.blocks = blocks
    this.kept = kept
    this.oldestVersion = BigInt((kept[0] as BlockJson).first_version)
    this.ledgerVersion = BigInt((kept[kept.length - 1] as BlockJson).last_version)
    for (const b of blocks) {
      for (const t of b.transactions) {
        if (t.type !== 'user_transaction' || (t.replay_protection_nonce ?? null) !== null) continue
        const list = this.byAccount.get(t.sender) ?? []
        list.push(t)
        this.byAccount.set(t.sender, list)
      }
    }
  }

  static async create(): Promise<HostileFixture> {
    const chain = new ChainBuilder({ height: 30, version: 3000 })
    const blocks = chain.blocks(70, (i) => [
      { sender: SENDERS[i % 4] as number, gas_unit_price: 100 + (i % 7) * 10 },
      { sender: 9, nonce: i },
      { sender: SENDERS[(i + 1) % 4] as number, gas_unit_price: 150 },
    ])
    const store = new MemoryStore()
    for (const b of blocks) store.appendBlock(b)
    const kept = blocks.slice(10)
    store.pruneBelow(BigInt((kept[0] as BlockJson).first_version))
    const server = await createServer({ store, maxUrlLength: MAX_URL_LENGTH })
    const fx = new HostileFixture(server, store, blocks, kept)
    const tip = kept[kept.length - 1] as BlockJson
    fx.valid = []
    for (const url of [
      '/v1/estimate_gas_price',
      `/v1/transactions/by_version/${tip.last_version}`,
      `/v1/accounts/${addr(2)}/transactions?limit=7`,
      `/v1/blocks/by_height/${tip.block_height}?with_transactions=true`,
      '/v1',
      `/v1/transactions/by_version/${fx.oldestVersion - 1n}`,
      `/v1/accounts/0x1/transactions?start=0`,
    ]) {
      const res = await server.fastify.inject({ method: 'GET', url })
      fx.valid.push({ url, reply: { status: res.statusCode, headers: res.headers, body: res.body } })
    }
    const first = fx.valid[0]?.reply as Reply
    for (const h of HEADERS) fx.ledgerHeaders[h] = String(first.headers[h])
    fx.estimateBody = first.body
    fx.ledgerBody = (fx.valid[4]?.reply as Reply).body
    return fx
  }

  /** Sends `url` with `inject`: the target a WHATWG-URL client (browser, fetch, SDK) would send. */
  async inject(url: string): Promise<Reply> {
    const res = await this.server.fastify.inject({ method: 'GET', url })
    return { status: res.statusCode, headers: res.headers, body: res.body }
  }

  /** Checks the valid request `i` (mod the list) still gets exactly its first answer. */
  async checkValid(i: number, after: string): Promise<void> {
    const v = this.valid[i % this.valid.length] as { url: string; reply: Reply }
    const r = await this.inject(v.url)
    if (r.status !== v.reply.status || r.body !== v.reply.body) fail(after, `valid ${v.url} then answered ${r.status} ${r.body.slice(0, 200)}`)
    for (const h of [...HEADERS, 'content-type']) if (r.headers[h] !== v.reply.headers[h]) fail(after, `valid ${v.url} then had ${h}: ${String(r.headers[h])}`)
  }

  /**
   * Every answer: 200/400/404/410/414 (431 and 400 from Node's parser on raw sockets), JSON, the
   * spec's error object with an allowed code and a clean message, the ledger headers, a 200 body
   * valid against its schema; and where the oracle can tell, exactly the status and body it
   * predicts from the target the server received.
   */
  check(url: string, target: string, r: Reply, raw = false): void {
    const parserError = raw && (r.status === 431 || (r.status === 400 && /not valid HTTP/.test(r.body)))
    // The two routes outside the API speak their own formats: the gas page (HTML) and the metrics (text).
    const outside = /^\/(metrics)?\/?$/.exec(target.split(/[?#]/)[0] as string)
    if (outside !== null && r.status === 200) {
      const type = outside[1] === undefined ? /^text\/html/ : /^text\/plain/
      if (!type.test(String(r.headers['content-type']))) fail(url, `content-type ${String(r.headers['content-type'])}`)
      return
    }
    const allowed = parserError || [200, 400, 404, 410, 414].includes(r.status)
    if (!allowed) fail(url, `status ${r.status}: ${r.body.slice(0, 300)}`)
    if (!/^application\/json/.test(String(r.headers['content-type']))) fail(url, `content-type ${String(r.headers['content-type'])}`)
    let body: unknown
    try {
      body = JSON.parse(r.body)
    } catch {
      fail(url, `body is not JSON: ${r.body.slice(0, 200)}`)
    }
    // Node's parser answers before there is a request to read the ledger for.
    if (!parserError) for (const h of HEADERS) if (r.headers[h] !== this.ledgerHeaders[h]) fail(url, `ledger header ${h} is ${String(r.headers[h])}`)
    if (r.status >= 400) {
      if (!validatorOf('AptosError')(body)) fail(url, `not the error object: ${r.body.slice(0, 300)}`)
      const { message, error_code } = body as { message: string; error_code: string }
      if (!(ERROR_CODES as readonly string[]).includes(error_code)) fail(url, `error_code ${error_code}`)
      if (message.length > 300) fail(url, `message of ${message.length} characters`)
      if (/\n|\bat \S+ \(|:\d+:\d+\)?$|node_modules|\.(?:ts|js|mjs|cjs):\d+|file:\/\//.test(message) || message.includes(ROOT)) fail(url, `message leaks internals: ${message}`)
    } else {
      const schema = schemaFor(target.split(/[?#]/)[0] as string, 200)
      if (schema !== null && !validatorOf(schema)(body)) fail(url, `200 body fails ${schema}: ${r.body.slice(0, 300)}`)
    }
    const expected = parserError ? undefined : this.expect(target)
    if (expected === undefined) return
    if (r.status !== expected.status) fail(url, `status ${r.status}, oracle says ${expected.status} (${expected.error_code ?? ''}): ${r.body.slice(0, 300)}`)
    if (expected.error_code !== undefined && (body as { error_code?: string }).error_code !== expected.error_code) fail(url, `error_code ${(body as { error_code?: string }).error_code}, oracle says ${expected.error_code}`)
    if (expected.body !== undefined && r.body !== expected.body) fail(url, `body differs from the oracle's: ${r.body.slice(0, 300)}`)
  }

  /**
   * The reference: what the server must answer for a target, worked out from the chain itself
   * (not the store) by plain rules. `undefined` where the router's own decoding decides
   * (encoded static parts, `#`, doubled or trailing slashes beyond one, very long parameters).
   */
  expect(target: string): Expected | undefined {
    if (target.length > MAX_URL_LENGTH) return { status: 414, error_code: 'web_framework_error' }
    if (target.includes('#')) return undefined
    const q = target.indexOf('?')
    const path = q === -1 ? target : target.slice(0, q)
    const query = parseQuery(q === -1 ? '' : target.slice(q + 1))
    if (path === '/v1' || path === '/v1/') return { status: 200, body: this.ledgerBody }
    if (path === '/v1/estimate_gas_price' || path === '/v1/estimate_gas_price/') return { status: 200, body: this.estimateBody }
    let m = /^\/v1\/transactions\/by_version\/([^/]+)\/?$/.exec(path)
    if (m) return param(m[1] as string, parseU64Text, (v) => this.byVersion(v))
    m = /^\/v1\/blocks\/by_height\/([^/]+)\/?$/.exec(path)
    if (m) return param(m[1] as string, parseU64Text, (h) => queryParams(query, { with_transactions: parseBool }, (p) => this.byHeight(h, p.with_transactions === true)))
    m = /^\/v1\/accounts\/([^/]+)\/transactions\/?$/.exec(path)
    if (m) return param(m[1] as string, parseAddressText, (a) => queryParams(query, { start: parseU64Text, limit: parseU16Text }, (p) => this.account(a, p.start as bigint | undefined, p.limit as number | undefined)))
    return undefined
  }

  private byVersion(v: bigint): Expected {
    if (v > this.ledgerVersion) return { status: 404, error_code: 'transaction_not_found' }
    if (v < this.oldestVersion) return { status: 410, error_code: 'version_pruned' }
    for (const b of this.kept) {
      if (v <= BigInt(b.last_version)) return { status: 200, body: JSON.stringify(b.transactions[Number(v - BigInt(b.first_version))]) }
    }
    throw new Error('unreachable')
  }

  private byHeight(h: bigint, withTransactions: boolean): Expected {
    const oldest = BigInt((this.kept[0] as BlockJson).block_height)
    if (h > oldest + BigInt(this.kept.length) - 1n) return { status: 404, error_code: 'block_not_found' }
    if (h < oldest) return { status: 410, error_code: 'block_pruned' }
    const b = this.kept[Number(h - oldest)] as BlockJson
    const { transactions, ...header } = b
    return { status: 200, body: JSON.stringify({ ...header, transactions: withTransactions ? transactions : null }) }
  }

  /** Aptos account listing: page [start, start + limit) of retained txns; pruned `start` → 410; no start → the latest `limit`. */
  private account(address: string, start: bigint | undefined, limit: number | undefined): Expected {
    if (limit === 0) return { status: 400, error_code: 'invalid_input' }
    const n = BigInt(Math.min(limit ?? 25, 100))
    const all = this.byAccount.get(address) ?? []
    const next = BigInt(all.length)
    const from = start ?? (next > n ? next - n : 0n)
    const retained = (t: UserTransactionJson) => BigInt(t.version) >= this.oldestVersion
    if (start !== undefined && start < next && !retained(all[Number(start)] as UserTransactionJson)) return { status: 410, error_code: 'version_pruned' }
    const page = all.filter((t) => retained(t) && BigInt(t.sequence_number) >= from && BigInt(t.sequence_number) < from + n)
    return { status: 200, body: JSON.stringify(page) }
  }
}

function fail(url: string, what: string): never {
  throw new Error(`${JSON.stringify(url.length > 300 ? `${url.slice(0, 300)}…(${url.length})` : url)}: ${what}`)
}

const BAD_PARAM: Expected = { status: 400, error_code: 'web_framework_error' }

/** A path parameter: malformed percent-encoding or a value that does not parse → 400, else `then`. */
function param<T>(raw: string, parse: (s: string) => T | undefined, then: (v: T) => Expected | undefined): Expected | undefined {
  // The router measures the length after its own partial decoding: leave long ones to the generic checks.
  if (raw.length > 400) return undefined
  let text: string
  try {
    text = decodeURIComponent(raw)
  } catch {
    return BAD_PARAM
  }
  const value = parse(text)
  return value === undefined ? BAD_PARAM : then(value)
}

/** Declared query parameters: a repeated or unparsable one → 400, else `then` with the parsed values. */
function queryParams(query: Map<string, string[]>, spec: Record<string, (s: string) => unknown>, then: (values: Record<string, unknown>) => Expected): Expected {
  const values: Record<string, unknown> = {}
  for (const [name, parse] of Object.entries(spec)) {
    const given = query.get(name)
    if (given === undefined) continue
    if (given.length !== 1) return BAD_PARAM
    const v = parse(given[0] as string)
    if (v === undefined) return BAD_PARAM
    values[name] = v
  }
  return then(values)
}

/** `a=b&c` as a form query: `+` is a space, keys and values percent-decoded when well-formed. */
function parseQuery(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  if (text === '') return out
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=')
    const decode = (s: string) => {
      const spaced = s.replace(/\+/g, ' ')
      try {
        return decodeURIComponent(spaced)
      } catch {
        return spaced
      }
    }
    const key = decode(eq === -1 ? pair : pair.slice(0, eq))
    if (eq === -1 && key === '') continue
    const list = out.get(key) ?? []
    list.push(decode(eq === -1 ? '' : pair.slice(eq + 1)))
    out.set(key, list)
  }
  return out
}

function parseU64Text(s: string): bigint | undefined {
  return /^[0-9]{1,20}$/.test(s) && BigInt(s) <= U64_MAX ? BigInt(s) : undefined
}

function parseU16Text(s: string): number | undefined {
  return /^[0-9]{1,5}$/.test(s) && Number(s) <= 65535 ? Number(s) : undefined
}

function parseBool(s: string): boolean | undefined {
  return s === 'true' ? true : s === 'false' ? false : undefined
}

function parseAddressText(s: string): string | undefined {
  const hex = /^0x([0-9a-fA-F]{1,64})$/.exec(s)?.[1] ?? (/^[0-9a-fA-F]{64}$/.test(s) ? s : undefined)
  return hex === undefined ? undefined : `0x${hex.toLowerCase().padStart(64, '0')}`
}

/** The target `inject` delivers for `url`: WHATWG-normalized path (dot segments, encoding) and query, no fragment. */
export function injectTarget(url: string): string {
  // As light-my-request reads it: `//x` is a path on localhost, not a host.
  const u = url.startsWith('//') ? new URL(`http://localhost${url}`) : new URL(url, 'http://localhost')
  return `${u.pathname}${u.search}`
}

/** Snapshot of `Object.prototype`'s own keys, to prove no request polluted it. */
export function prototypeKeys(): string {
  return Object.getOwnPropertyNames(Object.prototype).sort().join(',') + `|${String(({} as Record<string, unknown>).polluted)}`
}
