import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { ingestBlockOfLine } from '../../src/ledger/ingest/ingest-block.js'
import { BlockScanner } from '../../src/ledger/read/block-scanner.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-sqlite-bulk-'))
let n = 0
const dbPath = () => join(dir, `ledger-${n++}.db`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const blocks = new ChainBuilder({ height: 10, version: 100 }).blocks(8, (i) => [{ sender: 1 }, { sender: 2 }, { sender: 3, nonce: i }])
const KEY_BIAS = 1n << 63n

/** Every JSON text a store gives equals JSON.stringify of its parsed answer, byte for byte. */
function expectJsonReadsExact(s: SqliteStore): void {
  const info = s.ledgerInfo()
  if (info === null) throw new Error('empty ledger')
  for (let v = Number(info.oldest_ledger_version); v <= Number(info.ledger_version); v++) {
    const text = s.transactionJsonByVersion(v)
    expect(text).toBe(JSON.stringify(s.transactionByVersion(v)))
  }
  for (const who of [1, 2, 3].map(addr)) {
    const texts = s.accountTransactionsJson(who, 0, 100)
    expect(texts).toEqual(s.accountTransactions(who, 0, 100).map((t) => JSON.stringify(t)))
  }
}

describe('SqliteStore bulk appends', () => {
  it('appendBlocks: a block refused mid-batch writes nothing of itself; the blocks before it commit; a rerun from it appends the rest', () => {
    const s = SqliteStore.open(dbPath())
    try {
      const bad = clone(blocks[3] as BlockJson)
      ;(bad.transactions[2] as { sequence_number: string }).sequence_number = '9'
      const result = s.appendBlocks([blocks[0], blocks[1], blocks[2], bad, blocks[4]] as BlockJson[])
      expect(result.appended).toBe(3)
      expect(result.refused).toBeInstanceOf(LedgerContinuityError)
      expect(s.ledgerInfo()?.block_height).toBe(12)
      expect(s.transactionByVersion(Number(bad.first_version))).toBeNull()
      expect(s.accountSequenceNumber(addr(2))).toBe(3)
      expect(s.appendBlocks(blocks.slice(3))).toEqual({ appended: 5 })
      expect(s.ledgerInfo()?.block_height).toBe(17)
      expect(s.accountSequenceNumber(addr(2))).toBe(8)
    } finally {
      s.close()
    }
  })

  it('a write that fails mid-batch (not a rule) rolls back the whole batch and the caches; the same batch appends once it can', () => {
    const path = dbPath()
    const s = SqliteStore.open(path)
    const other = new Database(path)
    try {
      s.appendBlocks(blocks.slice(0, 2))
      const failing = BigInt((blocks[3] as BlockJson).first_version) + 1n - KEY_BIAS
      other.exec(`CREATE TRIGGER no_write BEFORE INSERT ON transactions WHEN NEW.version = ${failing} BEGIN SELECT RAISE(ABORT, 'disk says no'); END`)
      expect(() => s.appendBlocks(blocks.slice(2, 6))).toThrow(/disk says no/)
      expect(s.ledgerInfo()?.block_height).toBe(11)
      expect(s.accountSequenceNumber(addr(1))).toBe(2)
      expect(s.blockByHeight(12, false)).toBeNull()
      other.exec('DROP TRIGGER no_write')
      expect(s.appendBlocks(blocks.slice(2, 6))).toEqual({ appended: 4 })
      expect(s.accountSequenceNumber(addr(1))).toBe(6)
      expectJsonReadsExact(s)
    } finally {
      other.close()
      s.close()
    }
  })

  it('readers and another writer on other connections see appends and prunes through their cached ledger info, tip and senders', () => {
    const path = dbPath()
    const a = SqliteStore.open(path)
    const b = SqliteStore.open(path)
    const reader = SqliteStore.open(path, { readonly: true })
    try {
      a.appendBlocks(blocks.slice(0, 2))
      expect(reader.ledgerInfo()?.block_height).toBe(11)
      expect(b.ledgerInfo()?.block_height).toBe(11)
      // b's cached tip and senders are from before a's next append: it must not reuse them.
      b.appendBlock(blocks[2] as BlockJson)
      a.appendBlock(blocks[3] as BlockJson)
      expect(() => b.appendBlock(blocks[3] as BlockJson)).toThrow(LedgerContinuityError)
      b.appendBlock(blocks[4] as BlockJson)
      expect(reader.ledgerInfo()).toMatchObject({ block_height: 14, oldest_block_height: 10 })
      expect(reader.accountSequenceNumber(addr(2))).toBe(5)
      a.pruneBelow(Number((blocks[2] as BlockJson).first_version))
      expect(reader.ledgerInfo()).toMatchObject({ block_height: 14, oldest_block_height: 12 })
      expect(b.ledgerInfo()).toEqual(a.ledgerInfo())
    } finally {
      reader.close()
      b.close()
      a.close()
    }
  })
})

describe('SqliteStore JSON text reads', () => {
  const odd = new ChainBuilder({ height: 1, version: 1 }).blocks(3, () => [{ sender: 1 }, { sender: 2 }])
  // Values JSON.stringify escapes, and non-ASCII text: the stored bytes must read back as it writes them.
  const user = odd[1]?.transactions[1] as TransactionJson & { vm_status: string }
  user.vm_status = 'quote " backslash \\ tab \t nul \u0000 é 😀 \u2028'

  it('are JSON.stringify of the parsed answers exactly, for appended blocks', () => {
    const s = SqliteStore.open(dbPath())
    try {
      s.appendBlocks(odd)
      expect(s.transactionJsonByVersion(Number(user.version))).toBe(JSON.stringify(user))
      expectJsonReadsExact(s)
    } finally {
      s.close()
    }
  })

  it('are JSON.stringify of the parsed answers exactly for an ingested file, whether its lines were canonical (bytes kept) or not (spacing, escapes)', async () => {
    const canonicalLine = JSON.stringify(odd[0])
    const spaced = JSON.stringify(odd[1], null, 1).replace(/\n/g, ' ')
    const escaped = JSON.stringify(odd[2]).replace(/"user_transaction"/g, '"user\\u005ftransaction"').replace(/"version"/, '"vers\\u0069on"')
    const file = join(dir, 'odd.jsonl')
    writeFileSync(file, `${canonicalLine}\n${spaced}\n${escaped}\n`)
    const kept = ingestBlockOfLine(file, 1, Buffer.from(canonicalLine), 100, new BlockScanner())
    // The canonical line's transactions are views of the line's own bytes, not new buffers.
    for (const json of kept.transactionJson) expect(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString()).toBe(JSON.stringify(JSON.parse(Buffer.from(json).toString())))
    expect(kept.transactionJson[0]?.buffer).toBe(kept.transactionJson[1]?.buffer)
    const s = SqliteStore.open(dbPath())
    try {
      expect((await ingestJsonLines(file, s)).appended).toBe(3)
      for (const b of odd) for (const t of b.transactions) expect(s.transactionJsonByVersion(Number(t.version))).toBe(JSON.stringify(t))
      expectJsonReadsExact(s)
    } finally {
      s.close()
    }
  })
})
