import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from '../../../../src/api/index.js'
import { encodeChain, type EncodedChain } from '../../../../src/follow/stream/encode-chain.js'
import type { LedgerStore } from '../../../../src/ledger/store/store.js'
import type { BlockJson } from '../../../../src/ledger/store/types.js'

export const ROOT = join(import.meta.dirname, '../../../..')
/** The bundled sample chain, as `ledger-gas ingest --input` reads it. */
export const SAMPLE = join(ROOT, 'data/chain.jsonl')

let blocksCache: BlockJson[] | undefined
let chainCache: EncodedChain | undefined

/** The sample chain's blocks (`count` of them from the start, default all) and their stream form (only those encoded). */
export function sampleChain(count?: number): { blocks: BlockJson[]; chain: EncodedChain } {
  blocksCache ??= readFileSync(SAMPLE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as BlockJson)
  if (count === undefined) {
    chainCache ??= encodeChain(blocksCache)
    return { blocks: blocksCache, chain: chainCache }
  }
  const blocks = blocksCache.slice(0, count)
  return { blocks, chain: encodeChain(blocks) }
}

/**
 * The read API answers of a ledger, through Fastify: the index, each block with its
 * transactions (so every transaction's bytes), every tenth transaction by version, each
 * sender's transactions, the gas estimate.
 * Ledger headers that carry the wall clock are left out.
 */
export async function readApiAnswers(store: LedgerStore, blocks: readonly BlockJson[]): Promise<Map<string, string>> {
  const server = await createServer({ store, logger: false })
  const urls = ['/v1', '/v1/estimate_gas_price']
  const senders = new Set<string>()
  for (const b of blocks) {
    urls.push(`/v1/blocks/by_height/${b.block_height}?with_transactions=true`)
    for (const t of b.transactions) {
      if (BigInt(t.version) % 10n === 0n) urls.push(`/v1/transactions/by_version/${t.version}`)
      const sender = (t as { sender?: string }).sender
      if (sender !== undefined) senders.add(sender)
    }
  }
  for (const s of senders) urls.push(`/v1/accounts/${s}/transactions?limit=100`)
  const answers = new Map<string, string>()
  try {
    for (const url of urls) {
      const res = await server.fastify.inject({ method: 'GET', url })
      answers.set(url, `${res.statusCode} ${res.headers['x-node-ledger-version'] ?? ''} ${res.body}`)
    }
  } finally {
    await server.close()
  }
  return answers
}
