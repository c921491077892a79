import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'

/** One request the fake node saw. */
export interface Seen {
  path: string
  /** Requests for this same path in flight when it arrived (must stay 0: no duplicates). */
  concurrent: number
}

/** A canned answer that replaces the node's for one request, or `undefined` to answer normally. */
export type Fault = (path: string, n: number) => Response | undefined

export interface FakeNodeOptions {
  /** The chain, contiguous heights and versions. */
  blocks: BlockJson[]
  /** Height of the newest block the node has (default: the last of `blocks`). */
  height?: number
  /** Oldest height served (default: the first of `blocks`). */
  oldest?: number
  /** Ledger header prefix; `null` sends none. Default `X-APTOS-`. */
  prefix?: string | null
  /** Most transactions a block response carries (Aptos `max_block_transactions_page_size`). */
  blockPage?: number | undefined
  /** Most transactions a `/transactions` page carries (Aptos max page size 100). */
  txnPage?: number
  /** Whether `GET /transactions` exists (this project's server has no such route). */
  serveTransactions?: boolean
  /** Latency of every answer (ms); abortable. */
  latencyMs?: number
  fault?: Fault
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

/**
 * An Aptos-shaped node behind an injected `fetch`: `GET /v1/`, `/v1/blocks/by_height/{h}` (with
 * its transactions capped at `blockPage`), `/v1/transactions?start&limit`, ledger headers, 404
 * above the height and 410 below the oldest. Records every request.
 */
export class FakeNode {
  height: number
  oldest: number
  readonly seen: Seen[] = []
  readonly #o: FakeNodeOptions
  readonly #byHeight = new Map<number, BlockJson>()
  readonly #byVersion = new Map<number, TransactionJson>()
  readonly #inFlight = new Map<string, number>()
  #n = 0

  constructor(options: FakeNodeOptions) {
    this.#o = options
    for (const b of options.blocks) {
      this.#byHeight.set(Number(b.block_height), b)
      for (const t of b.transactions) this.#byVersion.set(Number(t.version), t)
    }
    this.height = options.height ?? Number(options.blocks.at(-1)?.block_height)
    this.oldest = options.oldest ?? Number(options.blocks[0]?.block_height)
  }

  /** Paths asked for, in order. */
  get paths(): string[] {
    return this.seen.map((s) => s.path)
  }

  /** Requests for the same path that overlapped (must be 0). */
  get duplicates(): number {
    return this.seen.filter((s) => s.concurrent > 0).length
  }

  headers(): Record<string, string> {
    const p = this.#o.prefix === undefined ? 'X-APTOS-' : this.#o.prefix
    if (p === null) return {}
    const epoch = this.#epochOf(this.height)
    return { [`${p}BLOCK-HEIGHT`]: String(this.height), [`${p}OLDEST-BLOCK-HEIGHT`]: String(this.oldest), [`${p}EPOCH`]: epoch, [`${p}CHAIN-ID`]: '4' }
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    const path = `${url.pathname}${url.search}`
    const concurrent = this.#inFlight.get(path) ?? 0
    this.#inFlight.set(path, concurrent + 1)
    this.seen.push({ path, concurrent })
    try {
      const signal = init?.signal ?? undefined
      if (this.#o.latencyMs !== undefined) await abortableDelay(this.#o.latencyMs, signal)
      if (signal?.aborted) throw signal.reason
      return this.#o.fault?.(path, this.#n++) ?? this.#answer(url)
    } finally {
      this.#inFlight.set(path, (this.#inFlight.get(path) ?? 1) - 1)
    }
  }

  #answer(url: URL): Response {
    const h = this.headers()
    const p = url.pathname
    if (p === '/v1/' || p === '/v1') {
      return json(200, { chain_id: 4, epoch: this.#epochOf(this.height), ledger_version: '0', oldest_ledger_version: '0', ledger_timestamp: '0', node_role: 'full_node', oldest_block_height: String(this.oldest), block_height: String(this.height) }, h)
    }
    const m = /^\/v1\/blocks\/by_height\/(\d+)$/.exec(p)
    if (m !== null) {
      const height = Number(m[1])
      if (height > this.height) return json(404, { message: `Block not found by Block height(${height})`, error_code: 'block_not_found' }, h)
      if (height < this.oldest) return json(410, { message: `Block(${height}) has been pruned`, error_code: 'block_pruned' }, h)
      const b = this.#byHeight.get(height) as BlockJson
      const cap = this.#o.blockPage ?? Infinity
      return json(200, { ...b, transactions: b.transactions.slice(0, cap) }, h)
    }
    if (p === '/v1/transactions' && this.#o.serveTransactions !== false) {
      const start = Number(url.searchParams.get('start'))
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), this.#o.txnPage ?? 100)
      const out: TransactionJson[] = []
      for (let v = start; v < start + limit && this.#byVersion.has(v); v++) out.push(this.#byVersion.get(v) as TransactionJson)
      return json(200, out, h)
    }
    return json(404, { message: `Route GET:${p} not found`, error_code: 'web_framework_error' }, h)
  }

  #epochOf(height: number): string {
    const b = this.#byHeight.get(height) as BlockJson
    return (b.transactions.find((t) => t.type === 'block_metadata_transaction') as { epoch: string }).epoch
  }
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }
    function onAbort() {
      clearTimeout(t)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** A JSON answer with a status (for faults). */
export function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return json(status, body, headers)
}
