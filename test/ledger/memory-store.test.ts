import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { LedgerContinuityError } from '../../src/ledger/store/errors.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone } from '../helpers/chain-builder.js'
import { describeStoreContract } from './store-contract.js'

describeStoreContract('MemoryStore', (options) => new MemoryStore(options))

describe('MemoryStore.appendBlocks', () => {
  const blocks = new ChainBuilder({ height: 3, version: 9 }).blocks(4, (i) => [{ sender: 1 }, { sender: 2, nonce: i }])

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
