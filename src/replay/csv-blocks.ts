import type { BlockInput } from '../core/block.js'
import { parseU64, type U64 } from '../core/u64.js'
import { InvalidDataError } from '../ledger/store/errors.js'
import type { Line } from '../ledger/read/lines.js'
import type { SourcedBlock } from './backtest.js'

/** Largest run of missing heights filled with empty blocks; a bigger jump is taken for a data error. */
export const MAX_HEIGHT_GAP = 1_000_000

const REQUIRED = ['block_height', 'gas_unit_price'] as const
const OPTIONAL = ['epoch', 'gas_used'] as const
type Column = (typeof REQUIRED)[number] | (typeof OPTIONAL)[number]

/**
 * Reads a flat CSV of per-transaction rows into blocks. The header names at least `block_height`
 * and `gas_unit_price` (optional `epoch`, `gas_used`; names are matched case-insensitively,
 * other columns are ignored). Rows must be grouped by `block_height` in non-decreasing order;
 * heights missing between the first and the last become empty blocks (epoch of the block
 * before). A row with an empty `gas_unit_price` declares its block without adding a
 * transaction (so empty blocks can be listed). Empty `gas_used` is 0; `epoch` defaults to the
 * previous block's, or 0. Fields may be double-quoted (RFC 4180, no line breaks inside).
 * Streaming: memory holds one block's rows. (`readLines` drops a byte order mark before the header.)
 *
 * @throws InvalidDataError naming the file, line and column.
 * @example for await (const { block } of readCsvBlocks(readLines('txns.csv'), 'txns.csv')) …
 */
export async function* readCsvBlocks(lines: AsyncIterable<Line>, file: string): AsyncGenerator<SourcedBlock> {
  let columns: Partial<Record<Column, number>> | null = null
  let width = 0
  let height: bigint | null = null
  let epoch: U64 = 0
  let epochSet = false
  let startLine = 0
  let prices: U64[] = []
  let used: U64[] = []
  const emit = (h: bigint, e: U64, line: number, p: U64[], g: U64[]): SourcedBlock => ({
    file,
    line,
    block: { block_height: canonical(h), epoch: e, gas_unit_prices: p, gas_used: g } satisfies BlockInput,
  })
  for await (const { number, text } of lines) {
    const fields = splitCsv(text, file, number)
    if (columns === null) {
      columns = {}
      width = fields.length
      fields.forEach((name, i) => {
        const n = name.trim().toLowerCase() as Column
        if ((REQUIRED as readonly string[]).includes(n) || (OPTIONAL as readonly string[]).includes(n)) {
          if (columns?.[n] !== undefined) throw new InvalidDataError(file, number, n, 'column named twice in the header')
          ;(columns as Record<string, number>)[n] = i
        }
      })
      for (const r of REQUIRED) {
        if (columns[r] === undefined) throw new InvalidDataError(file, number, r, `header must name a '${r}' column, got ${JSON.stringify(fields.join(','))}`)
      }
      continue
    }
    if (fields.length !== width) throw new InvalidDataError(file, number, '(row)', `has ${fields.length} fields, the header has ${width}`)
    const cell = (c: Column): string | undefined => (columns?.[c] === undefined ? undefined : (fields[columns[c] as number] as string).trim())
    const u64 = (c: Column, value: string): U64 => {
      const v = parseU64(value)
      if (v === undefined) throw new InvalidDataError(file, number, c, `must be a u64 (decimal digits, 0..18446744073709551615), got ${JSON.stringify(value)}`)
      return v
    }
    const h = BigInt(u64('block_height', cell('block_height') as string))
    const rawEpoch = cell('epoch')
    const rowEpoch = rawEpoch === undefined || rawEpoch === '' ? null : u64('epoch', rawEpoch)
    if (height === null || h !== height) {
      if (height !== null) {
        if (h < height) {
          throw new InvalidDataError(file, number, 'block_height', `rows must be grouped by block_height in non-decreasing order, but ${h} follows ${height}`)
        }
        if (h - height - 1n > BigInt(MAX_HEIGHT_GAP)) {
          throw new InvalidDataError(file, number, 'block_height', `jumps from ${height} to ${h}: more than ${MAX_HEIGHT_GAP} missing blocks (is this the right column?)`)
        }
        yield emit(height, epoch, startLine, prices, used)
        for (let g = height + 1n; g < h; g++) yield emit(g, epoch, number, [], [])
      }
      height = h
      startLine = number
      prices = []
      used = []
      if (rowEpoch !== null) epoch = rowEpoch
      epochSet = rowEpoch !== null
    } else if (rowEpoch !== null) {
      if (epochSet && rowEpoch !== epoch) throw new InvalidDataError(file, number, 'epoch', `is ${rowEpoch} but an earlier row of block ${h} says ${epoch}`)
      epoch = rowEpoch
      epochSet = true
    }
    const price = cell('gas_unit_price') as string
    if (price === '') continue
    prices.push(u64('gas_unit_price', price))
    const gas = cell('gas_used')
    used.push(gas === undefined || gas === '' ? 0 : u64('gas_used', gas))
  }
  if (columns === null) throw new InvalidDataError(file, 1, '(header)', 'the file is empty: expected a header naming block_height and gas_unit_price')
  if (height !== null) yield emit(height, epoch, startLine, prices, used)
}

function canonical(h: bigint): U64 {
  return h <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(h) : h
}

/** Splits one CSV record; quoted fields may hold commas and doubled quotes. */
function splitCsv(text: string, file: string, line: number): string[] {
  if (!text.includes('"')) return text.split(',')
  const out: string[] = []
  let i = 0
  for (;;) {
    if (text[i] === '"') {
      let value = ''
      i++
      for (;;) {
        const q = text.indexOf('"', i)
        if (q === -1) throw new InvalidDataError(file, line, '(row)', 'unterminated quoted field')
        value += text.slice(i, q)
        if (text[q + 1] === '"') {
          value += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      out.push(value)
      if (i === text.length) return out
      if (text[i] !== ',') throw new InvalidDataError(file, line, '(row)', `unexpected character after a quoted field at column ${i + 1}`)
      i++
    } else {
      const c = text.indexOf(',', i)
      if (c === -1) {
        out.push(text.slice(i))
        return out
      }
      out.push(text.slice(i, c))
      i = c + 1
    }
  }
}
