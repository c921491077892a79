import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { InvalidConfigError } from '../../src/core/errors.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone } from '../helpers/chain-builder.js'
import { describeStoreContract } from './store-contract.js'

describeStoreContract('MemoryStore', (options) => new MemoryStore(options))

describe('MemoryStore.appendBlocks', () => {
  const blocks = new ChainBuilder({ height: 3, version: 9 }).blocks(4, (i) => [{ sender: 1 }, { sender: 2, nonce: i }])

  it('gives each block hash back as appended: lowercase ones kept as bytes, uppercase digits kept as written', () => {
    const store = new MemoryStore()
    const hashes = [`0x${'ab'.repeat(32)}`, `0x${'AB'.repeat(32)}`, `0x${'0f'.repeat(31)}Fa`, `0x${'09'.repeat(32)}`]
    hashes.forEach((hash, i) => store.appendBlock({ ...clone(blocks[i] as BlockJson), block_hash: hash }))
    expect(hashes.map((_, i) => store.blockByHeight(3 + i, false)?.block_hash)).toEqual(hashes)
  })

  it('appends in order and stops at the first refused block, returning its error; the blocks before it stay', () => {
    const store = new MemoryStore()
    const duplicate = clone(blocks[1] as BlockJson)
    const result = store.appendBlocks([blocks[0] as BlockJson, blocks[1] as BlockJson, duplicate, blocks[2] as BlockJson])
    expect(result.appended).toBe(2)
    expect(result.refused).toBeInstanceOf(LedgerContinuityError)
    expect(store.ledgerInfo()?.block_height).toBe(4)
    expect(store.accountSequenceNumber(addr(1))).toBe(2)
    expect(store.appendBlocks([blocks[2] as BlockJson, blocks[3] as BlockJson])).toEqual({ appended: 2 })
    expect(store.ledgerInfo()?.block_height).toBe(6)
  })

  it('names where its blocks came from: the file loaded, else memory', async () => {
    expect(new MemoryStore().path).toBe('memory')
    expect((await MemoryStore.fromJsonLines('data/chain.jsonl')).path).toBe('data/chain.jsonl')
  })
})

describe('MemoryStore.parsedBlockByHeight', () => {
  /** A store loaded from a chain file of the first `lines` of `blocks`, keeping `parsedBlocks` parsed. */
  async function loaded(blocks: readonly BlockJson[], lines: number, parsedBlocks: number): Promise<MemoryStore> {
    const dir = mkdtempSync(join(tmpdir(), 'parsed-blocks-'))
    try {
      const file = join(dir, 'chain.jsonl')
      writeFileSync(file, blocks.slice(0, lines).map((b) => `${JSON.stringify(b)}\n`).join(''))
      return await MemoryStore.fromJsonLines(file, { parsedBlocks })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }

  it('is parseBlockJson of blockByHeight for the newest `parsedBlocks` blocks loaded from lines, undefined for older ones', async () => {
    const blocks = new ChainBuilder().blocks(20, (i) => [{ sender: 1 + (i % 3), gas_unit_price: 100 + i }, { sender: 9, gas_unit_price: 150 }])
    const store = await loaded(blocks, 20, 8)
    // Heights 0 to 19: the newest 8 are 12 to 19.
    for (let h = 0; h < 20; h++) {
      const kept = store.parsedBlockByHeight(h)
      if (h < 12) expect(kept, `height ${h}`).toBeUndefined()
      else expect(kept, `height ${h}`).toEqual(parseBlockJson(store.blockByHeight(h, true)))
    }
    expect(store.parsedBlockByHeight(20)).toBeUndefined()
    expect(store.parsedBlockByHeight(-1)).toBeUndefined()
  })

  it('keeps parsed, while a load of known size runs, the lines near its end only; every line otherwise', () => {
    const blocks = new ChainBuilder().blocks(60, (i) => [{ sender: 1 + (i % 3), gas_unit_price: 100 + i }])
    const lines = blocks.map((b) => Buffer.from(JSON.stringify(b)))
    const store = new MemoryStore({ parsedBlocks: 2 })
    store.expectLoad(lines.reduce((bytes, line) => bytes + line.length + 1, 0))
    for (const line of lines.slice(0, 50)) expect(store.appendJsonLine(line)).toBe(true)
    // Far from the end: more than four times 2 lines of the average length still follow.
    expect(store.parsedBlockByHeight(49)).toBeUndefined()
    for (const line of lines.slice(50, 59)) expect(store.appendJsonLine(line)).toBe(true)
    expect(store.parsedBlockByHeight(57)).toEqual(parseBlockJson(store.blockByHeight(57, true)))
    expect(store.parsedBlockByHeight(58)).toEqual(parseBlockJson(store.blockByHeight(58, true)))
    // The load is over: every line is kept again.
    store.expectLoad(-1)
    const after = new MemoryStore({ parsedBlocks: 2 })
    for (const line of lines.slice(0, 50)) expect(after.appendJsonLine(line)).toBe(true)
    expect(after.parsedBlockByHeight(49)).toEqual(parseBlockJson(after.blockByHeight(49, true)))
    expect(store.appendJsonLine(lines[59] as Buffer)).toBe(true)
    expect(store.parsedBlockByHeight(59)).toEqual(parseBlockJson(store.blockByHeight(59, true)))
  })

  it('keeps nothing for a block appended as an object, drops pruned blocks, and refuses a count that is not a positive integer', async () => {
    const blocks = new ChainBuilder().blocks(12, (i) => [{ sender: 1, gas_unit_price: 100 + i }])
    const store = await loaded(blocks, 10, 4)
    // Heights 0 to 9 from lines (6 to 9 kept), then 10 as an object.
    store.appendBlock(blocks[10] as BlockJson)
    expect(store.parsedBlockByHeight(10)).toBeUndefined()
    expect(store.parsedBlockByHeight(9)).toEqual(parseBlockJson(store.blockByHeight(9, true)))
    expect(store.parsedBlockByHeight(7)).toEqual(parseBlockJson(store.blockByHeight(7, true)))
    // Block 7's slot comes round again with block 11: it is the new block's, not block 7's.
    store.appendBlock(blocks[11] as BlockJson)
    expect(store.parsedBlockByHeight(11)).toBeUndefined()
    expect(store.parsedBlockByHeight(7)).toBeUndefined()
    store.pruneBelow(Number(store.blockByHeight(9, false)?.first_version))
    expect(store.parsedBlockByHeight(8)).toBeUndefined()
    expect(store.parsedBlockByHeight(9)).toEqual(parseBlockJson(store.blockByHeight(9, true)))
    for (const parsedBlocks of [0, -1, 1.5]) expect(() => new MemoryStore({ parsedBlocks })).toThrow(InvalidConfigError)
  })
})
