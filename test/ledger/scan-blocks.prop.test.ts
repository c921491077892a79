import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkBlock } from '../../src/ledger/store/append-rules.js'
import { parseJsonLine } from '../../src/ledger/read/json-lines.js'
import { toBlockInput } from '../../src/ledger/read/read-blocks.js'
import { BlockScanner, type ScanMode } from '../../src/ledger/read/block-scanner.js'
import { isCanonicalJson } from '../../src/ledger/read/canonical-json.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { fcRuns } from '../budget.js'

/** One scanner for the whole file, as a stream has: its key predictor learns from every line before. */
const scanner = new BlockScanner()
const scanBlockJson = (b: Buffer, mode: ScanMode) => scanner.scan(b, mode)
const blockOfLine = (file: string, line: number, b: Buffer) => scanner.blockOfLine(file, line, b)


const NUM_RUNS = fcRuns(0.6)
const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))

/** The value or the error message of `f`: two readers agree when these are equal. */
function outcome(f: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: f() }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/** The reference: the full parser on `JSON.parse` of the line, as `readBlocks` reads it. */
const full = (line: Buffer) => outcome(() => parseJsonLine('f.jsonl', 7, line.toString('utf8'), toBlockInput))
const scanned = (line: Buffer) => outcome(() => blockOfLine('f.jsonl', 7, line))

/** `checkBlock` without the transactions it hands back (the skeleton's are cut down by design). */
function checked(block: unknown) {
  return outcome(() => {
    const { transactions, ...rest } = checkBlock(block)
    return { ...rest, transactions: transactions.length }
  })
}

/**
 * The scanner's law on one line: the engine reader gives the full parser's value or error, and
 * when the scanner takes the line in ledger mode, the line is JSON and `checkBlock` answers the
 * same on the skeleton as on the parsed block, with one byte range per transaction.
 */
function expectSameAsFullParser(line: Buffer): void {
  expect(scanned(line)).toEqual(full(line))
  const ledger = scanBlockJson(line, 'ledger')
  if (ledger === undefined) return
  const json = JSON.parse(line.toString('utf8')) as { transactions?: unknown }
  expect(checked(ledger.skeleton)).toEqual(checked(json))
  const txns = ledger.txnStarts.map((s, i) => JSON.parse(line.subarray(s, ledger.txnEnds[i]).toString('utf8')) as unknown)
  expect(txns).toEqual(Array.isArray(json.transactions) ? json.transactions : [])
  // A transaction the scanner finds canonical is one isCanonicalJson finds canonical (its law: the bytes are their re-serialization).
  expect(ledger.txnCanonical).toHaveLength(txns.length)
  ledger.txnCanonical.forEach((known, i) => {
    const [s, e] = [ledger.txnStarts[i] as number, ledger.txnEnds[i] as number]
    if (known) expect(isCanonicalJson(line, s, e)).toBe(true)
  })
}

const sampleLines = readFileSync(SAMPLE, 'utf8')
  .split('\n')
  .filter((l) => l.length > 0)

/** Small valid blocks: a few users, prices and senders drawn, large u64 now and then. */
const blockArb = fc
  .record({
    height: fc.oneof(fc.nat(1000), fc.constant(2 ** 53), fc.constant(18446744073709551614n)),
    users: fc.array(
      fc.record({
        sender: fc.integer({ min: 1, max: 5 }),
        gas_unit_price: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.constant(18446744073709551615n)),
        function: fc.constantFrom('0x1::aptos_account::transfer', '0xcafe::m::f', `${addr(0xbeef)}::dex::swap`, 'not-an-address::m::f'),
      }),
      { maxLength: 4 },
    ),
    epilogue: fc.oneof(
      fc.constant(null),
      fc.record({ block_gas_limit_reached: fc.boolean(), block_output_limit_reached: fc.boolean(), block_effective_block_gas_units: fc.nat(), block_approx_output_size: fc.nat() }),
    ),
  })
  .map(({ height, users, epilogue }) => new ChainBuilder({ height, version: height }).block({ users, epilogue }))

/** Bytes that matter to a JSON scanner. */
const interesting = fc.constantFrom(...'"\\{}[]:,0123456789-.eE+ tfnul\t\r\u0001x\u00e9'.split(''), '\\u0041', '\\"', '"a":1,', '\uFEFF')

/** An edit at a byte position, or (`nearToken`) just after the at-th structural byte, where edits most often stay JSON. */
type Edit = { at: number; nearToken: boolean; kind: 'insert' | 'delete' | 'replace'; text: string }
const edits = fc.array(fc.record({ at: fc.nat(), nearToken: fc.boolean(), kind: fc.constantFrom<Edit['kind']>('insert', 'delete', 'replace'), text: interesting }), { minLength: 1, maxLength: 3 })

function applyEdits(line: string, list: Edit[]): Buffer {
  let bytes = Buffer.from(line)
  for (const { at, nearToken, kind, text } of list) {
    const tokens = nearToken ? [...bytes.entries()].filter(([, c]) => ':,[]{}"'.includes(String.fromCharCode(c))).map(([i]) => i + 1) : []
    const p = tokens.length > 0 ? (tokens[at % tokens.length] as number) : at % (bytes.length + 1)
    const t = Buffer.from(text)
    if (kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, p), t, bytes.subarray(p)])
    else if (kind === 'delete') bytes = Buffer.concat([bytes.subarray(0, p), bytes.subarray(p + 1)])
    else bytes = Buffer.concat([bytes.subarray(0, p), t, bytes.subarray(p + t.length)])
  }
  return bytes
}

/**
 * `bytes` as a view at byte `offset` of a larger buffer whose other bytes are `fill`: the scanner
 * reads words, so it must neither depend on alignment nor read past the line.
 */
function placed(bytes: Buffer, offset: number, fill: number): Buffer {
  const whole = Buffer.alloc(offset + bytes.length + 8, fill)
  bytes.copy(whole, offset)
  return whole.subarray(offset, offset + bytes.length)
}

/** JSON values to put where the scanner reads a field. */
const oddValue = fc.oneof(
  fc.constantFrom('100', '007', '', '18446744073709551615', '18446744073709551616', '9007199254740993', '-1', '1e3', 'user_transaction', 'entry_function_payload'),
  fc.constantFrom(null, true, false, 0, 1.5, 1e3, -1, 2 ** 60, [], {}, { type: 'entry_function_payload', function: '0x1::m::f' }, { block_gas_limit_reached: 'yes' }),
)
const FIELDS = ['block_height', 'first_version', 'last_version', 'block_hash', 'block_timestamp', 'transactions']
const TXN_FIELDS = ['type', 'gas_unit_price', 'gas_used', 'epoch', 'payload', 'block_end_info', 'version', 'sender', 'sequence_number', 'replay_protection_nonce']

describe('scanBlockJson: the block scanner reads what the full parser reads', () => {
  it('gives parseBlockJson’s block and checkBlock’s answer on every line of the sample chain', () => {
    for (const line of sampleLines) expectSameAsFullParser(Buffer.from(line))
    // The sample is in the node's shape, so the scanner takes every line itself.
    expect(sampleLines.every((l) => scanBlockJson(Buffer.from(l), 'ledger') !== undefined)).toBe(true)
  })

  it('agrees with the full parser on generated blocks, compact or indented', () => {
    fc.assert(
      fc.property(blockArb, fc.constantFrom(0, 1, 2), (block, indent) => {
        const line = Buffer.from(JSON.stringify(block, null, indent).replace(/\n/g, indent === 1 ? '\r' : ' '))
        expectSameAsFullParser(line)
        expect(scanBlockJson(line, 'engine')).toBeDefined()
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('agrees with the full parser, value or error, on blocks with bytes inserted, deleted or replaced, wherever the line lies in its buffer', () => {
    const lines = fc.oneof(
      blockArb.map((b) => JSON.stringify(b)),
      fc.constantFrom(...sampleLines.slice(0, 40)),
    )
    fc.assert(
      fc.property(lines, edits, fc.nat(7), fc.constantFrom(0x22, 0x00, 0x5c), (line, list, offset, fill) => expectSameAsFullParser(placed(applyEdits(line, list), offset, fill))),
      { numRuns: NUM_RUNS * 10 },
    )
  })

  it('agrees with the full parser when a field it reads holds another value, is repeated or is missing', () => {
    fc.assert(
      fc.property(blockArb, fc.nat(), fc.constantFrom(...FIELDS, ...TXN_FIELDS), oddValue, fc.constantFrom('set', 'delete', 'repeat'), (block, pick, field, value, how) => {
        const b = structuredClone(block) as unknown as Record<string, unknown> & { transactions: Record<string, unknown>[] }
        const target = FIELDS.includes(field) ? b : (b.transactions[pick % b.transactions.length] as Record<string, unknown>)
        let text: string
        if (how === 'delete') {
          delete target[field]
          text = JSON.stringify(b)
        } else if (how === 'set') {
          target[field] = value
          text = JSON.stringify(b)
        } else {
          // JSON.parse keeps the last of two equal keys; JSON.stringify cannot write them.
          const marker = '"__dup__":0'
          target.__dup__ = 0
          text = JSON.stringify(b).replace(marker, `${JSON.stringify(field)}:${JSON.stringify(value)}`)
        }
        expectSameAsFullParser(Buffer.from(text))
      }),
      { numRuns: NUM_RUNS * 5 },
    )
  })
})

describe('scanBlockJson: the key predictor changes speed, not answers', () => {
  it('agrees with the full parser on a line whose transactions’ keys are shuffled, renamed or repeated, after lines in the node’s order', () => {
    const keyEdit = fc.constantFrom('shuffle', 'rename', 'repeat', 'space', 'payload')
    fc.assert(
      fc.property(fc.constantFrom(...sampleLines.slice(0, 40)), fc.nat(), keyEdit, fc.nat(), (line, pick, how, seed) => {
        // The sample's lines teach the predictor the node's key order first.
        for (const l of sampleLines.slice(0, 3)) expectSameAsFullParser(Buffer.from(l))
        const b = JSON.parse(line) as { transactions: Record<string, unknown>[] }
        const t = b.transactions[pick % b.transactions.length] as Record<string, unknown>
        const keys = Object.keys(t)
        const k = keys[seed % keys.length] as string
        let text: string
        if (how === 'shuffle') {
          const order = keys.map((key, i) => [key, (i * 7919 + seed) % 101] as const).sort((x, y) => x[1] - y[1])
          b.transactions[pick % b.transactions.length] = Object.fromEntries(order.map(([key]) => [key, t[key]]))
          text = JSON.stringify(b)
        } else if (how === 'payload') {
          // The payload's keys have a predictor of their own: reversed, and one repeated.
          const payload = t.payload
          if (typeof payload === 'object' && payload !== null) t.payload = Object.fromEntries(Object.entries(payload).reverse())
          text = JSON.stringify(b)
          if (seed % 2 === 0) text = text.replace('"function":', '"function":0,"function":')
        } else if (how === 'rename') {
          // A key the predictor expects, one byte longer or shorter: a different key to JSON.parse.
          const renamed = seed % 2 === 0 ? `${k}x` : k.slice(0, -1)
          text = JSON.stringify(b).replace(`"${k}":`, `"${renamed}":`)
        } else if (how === 'repeat') {
          text = JSON.stringify(b).replace(`"${k}":`, `"${k}":0,"${k}":`)
        } else text = JSON.stringify(b).replace(`"${k}":`, `"${k}" :`)
        expectSameAsFullParser(Buffer.from(text))
      }),
      { numRuns: NUM_RUNS * 2 },
    )
  })
})

describe('blockOfLine: errors as the full parser words them', () => {
  const block = new ChainBuilder({ height: 9, version: 90 }).block({ users: [{ sender: 1, gas_unit_price: 150 }] })

  it('names file, line and field for a bad u64, and (json) for a line that is not JSON', () => {
    const bad = JSON.stringify(block).replace('"gas_unit_price":"150"', '"gas_unit_price":"1.5"')
    expect(() => blockOfLine('chain.jsonl', 4, Buffer.from(bad))).toThrow(/^chain\.jsonl:4: transactions\[1\]\.gas_unit_price: block 9: must be a u64 decimal string/)
    expect(() => blockOfLine('chain.jsonl', 5, Buffer.from(JSON.stringify(block).slice(0, -1)))).toThrow(/^chain\.jsonl:5: \(json\): not valid JSON/)
  })

  it('reads an escaped key or value by the full parser, to the same block', () => {
    const escaped = Buffer.from(JSON.stringify(block).replace('"block_height"', '"block\\u005fheight"').replace('"150"', '"\\u0031\\u00350"'))
    expect(scanBlockJson(escaped, 'engine')).toBeUndefined()
    expect(blockOfLine('f', 1, escaped)).toEqual(blockOfLine('f', 1, Buffer.from(JSON.stringify(block))))
  })

  it('passes a compact summary to the full reader', () => {
    const compact = Buffer.from('{"block_height":"3","epoch":"1","gas_unit_prices":["18446744073709551615",100]}')
    expect(scanBlockJson(compact, 'engine')).toBeUndefined()
    expect(blockOfLine('f', 1, compact)).toEqual({ block_height: '3', epoch: '1', gas_unit_prices: [18446744073709551615n, 100], gas_used: undefined })
  })
})
