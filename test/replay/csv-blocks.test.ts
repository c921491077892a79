import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { readLines } from '../../src/ledger/read/lines.js'
import { readCsvBlocks } from '../../src/replay/csv-blocks.js'
import { detectFormat } from '../../src/replay/read-input.js'

async function blocks(csv: string) {
  const out = []
  for await (const b of readCsvBlocks(readLines(Readable.from([csv])), 'txns.csv')) out.push({ line: b.line, ...b.block })
  return out
}

const fails = (csv: string, message: RegExp) => expect(blocks(csv)).rejects.toThrow(message)

describe('per-transaction CSV', () => {
  it('groups rows by height into blocks, in order', async () => {
    const got = await blocks('block_height,gas_unit_price,gas_used,epoch\n7,150,10,3\n7,100,20,3\n8,300,5,3\n')
    expect(got).toEqual([
      { line: 2, block_height: 7, epoch: 3, gas_unit_prices: [150, 100], gas_used: [10, 20] },
      { line: 4, block_height: 8, epoch: 3, gas_unit_prices: [300], gas_used: [5] },
    ])
  })

  it('fills heights missing between the first and the last with empty blocks of the previous epoch', async () => {
    const got = await blocks('block_height,gas_unit_price,epoch\n10,100,1\n13,100,2\n')
    expect(got.map((b) => [b.block_height, b.epoch, b.gas_unit_prices.length])).toEqual([
      [10, 1, 1],
      [11, 1, 0],
      [12, 1, 0],
      [13, 2, 1],
    ])
  })

  it('needs only block_height and gas_unit_price; extra columns are ignored, names case-insensitive', async () => {
    const got = await blocks('Version,GAS_UNIT_PRICE,Block_Height,note\n1,100,5,x\n2,120,5,"a, b"\n')
    expect(got).toEqual([{ line: 2, block_height: 5, epoch: 0, gas_unit_prices: [100, 120], gas_used: [0, 0] }])
  })

  it('a row with an empty gas_unit_price declares an empty block', async () => {
    const got = await blocks('block_height,gas_unit_price\n1,\n2,100\n')
    expect(got.map((b) => b.gas_unit_prices)).toEqual([[], [100]])
  })

  it('reads u64 prices and heights exactly, past 2^53', async () => {
    const got = await blocks('block_height,gas_unit_price\n18446744073709551615,9007199254740993\n')
    expect(got[0]?.block_height).toBe(18446744073709551615n)
    expect(got[0]?.gas_unit_prices).toEqual([9007199254740993n])
  })

  it('handles CRLF line ends, a BOM, quoted fields and blank lines', async () => {
    const got = await blocks('\uFEFFblock_height,gas_unit_price\r\n"1","100"\r\n\r\n1,"1""0"\r\n'.replace('"1""0"', '101'))
    expect(got).toEqual([{ line: 2, block_height: 1, epoch: 0, gas_unit_prices: [100, 101], gas_used: [0, 0] }])
  })

  it('rejects heights that go down, naming file, line and column', async () => {
    await fails('block_height,gas_unit_price\n5,100\n6,100\n5,100\n', /^txns\.csv:4: block_height: rows must be grouped by block_height in non-decreasing order, but 5 follows 6$/)
  })

  it('rejects a bad u64 in any column, naming it', async () => {
    await fails('block_height,gas_unit_price\n1,-5\n', /^txns\.csv:2: gas_unit_price: must be a u64 .* got "-5"$/)
    await fails('block_height,gas_unit_price\n1,1.5\n', /txns\.csv:2: gas_unit_price: must be a u64/)
    await fails('block_height,gas_unit_price\nx,100\n', /txns\.csv:2: block_height: must be a u64/)
    await fails('block_height,gas_unit_price,gas_used\n1,100,lots\n', /txns\.csv:2: gas_used: must be a u64/)
    await fails('block_height,gas_unit_price,epoch\n1,100,\n1,100,e\n', /txns\.csv:3: epoch: must be a u64/)
    await fails('block_height,gas_unit_price\n1,18446744073709551616\n', /txns\.csv:2: gas_unit_price: must be a u64/)
  })

  it('rejects a header without the required columns, rows of the wrong width and unterminated quotes', async () => {
    await fails('height,gas_unit_price\n1,100\n', /^txns\.csv:1: block_height: header must name a 'block_height' column/)
    await fails('block_height,price\n1,100\n', /txns\.csv:1: gas_unit_price: header must name/)
    await fails('block_height,gas_unit_price\n1,100,7\n', /^txns\.csv:2: \(row\): has 3 fields, the header has 2$/)
    await fails('block_height,gas_unit_price\n1,"100\n', /txns\.csv:2: \(row\): unterminated quoted field/)
    await fails('', /txns\.csv:1: \(header\): the file is empty/)
  })

  it('rejects conflicting epochs within a block and absurd height jumps', async () => {
    await fails('block_height,gas_unit_price,epoch\n1,100,1\n1,100,2\n', /txns\.csv:3: epoch: is 2 but an earlier row of block 1 says 1/)
    await fails('block_height,gas_unit_price\n1,100\n99999999,100\n', /txns\.csv:3: block_height: jumps from 1 to 99999999/)
  })

  it('is chosen for *.csv paths unless --format says otherwise', () => {
    expect(detectFormat('a/b.CSV')).toBe('csv')
    expect(detectFormat('chain.jsonl')).toBe('jsonl')
    expect(detectFormat('-')).toBe('jsonl')
    expect(detectFormat('-', 'csv')).toBe('csv')
  })
})
