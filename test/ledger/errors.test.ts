import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { InvalidBlockError } from '../../src/core/errors.js'
import { ingestBlockOfLine } from '../../src/ledger/ingest/ingest-block.js'
import { BlockScanner } from '../../src/ledger/read/block-scanner.js'
import { readLineBytes } from '../../src/ledger/read/lines.js'
import { BlockContinuityError, InvalidDataError } from '../../src/ledger/store/errors.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-errors-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The error `run` throws (or rejects with), or a failure naming what was expected. */
async function thrown(run: () => Promise<unknown>): Promise<InvalidDataError> {
  try {
    await run()
  } catch (error) {
    return error as InvalidDataError
  }
  throw new Error('expected an InvalidDataError, got none')
}

describe('InvalidDataError: the parts of its message are fields', () => {
  it('wraps a block error with its field and detail as fields, the error itself as cause, the message as before', () => {
    const cause = new InvalidBlockError('9', 'transactions[1].gas_unit_price', "must be a u64 decimal string, got '1.5'")
    expect(cause.detail).toBe("must be a u64 decimal string, got '1.5'")
    const e = InvalidDataError.at('chain.jsonl', 4, cause)
    expect(e).toMatchObject({ code: 'invalid_data', file: 'chain.jsonl', line: 4, field: 'transactions[1].gas_unit_price', detail: "block 9: must be a u64 decimal string, got '1.5'", cause })
    expect(e.message).toBe("chain.jsonl:4: transactions[1].gas_unit_price: block 9: must be a u64 decimal string, got '1.5'")
  })

  it('wraps a continuity error the same way', () => {
    const cause = new BlockContinuityError('12', 'block_height', 'gap: expected 11')
    const e = InvalidDataError.at('f', 2, cause)
    expect(e).toMatchObject({ field: 'block_height', detail: 'block 12: gap: expected 11', cause })
    expect(e.message).toBe('f:2: block_height: block 12: gap: expected 11')
  })

  it('an ingest read of a bad line throws the file, line, field and detail as fields', async () => {
    const blocks = new ChainBuilder({ height: 3, version: 30 }).blocks(3, () => [{ sender: 1, gas_unit_price: 150 }])
    const lines = blocks.map((b) => JSON.stringify(b))
    lines[1] = (lines[1] as string).replace('"gas_unit_price":"150"', '"gas_unit_price":"1.5"')
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, `${lines.join('\n')}\n`)
    const e = await thrown(async () => {
      const scanner = new BlockScanner()
      for await (const { number, bytes } of readLineBytes(file)) ingestBlockOfLine(file, number, bytes, 100, scanner)
    })
    expect(e).toBeInstanceOf(InvalidDataError)
    expect(e).toMatchObject({ file, line: 2, field: 'transactions[1].gas_unit_price' })
    expect(e.message).toBe(`${file}:2: transactions[1].gas_unit_price: ${e.detail}`)
  })
})
