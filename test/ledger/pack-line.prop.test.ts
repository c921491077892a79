import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkBlock } from '../../src/ledger/store/append-rules.js'
import { LinePacker } from '../../src/ledger/memory/pack-line.js'
import { TxnUnpacker } from '../../src/ledger/memory/txn-unpack.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { fcRuns } from '../budget.js'

const linePacker = new LinePacker()
const unpacker = new TxnUnpacker()
const packBlockLine = (b: Buffer) => linePacker.pack(b)
const unpackJson = (src: Buffer, s: number, e: number) => unpacker.json(src, s, e)


const NUM_RUNS = fcRuns()

function outcome(fn: () => unknown): string {
  try {
    fn()
    return 'ok'
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`
  }
}

/** A change to a valid block's JSON: what a chain file from elsewhere, or a broken one, may hold. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), txn: fc.nat(), key: fc.constantFrom('type', 'version', 'sender', 'sequence_number', 'gas_used', 'gas_unit_price', 'epoch', 'replay_protection_nonce', 'payload', 'block_end_info', 'extra', 'changes'), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('root' as const), key: fc.constantFrom('block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions', 'other'), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('text' as const), from: fc.constantFrom('":"', '","', '":{', '},{', '"0x', 'true', '1', 'a'), to: fc.constantFrom('": "', '" , "', '"\\u003a"', '":1.0,"', '\\/', '"x":1,"x":2,"', '\u00e9', '\\u0041', '\\"', '\n') }),
  fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
)

describe('packBlockLine', () => {
  it('whenever it reads a line: JSON.parse accepts it, checkBlock answers alike on the skeleton and the parsed block, and each record unpacks to JSON.stringify of the parsed transaction', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ sender: fc.integer({ min: 1, max: 3 }) }), { maxLength: 4 }), fc.array(edit, { maxLength: 3 }), (users, edits) => {
        const block = new ChainBuilder({ height: 5, version: 30 }).block({ users }) as unknown as Record<string, unknown>
        let bytes = Buffer.from(JSON.stringify(block))
        for (const e of edits) {
          if (e.kind === 'set') {
            const txns = block.transactions
            const txn: unknown = Array.isArray(txns) && txns.length > 0 ? txns[e.txn % txns.length] : undefined
            if (typeof txn === 'object' && txn !== null) (txn as Record<string, unknown>)[e.key] = e.value
            bytes = Buffer.from(JSON.stringify(block))
          } else if (e.kind === 'root') {
            block[e.key] = e.value
            bytes = Buffer.from(JSON.stringify(block))
          } else if (e.kind === 'text') bytes = Buffer.from(bytes.toString('utf8').replace(e.from, e.to))
          else bytes[e.at % bytes.length] = e.byte
        }
        const read = packBlockLine(bytes)
        if (read === undefined) return
        const parsed = JSON.parse(bytes.toString('utf8')) as BlockJson
        expect(outcome(() => checkBlock(read.skeleton))).toBe(outcome(() => checkBlock(parsed)))
        const txns: unknown[] = Array.isArray(parsed.transactions) ? parsed.transactions : []
        expect(read.ends.length).toBe(txns.length)
        txns.forEach((t, i) => expect(unpackJson(read.packed, i === 0 ? 0 : (read.ends[i - 1] as number), read.ends[i] as number)).toBe(JSON.stringify(t)))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('the skeleton holds the senders JSON.parse reads, for hex texts that share their first digits, of even or odd length, read one after another', () => {
    // One packer for every line: a sender it read before is given back as the string it made then.
    const packer = new LinePacker()
    const sender = fc.tuple(fc.integer({ min: 4, max: 64 }), fc.array(fc.constantFrom('0', '1', 'f'), { minLength: 64, maxLength: 64 })).map(([n, ds]) => `0xabcd${ds.join('')}`.slice(0, 2 + n))
    fc.assert(
      fc.property(fc.array(fc.array(sender, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), (blocks) => {
        for (const senders of blocks) {
          const block = new ChainBuilder({ height: 1, version: 1 }).block({ users: senders.map((_, i) => ({ sender: i + 1 })) }) as unknown as BlockJson
          let u = 0
          for (const t of block.transactions) if (t.type === 'user_transaction') (t as { sender: string }).sender = senders[u++] as string
          const bytes = Buffer.from(JSON.stringify(block))
          const read = packer.pack(bytes)
          expect(read).toBeDefined()
          const of = (b: BlockJson) => b.transactions.filter((t) => t.type === 'user_transaction').map((t) => (t as { sender?: string }).sender)
          expect(of((read as { skeleton: BlockJson }).skeleton)).toEqual(senders)
        }
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('reads the node’s block JSON, and leaves lines it cannot read exactly to the full parser', () => {
    const block = new ChainBuilder({ height: 1, version: 1 }).block({ users: [{ sender: 1 }, { sender: 2, nonce: 5 }] })
    expect(packBlockLine(Buffer.from(JSON.stringify(block)))).toBeDefined()
    expect(packBlockLine(Buffer.from(JSON.stringify(block, null, 2)))).toBeDefined()
    for (const line of ['{"block_height":"1","block_height":"2"}', '[1]', '{"transactions":[{"a":1.5}]}', '{"transactions":[1]}', '{"block_height":"\\u0031"}', '{"a":1} x']) {
      expect(packBlockLine(Buffer.from(line))).toBeUndefined()
    }
    expect(packBlockLine(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).toBeUndefined() // not UTF-8
  })

  it('leaves a line that ends inside a hex string to the full parser (a truncated last line)', () => {
    // The hex loop once read past the end of such a line and never stopped.
    for (const line of ['{"transactions":[{"hash":"0x12345678', '{"transactions":[{"hash":"0x123456789', '{"transactions":[{"hash":"0x']) {
      expect(packBlockLine(Buffer.from(line))).toBeUndefined()
    }
  })
})
