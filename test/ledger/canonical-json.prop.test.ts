import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isCanonicalJson } from '../../src/ledger/read/canonical-json.js'
import { BlockScanner } from '../../src/ledger/read/block-scanner.js'
import { FC_NUM_RUNS } from '../budget.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))

const canonical = (text: string | Buffer) => {
  const b = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
  return isCanonicalJson(b, 0, b.length)
}
const reserialized = (b: Buffer) => Buffer.from(JSON.stringify(JSON.parse(b.toString('utf8'))), 'utf8')

/** A string spelled with any of JSON's escapes, including ones `JSON.stringify` never writes. */
const spelled = fc.array(
  fc.oneof(
    fc.constantFrom('a', 'Z', '0', ' ', '/', 'é', '€', '😀', '"', '\\', '\n', '\u0001', '\u001f', '\u007f', '\ud800'),
    fc.constantFrom('\\/', '\\u0041', '\\u00e9', '\\u000a', '\\u001F', '\\u001f', '\\u0008', '\\b', '\\ud83d\\ude00', '\\ud800'),
  ),
  { maxLength: 6 },
)
const rawString = spelled.map((parts) => `"${parts.map((p) => (p.startsWith('\\') ? p : JSON.stringify(p).slice(1, -1))).join('')}"`)
const number = fc.constantFrom('0', '-0', '7', '-12', '007', '1.5', '1e3', '1E3', '10.0', '123456789012345', '1234567890123456', '12345678901234567890')
const ws = fc.constantFrom('', '', '', ' ', '\n', '\t ')

/** JSON text written by hand: any spacing, escapes, number spellings, repeated and numeric keys. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    rawString,
    number,
    fc.constantFrom('true', 'false', 'null'),
    fc.tuple(ws, fc.array(fc.tuple(tie('value'), ws), { maxLength: 4 })).map(([w, items]) => `[${w}${items.map(([v, s]) => v + s).join(',')}]`),
    fc
      .tuple(ws, fc.array(fc.tuple(fc.oneof(rawString, fc.constantFrom('"a"', '"b"', '"1"', '"01"', '"a1"')), ws, tie('value')), { maxLength: 4 }))
      .map(([w, members]) => `{${w}${members.map(([k, s, v]) => `${k}${s}:${v}`).join(',')}}`),
  ),
})).value

describe('isCanonicalJson', () => {
  it('true only when the bytes are JSON.stringify(JSON.parse(text)) exactly', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        const b = Buffer.from(text, 'utf8')
        if (canonical(b)) expect(b.equals(reserialized(b))).toBe(true)
      }),
      { numRuns: FC_NUM_RUNS * 5 },
    )
  })

  it('is true for what JSON.stringify writes of strings, safe integers, literals, arrays and objects with non-index keys', () => {
    const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'grapheme' }),
        fc.integer({ min: -1e15 + 1, max: 1e15 - 1 }).filter((n) => !Object.is(n, -0)),
        fc.constantFrom(true, false, null),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.string().filter((k) => !/^[0-9]/.test(k)), tie('v'), { maxKeys: 4 }),
      ),
    })).v
    fc.assert(
      fc.property(value, (v) => {
        expect(canonical(JSON.stringify(v))).toBe(true)
      }),
      { numRuns: FC_NUM_RUNS * 3 },
    )
  })

  it('refuses spacing, other escapes, other number spellings, repeated keys, index keys and invalid UTF-8', () => {
    for (const text of ['{"a": 1}', ' 1', '"\\/"', '"\\u0041"', '"\\u000a"', '"\\u001F"', '1.0', '1e3', '-0', '01', '1234567890123456', '{"a":1,"a":2}', '{"1":1}', '[1 ,2]']) {
      expect(canonical(text), text).toBe(false)
    }
    expect(canonical(Buffer.from([0x22, 0xc3, 0x28, 0x22]))).toBe(false)
    for (const text of ['{"a":1,"b":{"a":2}}', '"\\u001f\\n\\"é"', '[-12,0,true,null]', '{"a1":"x"}', '{"a":{"b":1},"b":2}']) expect(canonical(text), text).toBe(true)
  })

  it("every transaction of the sample chain is canonical as the scanner finds it in the line", () => {
    const lines = readFileSync(SAMPLE).toString('utf8').split('\n').filter((l) => l.length > 0).slice(0, 200)
    const scanner = new BlockScanner()
    for (const line of lines) {
      const b = Buffer.from(line, 'utf8')
      const s = scanner.scan(b, 'ledger')
      if (s === undefined) throw new Error('sample line not scanned')
      s.txnStarts.forEach((start, i) => {
        const end = s.txnEnds[i] as number
        expect(isCanonicalJson(b, start, end)).toBe(true)
        expect(s.txnCanonical[i]).toBe(true)
        expect(b.subarray(start, end).equals(reserialized(b.subarray(start, end)))).toBe(true)
      })
    }
  })

  it('the scanner does not vouch, in its one pass, for a transaction holding a space, another escape or number spelling, a repeat, or a key it does not know', () => {
    const line = readFileSync(SAMPLE).toString('utf8').split('\n').find((l) => l.includes('"user_transaction"') && l.includes('"block_end_info":{')) as string
    // [from, to, whether the edited transaction is still canonical]: a key the scanner does not know is left to isCanonicalJson.
    const edits: [string, string, boolean][] = [
      ['"changes":[', '"changes": [', false],
      ['"type":"user_transaction"', '"type" :"user_transaction"', false],
      ['"arguments":[', '"arguments":[ ', false],
      ['"vm_status":"Executed successfully"', '"vm_status":"Executed\\u0020successfully"', false],
      ['"vm_status":"Executed successfully"', '"vm_status":"Executed\\/successfully"', false],
      ['"success":true', '"success":true,"success":true', false],
      ['"success":true', '"success":1.0', false],
      ['"block_gas_limit_reached":', '"block_gas_limit_reached": ', false],
      ['"success":true', '"success":true,"extra":1', true],
      ['"block_gas_limit_reached":', '"other":1,"block_gas_limit_reached":', true],
      ['"function":', '"code":1,"function":', true],
    ]
    const scanner = new BlockScanner()
    for (const [from, to, still] of edits) {
      const b = Buffer.from(line.replace(from, to), 'utf8')
      expect(b.length, from).not.toBe(Buffer.byteLength(line))
      const s = scanner.scan(b, 'ledger')
      if (s === undefined) throw new Error(`edited line not scanned: ${to}`)
      const flags = s.txnStarts.map((start, i) => [s.txnCanonical[i], isCanonicalJson(b, start, s.txnEnds[i] as number)])
      // Only the transaction that took the edit is left to isCanonicalJson.
      expect(flags.filter(([known]) => known === false), to).toEqual([[false, still]])
    }
  })
})
