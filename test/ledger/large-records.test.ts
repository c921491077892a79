import { describe, expect, it } from 'vitest'
import type { BlockJson, UserTransactionJson } from '../../src/ledger/store/types.js'
import { MemoryStore } from '../../src/server.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

// The memory store's packer and decoder work in scratch buffers sized for common transactions
// (64 KiB for a text, 1 MiB for a line) that grow to the longest seen; the decoder's fast path
// sizes its output for the worst case up front, which it does only for records up to 4 MiB /
// (longest dictionary entry + 1), about 79 KB: longer records take the checked decoder, which
// grows its output as it goes. These transactions are far past each of those sizes, so every
// growth and the checked decoder run whatever ran before them in the same worker.

/** One block of the builder with a single user transaction whose payload arguments are `args`. */
function blockWithArguments(args: unknown[]): { block: BlockJson; user: UserTransactionJson } {
  const block = new ChainBuilder({ height: 5, version: 100 }).block({ users: [{ sender: 1 }] })
  const user = block.transactions[1] as UserTransactionJson
  ;(user.payload as { arguments: unknown[] }).arguments = args
  return { block, user }
}

/** Appends `block` to a fresh store, parsed (`appendBlock`) or as a chain-file line (`appendJsonLine`). */
function storeOf(block: BlockJson, how: 'appendBlock' | 'appendJsonLine'): MemoryStore {
  const store = new MemoryStore()
  if (how === 'appendBlock') store.appendBlock(block)
  else expect(store.appendJsonLine(Buffer.from(JSON.stringify(block))), 'the line was packed from its bytes, not left to the parser').toBe(true)
  return store
}

const HOW = ['appendBlock', 'appendJsonLine'] as const

describe('MemoryStore: transactions far past the packer’s and decoder’s scratch sizes', () => {
  it.each(HOW)('%s: a transaction of ~6 MB of JSON packed to ~240 KB of dictionary tokens is given back byte for byte', (how) => {
    // Each argument is one dictionary token (and a comma) for 50 bytes of text: the checked
    // decoder's output outgrows its first estimate many times over.
    const { block, user } = blockWithArguments(Array.from({ length: 120_000 }, () => '0x1::coin::CoinStore<0x1::aptos_coin::AptosCoin>'))
    const text = JSON.stringify(user)
    expect(text.length).toBeGreaterThan(6_000_000)
    const store = storeOf(block, how)
    expect(store.packedBytes).toBeGreaterThan(200_000)
    expect(store.packedBytes).toBeLessThan(text.length / 10)
    expect(store.transactionJsonByVersion(Number(user.version))).toBe(text)
    for (const txn of block.transactions) expect(store.transactionJsonByVersion(Number(txn.version)), `version ${txn.version}`).toBe(JSON.stringify(txn))
  })

  it.each(HOW)('%s: ~2 MB of plain strings, hex past the 2^14-digit token and below it, every byte given back', (how) => {
    const hexLong = `0x${'ab'.repeat(10_000)}`
    const hexShort = `0x${'cd'.repeat(4_000)}`
    const plain = Array.from({ length: 20_000 }, (_, i) => `argument ${i} ${'z'.repeat(90)}`)
    const { block, user } = blockWithArguments([hexLong, ...plain, hexShort, { nested: [hexLong, { deeper: plain.slice(0, 100) }] }])
    const text = JSON.stringify(user)
    expect(text.length).toBeGreaterThan(2_000_000)
    const store = storeOf(block, how)
    // Packed, not kept raw: the hex below 2^14 digits is half its text.
    expect(store.packedBytes).toBeLessThan(JSON.stringify(block.transactions).length)
    expect(store.transactionJsonByVersion(Number(user.version))).toBe(text)
  })

  it.each(HOW)('%s: ~1 MB of non-ASCII strings (the record copies bytes from 0x80 up) is decoded as UTF-8, byte for byte', (how) => {
    const { block, user } = blockWithArguments(Array.from({ length: 10_000 }, (_, i) => `é${i}ü€𝄞 ${'ñ'.repeat(40)} "quoted" \\ back\nslash`))
    const text = JSON.stringify(user)
    expect(Buffer.byteLength(text)).toBeGreaterThan(1_000_000)
    const store = storeOf(block, how)
    expect(store.transactionJsonByVersion(Number(user.version))).toBe(text)
    // A small record after the large ones is read from the grown scratch correctly.
    expect(store.transactionJsonByVersion(Number(block.transactions[0]?.version))).toBe(JSON.stringify(block.transactions[0]))
  })
})
