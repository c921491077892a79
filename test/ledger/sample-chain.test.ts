import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseAddress } from '../../src/ledger/store/address.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson, TransactionJson, UserTransactionJson } from '../../src/ledger/store/types.js'
import { chainLines } from '../../src/sim/index.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-sample-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const BUNDLED = join(import.meta.dirname, '../../data/chain.jsonl')

/** The plain reading of a chain file: every transaction, and each sender's sequence-number txns. */
function reference(path: string) {
  const blocks = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as BlockJson)
  const txns = blocks.flatMap((b) => b.transactions)
  const byAccount = new Map<string, UserTransactionJson[]>()
  for (const t of txns) {
    if (t.type !== 'user_transaction' || (t.replay_protection_nonce ?? null) !== null) continue
    const a = parseAddress(t.sender) as string
    byAccount.set(a, [...(byAccount.get(a) ?? []), t])
  }
  for (const list of byAccount.values()) list.sort((x, y) => (BigInt(x.sequence_number) < BigInt(y.sequence_number) ? -1 : 1))
  const orderlessOnly = [...new Set(txns.filter((t): t is UserTransactionJson => t.type === 'user_transaction' && (t.replay_protection_nonce ?? null) !== null).map((t) => parseAddress(t.sender) as string))].filter((a) => !byAccount.has(a))
  return { blocks, txns, byAccount, orderlessOnly }
}

/** Loads `path` into both stores and checks them against each other and the plain reading. */
async function checkBothStores(path: string, sampleEvery: number): Promise<void> {
  const ref = reference(path)
  const memory = await MemoryStore.fromJsonLines(path)
  const sqlite = SqliteStore.open(join(dir, `${ref.blocks.length}-${sampleEvery}.db`))
  try {
    const summary = await ingestJsonLines(path, sqlite)
    expect(summary.appended).toBe(ref.blocks.length)
    const first = ref.blocks[0] as BlockJson
    const last = ref.blocks[ref.blocks.length - 1] as BlockJson
    const info = memory.ledgerInfo()
    expect(sqlite.ledgerInfo()).toEqual(info)
    expect(info).toMatchObject({ ledger_version: Number(last.last_version), oldest_ledger_version: Number(first.first_version), block_height: Number(last.block_height), oldest_block_height: Number(first.block_height), ledger_timestamp_usec: Number(last.block_timestamp) })

    for (let i = 0; i < ref.txns.length; i += sampleEvery) {
      const t = ref.txns[i] as TransactionJson
      expect(memory.transactionByVersion(Number(t.version))).toEqual(t)
      expect(sqlite.transactionByVersion(Number(t.version))).toEqual(t)
    }
    for (let i = 0; i < ref.blocks.length; i += sampleEvery) {
      const b = ref.blocks[i] as BlockJson
      expect(memory.blockByHeight(Number(b.block_height), true)).toEqual(b)
      expect(sqlite.blockByHeight(Number(b.block_height), true)).toEqual(b)
      expect(sqlite.blockByHeight(Number(b.block_height), false)).toEqual(memory.blockByHeight(Number(b.block_height), false))
    }
    const accounts = [...ref.byAccount.keys()]
    expect(accounts.length).toBeGreaterThan(0)
    for (const a of accounts.filter((_, i) => i % sampleEvery === 0)) {
      const list = ref.byAccount.get(a) as UserTransactionJson[]
      const start = BigInt((list[0] as UserTransactionJson).sequence_number)
      const next = BigInt((list[list.length - 1] as UserTransactionJson).sequence_number) + 1n
      expect(memory.accountSequenceNumber(a)).toEqual(Number(next))
      expect(sqlite.accountSequenceNumber(a)).toEqual(Number(next))
      expect(memory.accountTransactions(a, 0, 1_000_000)).toEqual(list)
      expect(sqlite.accountTransactions(a, 0, 1_000_000)).toEqual(list)
      // The page a node serves without `start`: the last 25.
      const tail = next > 25n ? Number(next - 25n) : 0
      expect(sqlite.accountTransactions(a, tail, 25)).toEqual(memory.accountTransactions(a, tail, 25))
      expect(memory.accountTransactions(a, tail, 25)).toEqual(list.filter((t) => BigInt(t.sequence_number) >= BigInt(tail)))
      expect(sqlite.accountTransactions(a, Number(start) + 1, 2)).toEqual(list.slice(1, 3))
    }
    for (const a of ref.orderlessOnly) {
      expect(memory.accountTransactions(a, 0, 100)).toEqual([])
      expect(sqlite.accountTransactions(a, 0, 100)).toEqual([])
      expect(sqlite.accountSequenceNumber(a)).toBe(0)
    }
  } finally {
    sqlite.close()
  }
}

describe('chains from the generator, in both stores', () => {
  it('a generated chain starting at a pruned height loads into both stores with the same answers as a plain reading', { timeout: 60_000 }, async () => {
    const path = join(dir, 'generated.jsonl')
    writeFileSync(path, [...chainLines({ blocks: 800, seed: 11, accounts: 40, first_height: 1000, first_version: 77_777, scenario: 'mixed' })].join(''))
    await checkBothStores(path, 1)
  })

  it('the bundled data/chain.jsonl loads into both stores with the same answers', { timeout: 300_000 }, async () => {
    await checkBothStores(BUNDLED, 17)
  })
})
