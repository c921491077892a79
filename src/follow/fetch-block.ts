import { parseU64 } from '../core/u64.js'
import type { BlockJson } from '../ledger/store/types.js'
import { NodeResponseError } from './errors.js'
import type { NodePosition } from './ledger-info.js'
import type { NodeAnswer, NodeClient } from './node-client.js'

/** What became of a block request. */
export type BlockOutcome =
  /** The block with all its transactions; `pages` counts the extra `/transactions` requests. */
  | { kind: 'block'; block: BlockJson; position: NodePosition | null; pages: number }
  /** 410: the node pruned it (or some of its transactions). */
  | { kind: 'pruned'; position: NodePosition | null; message: string }
  /** 404 after the retries: the node does not have it. */
  | { kind: 'missing'; position: NodePosition | null; message: string }

export interface FetchBlockOptions {
  /** `limit` of each `/transactions` request; Aptos serves at most 100 per page. */
  pageSize: number
  /** Whether a short block may be completed through `/transactions`; if not, it is an error. */
  pageTransactions: boolean
}

function message(answer: NodeAnswer): string {
  const m = (answer.body as { message?: unknown } | undefined)?.message
  return typeof m === 'string' ? m : `HTTP ${answer.status}`
}

function u64Field(url: string, block: Record<string, unknown>, key: string): bigint {
  const v = block[key]
  const parsed = typeof v === 'string' ? parseU64(v) : undefined
  if (parsed === undefined) throw new NodeResponseError(url, 200, `block ${key} must be a u64 decimal string, got ${JSON.stringify(v) ?? 'nothing'}`)
  return BigInt(parsed)
}

/**
 * Fetches the block at `height` with every transaction: `GET /blocks/by_height/{h}?with_transactions=true`,
 * then, when the node capped the list (`transactions.length < last_version - first_version + 1`,
 * Aptos `max_block_transactions_page_size`), the rest through
 * `GET /transactions?start={v}&limit={n}` page by page, each page checked to start at the version
 * asked for. A node whose blocks come complete (this project's server) is never asked for
 * `/transactions`.
 *
 * @throws NodeResponseError for a body that is not the block asked for, or a short block that
 *   cannot be completed; whatever `client.get` throws.
 */
export async function fetchBlock(client: NodeClient, height: bigint, options: FetchBlockOptions): Promise<BlockOutcome> {
  const answer = await client.get(`/blocks/by_height/${height}?with_transactions=true`, 'retry')
  if (answer.status === 410) return { kind: 'pruned', position: answer.position, message: message(answer) }
  if (answer.status === 404) return { kind: 'missing', position: answer.position, message: message(answer) }
  const url = answer.url
  const body = answer.body
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new NodeResponseError(url, answer.status, 'the body is not a block object')
  const block = body as Record<string, unknown>
  const got = u64Field(url, block, 'block_height')
  if (got !== height) throw new NodeResponseError(url, answer.status, `asked for block ${height}, got block ${got}`)
  const first = u64Field(url, block, 'first_version')
  const last = u64Field(url, block, 'last_version')
  if (last < first) throw new NodeResponseError(url, answer.status, `block ${height}: last_version ${last} is below first_version ${first}`)
  if (!Array.isArray(block.transactions)) throw new NodeResponseError(url, answer.status, `block ${height}: transactions must be an array (with_transactions=true)`)
  const count = last - first + 1n
  const have = BigInt(block.transactions.length)
  if (have > count) throw new NodeResponseError(url, answer.status, `block ${height} has ${have} transactions, more than its versions ${first}..${last} hold`)
  if (have === count) return { kind: 'block', block: body as BlockJson, position: answer.position, pages: 0 }
  if (!options.pageTransactions) {
    throw new NodeResponseError(url, answer.status, `block ${height} came with ${have} of ${count} transactions and paging through /transactions is off`)
  }

  const transactions: unknown[] = [...block.transactions]
  let position = answer.position
  let pages = 0
  while (BigInt(transactions.length) < count) {
    const start = first + BigInt(transactions.length)
    const left = count - BigInt(transactions.length)
    const limit = left < BigInt(options.pageSize) ? left : BigInt(options.pageSize)
    const page = await client.get(`/transactions?start=${start}&limit=${limit}`, 'return')
    pages++
    position = page.position ?? position
    if (page.status === 410) return { kind: 'pruned', position, message: message(page) }
    if (page.status === 404) {
      throw new NodeResponseError(page.url, 404, `block ${height} came with ${block.transactions.length} of ${count} transactions and the node does not serve the rest (${message(page)})`)
    }
    const list = page.body
    if (!Array.isArray(list) || list.length === 0 || BigInt(list.length) > limit) {
      throw new NodeResponseError(page.url, page.status, `expected 1 to ${limit} transactions from version ${start}, got ${Array.isArray(list) ? list.length : 'no array'}`)
    }
    for (let i = 0; i < list.length; i++) {
      const version = (list[i] as { version?: unknown } | null)?.version
      const want = String(start + BigInt(i))
      if (version !== want) throw new NodeResponseError(page.url, page.status, `transaction ${i} has version ${JSON.stringify(version) ?? 'nothing'}, expected "${want}"`)
      transactions.push(list[i])
    }
  }
  return { kind: 'block', block: { ...(body as BlockJson), transactions: transactions as BlockJson['transactions'] }, position, pages }
}
