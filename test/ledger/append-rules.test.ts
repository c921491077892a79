import { describe, expect, it } from 'vitest'
import { LinePacker } from '../../src/ledger/memory/pack-line.js'
import { ReadTxnFields } from '../../src/ledger/read/txn-fields.js'
import { checkBlock, checkSequenceNumbers } from '../../src/ledger/store/append-rules.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'

/** `checkBlock` of the skeleton refuses as that of the parsed block does, or checks to the same entries. */
function expectSameAnswer(skeleton: BlockJson, parsed: BlockJson): void {
  let refusal: Error | undefined
  try {
    checkBlock(parsed)
  } catch (error) {
    refusal = error as Error
  }
  if (refusal === undefined) expect(checkBlock(skeleton).entries).toEqual(checkBlock(parsed).entries)
  else expect(() => checkBlock(skeleton)).toThrowError(refusal.message)
}

/** A valid block whose user transaction (its second) has `sender` as given, as a chain file's line. */
function lineWithSender(sender: unknown): Buffer {
  const block = new ChainBuilder({ height: 3, version: 10 }).block({ users: [{ sender: 1 }] }) as unknown as BlockJson
  ;(block.transactions[1] as unknown as Record<string, unknown>).sender = sender
  return Buffer.from(JSON.stringify(block))
}

describe('checkBlock with a reader’s proofs', () => {
  it('a sender the packer read as lowercase hex is taken as it is; any other is checked as in a parsed block', () => {
    const packer = new LinePacker()
    const senders = [addr(1), '0x414343554d554c41544f525f504c414345484f4c4445525f4841534800000000', addr(1).toUpperCase().replace('0X', '0x'), `${addr(1)}0`, addr(1).slice(0, 20), '0x0000000g', 'nothex']
    for (const sender of senders) {
      const line = lineWithSender(sender)
      const read = packer.pack(line)
      expect(read).toBeDefined()
      const skeleton = (read as { skeleton: BlockJson }).skeleton
      expectSameAnswer(skeleton, JSON.parse(line.toString('utf8')) as BlockJson)
    }
  })

  it('a transaction the packer reuses for the next line carries no proof of the sender read before it', () => {
    const packer = new LinePacker()
    const first = packer.pack(lineWithSender(addr(7))) as { skeleton: BlockJson }
    expect((first.skeleton.transactions[1] as unknown as ReadTxnFields).senderIsLowerHex).toBe(true)
    const line = lineWithSender('0xZZ')
    const again = packer.pack(line) as { skeleton: BlockJson }
    expect((again.skeleton.transactions[1] as unknown as ReadTxnFields).senderIsLowerHex).toBe(false)
    expect(() => checkBlock(again.skeleton)).toThrowError(/transactions\[1\]\.sender/)
  })

  it('a version the packer read as a decimal is checked by its value, to the answer of a parsed block, and no proof outlives its line', () => {
    const packer = new LinePacker()
    const block = new ChainBuilder({ height: 3, version: 10 }).block({ users: [{ sender: 1 }] }) as unknown as BlockJson
    for (const version of ['11', '12', '011', '9007199254740991', '18446744073709551615', '1e1', 11]) {
      const changed = JSON.parse(JSON.stringify(block)) as BlockJson
      ;(changed.transactions[1] as unknown as Record<string, unknown>).version = version
      const line = Buffer.from(JSON.stringify(changed))
      const read = packer.pack(line) as { skeleton: BlockJson } | undefined
      if (read === undefined) continue
      const txn = read.skeleton.transactions[1] as unknown as ReadTxnFields
      expect(txn.versionValue).toBe(version === '11' || version === '12' || version === '9007199254740991' ? Number(version) : -1)
      expectSameAnswer(read.skeleton, JSON.parse(line.toString('utf8')) as BlockJson)
    }
    const fields = new ReadTxnFields()
    fields.readVersion('11', 11)
    fields.clear()
    expect(fields.versionValue).toBe(-1)
  })

  it('versions that cross 2^53 are held to first_version + index exactly, parsed or read by the packer', () => {
    // The expected version was once first_version + index in doubles: past 2^53 − 1 it rounded, and a valid block was refused.
    for (const start of [9007199254740989n, 9007199254740991n, 18446744073709551610n]) {
      const block = new ChainBuilder({ version: start }).block({ users: [{ sender: 1 }, { sender: 2 }, { sender: 3 }] }) as unknown as BlockJson
      expect(() => checkBlock(block)).not.toThrow()
      const read = new LinePacker().pack(Buffer.from(JSON.stringify(block))) as { skeleton: BlockJson }
      expect(checkBlock(read.skeleton).entries).toEqual(checkBlock(block).entries)
      // One version off is refused, naming the version it must be.
      const off = JSON.parse(JSON.stringify(block)) as BlockJson
      ;(off.transactions[4] as unknown as Record<string, unknown>).version = String(start + 5n)
      expect(() => checkBlock(off)).toThrowError(`transactions[4].version: must be "${start + 4n}" (first_version + 4), got "${start + 5n}"`)
    }
  })

  it('a parsed transaction cannot claim a proof: only a reader’s objects carry one', () => {
    const block = JSON.parse(lineWithSender(`0x${'G'.repeat(64)}`).toString('utf8')) as BlockJson
    ;(block.transactions[1] as unknown as Record<string, unknown>).senderIsLowerHex = true
    expect(() => checkBlock(block)).toThrowError(/transactions\[1\]\.sender.*must be an address/)
    const wrong = JSON.parse(lineWithSender(addr(1)).toString('utf8')) as BlockJson
    ;(wrong.transactions[1] as unknown as Record<string, unknown>).version = '12'
    ;(wrong.transactions[1] as unknown as Record<string, unknown>).versionValue = 11
    expect(() => checkBlock(wrong)).toThrowError(/transactions\[1\]\.version.*must be "11"/)
  })
})

describe('checkSequenceNumbers', () => {
  /** The rule as written: a map of each sender's next sequence number, asked of the ledger once per sender. */
  function reference(block: BlockJson, ledger: Map<string, number>): Map<string, number> | string {
    const next = new Map<string, number>()
    for (const [i, t] of block.transactions.entries()) {
      const txn = t as unknown as Record<string, string>
      if (txn.type !== 'user_transaction') continue
      const seq = Number(txn.sequence_number)
      const expected = next.get(txn.sender as string) ?? ledger.get(txn.sender as string)
      if (expected !== undefined && seq !== expected) return `transactions[${i}].sequence_number`
      next.set(txn.sender as string, seq + 1)
    }
    return next
  }

  it('answers as the rule does for small blocks and large, with senders repeated, in order or not', () => {
    for (const users of [3, 16, 17, 40]) {
      for (const shift of [0, 1, -1]) {
        const chain = new ChainBuilder({ height: 3, version: 10 })
        const block = chain.block({ users: Array.from({ length: users }, (_, i) => ({ sender: 1 + (i % 5) })) }) as unknown as BlockJson
        // Moves one repeated sender's number off its sequence, when asked.
        const last = block.transactions[users] as unknown as Record<string, string>
        if (Number(last.sequence_number) + shift < 0) continue
        last.sequence_number = String(Number(last.sequence_number) + shift)
        const ledger = new Map([[addr(2), 0]])
        const expected = reference(block, ledger)
        const asked: string[] = []
        let answer: Map<string, number> | string
        try {
          answer = checkSequenceNumbers(checkBlock(block), (a) => (asked.push(a), ledger.get(a))) as Map<string, number>
        } catch (error) {
          answer = (error as { field: string }).field
        }
        expect(answer, `${users} users, shift ${shift}`).toEqual(expected)
        if (typeof answer !== 'string') expect([...answer.keys()]).toEqual([...(expected as Map<string, number>).keys()])
        // The ledger is asked for each sender's first transaction only, in block order.
        expect(asked).toEqual([...new Set(asked)])
      }
    }
  })
})
