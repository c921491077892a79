import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { BatchArena } from '../../src/ledger/ingest/batch-arena.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { BatchAppendStore, IngestBlock } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-arena-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** An ingest block carrying only transaction bytes: all the arena reads. */
const blockOf = (...texts: string[]) => ({ checked: {} as IngestBlock['checked'], transactionJson: texts.map((t) => Buffer.from(t, 'utf8')) })
const textsOf = (b: IngestBlock) => b.transactionJson.map((t) => Buffer.from(t).toString('utf8'))

describe('BatchArena', () => {
  it('holds a copy of each transaction: the same bytes, no longer sharing the chunk they were read in', () => {
    const arena = new BatchArena()
    const chunk = Buffer.from('{"a":1}{"b":"x"}', 'utf8')
    const held = arena.hold({ checked: {} as IngestBlock['checked'], transactionJson: [chunk.subarray(0, 7), chunk.subarray(7)] })
    chunk.fill(0)
    expect(textsOf(held)).toEqual(['{"a":1}', '{"b":"x"}'])
  })

  it('copies transactions that lie in one buffer with bytes between them, out of order, or overlapping, each exactly', () => {
    const arena = new BatchArena()
    const line = Buffer.from('[{"a":1},{"b":2},{"c":3}]', 'utf8')
    const [a, b, c] = [line.subarray(1, 8), line.subarray(9, 16), line.subarray(17, 24)]
    const spans = [[a, b, c], [c, a], [a, a], [b, Buffer.from('{"d":4}'), c]].map((transactionJson) => arena.hold({ checked: {} as IngestBlock['checked'], transactionJson }))
    line.fill(0x20)
    expect(spans.map(textsOf)).toEqual([['{"a":1}', '{"b":2}', '{"c":3}'], ['{"c":3}', '{"a":1}'], ['{"a":1}', '{"a":1}'], ['{"b":2}', '{"d":4}', '{"c":3}']])
  })

  it('keeps every block held since the last reset intact, across slabs and for a block larger than a slab', () => {
    const arena = new BatchArena()
    const big = 'x'.repeat(5 << 20)
    const blocks = Array.from({ length: 9 }, (_, i) => blockOf(`${i}${big}`, `{"i":${i}}`))
    const held = blocks.map((b) => arena.hold(b))
    const huge = arena.hold(blockOf('y'.repeat(17 << 20)))
    held.forEach((h, i) => expect(textsOf(h)).toEqual(textsOf(blocks[i] as IngestBlock)))
    expect(huge.transactionJson[0]?.length).toBe(17 << 20)
  })

  it('after a reset, what it holds next is written over the same memory and reads back right', () => {
    const arena = new BatchArena()
    const first = arena.hold(blockOf('{"first":true}'))
    arena.reset()
    const second = arena.hold(blockOf('{"second":1}'))
    expect(textsOf(second)).toEqual(['{"second":1}'])
    expect(second.transactionJson[0]?.buffer).toBe(first.transactionJson[0]?.buffer)
  })
})

describe('ingestJsonLines with a store that commits later', () => {
  it('a batch still committing keeps its bytes while the next batches are read (the arenas take turns)', async () => {
    const blocks: BlockJson[] = new ChainBuilder().blocks(40, (i) => [{ sender: 1 + (i % 3) }, { sender: 7, nonce: i }])
    const inner = SqliteStore.open(join(dir, 'later.db'))
    // Reads the batch's bytes only after the reader has gone on to fill the next batches.
    const store = {
      path: inner.path,
      maxBlockTransactions: inner.maxBlockTransactions,
      ledgerInfo: () => inner.ledgerInfo(),
      blockByHeight: (h: number, t: boolean) => inner.blockByHeight(h, t),
      appendBlocks: (b: readonly BlockJson[]) => inner.appendBlocks(b),
      appendChecked: async (b: readonly IngestBlock[]) => {
        await sleep(5)
        return inner.appendChecked(b)
      },
    } as unknown as BatchAppendStore
    const summary = await ingestJsonLines('-', store, { stdin: Readable.from(blocks.map((b) => `${JSON.stringify(b)}\n`)), batchBlocks: 3 })
    expect(summary.appended).toBe(40)
    for (const b of blocks) for (const t of b.transactions) expect(inner.transactionJsonByVersion(Number(t.version))).toBe(JSON.stringify(t))
    inner.close()
  })

  it('a store that writes each batch before its append returns (SQLite) has every batch filled in one arena: each reads back byte for byte', async () => {
    const blocks: BlockJson[] = new ChainBuilder().blocks(60, (i) => [{ sender: 1 + (i % 5) }, { sender: 9, nonce: i }, { sender: 2 + (i % 3) }])
    const path = join(dir, 'chain.jsonl')
    writeFileSync(path, blocks.map((b) => `${JSON.stringify(b)}\n`).join(''))
    const store = SqliteStore.open(join(dir, 'sync.db'))
    const summary = await ingestJsonLines(path, store, { batchBlocks: 4 })
    expect(summary.appended).toBe(60)
    for (const b of blocks) for (const t of b.transactions) expect(store.transactionJsonByVersion(Number(t.version))).toBe(JSON.stringify(t))
    store.close()
  })
})
