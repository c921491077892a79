import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DICTIONARY } from '../../src/ledger/memory/txn-code.js'
import { emptyTxnFields, type TxnFields } from '../../src/ledger/read/txn-fields.js'
import { TxnPacker } from '../../src/ledger/memory/txn-pack.js'
import { TxnUnpacker } from '../../src/ledger/memory/txn-unpack.js'
import { fcRuns } from '../budget.js'

/** One packer and one unpacker for the file, as a memory store keeps them. */
const packer = new TxnPacker()
const unpacker = new TxnUnpacker()
const packTransaction = (b: Buffer, p: number, out: Uint8Array, o: number, fields: Parameters<TxnPacker['pack']>[4]) => packer.pack(b, p, out, o, fields)
const packText = (text: string) => packer.packText(text)
const unpackJson = (src: Buffer, s: number, e: number) => unpacker.json(src, s, e)


const NUM_RUNS = fcRuns()

/**
 * Strings as transactions hold them: hex of any length and case, decimals, dictionary words,
 * anything; long ones too, broken by escapes, control characters and non-ASCII ones at any
 * place.
 */
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 20, maxLength: 90 }),
  fc.array(fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 40 }), fc.constantFrom('"', '\\', '\n', '\u0001', 'é', '€', '𝄞')), { maxLength: 6 }).map((parts) => parts.join('')),
  fc.stringMatching(/^0x[0-9a-f]{0,70}$/),
  fc.stringMatching(/^0x[0-9a-fA-F]{6,20}$/),
  fc.stringMatching(/^[0-9]{1,22}$/),
  fc.constantFrom(...DICTIONARY.map((w) => (w.endsWith(':') ? w.slice(1, -2) : (JSON.parse(w) as string)))),
)
const key = fc.oneof(text, fc.constantFrom('type', 'version', 'sender', 'payload', 'block_end_info', 'gas_used', 'function', '__proto__', '0', '12'))
const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.double(),
    fc.constantFrom(true, false, null, -0, 1e21, 2 ** 53 + 2),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
}))
const object = fc.dictionary(key, value, { maxKeys: 8 })

/** JSON text of `v` as a person or another tool might write it: whitespace, escapes JSON.stringify would not use. */
function looseJson(v: unknown, r: () => number): string {
  const ws = () => [' ', '', '\t', '\n', '  '][Math.floor(r() * 5)] as string
  if (typeof v === 'string') {
    let s = JSON.stringify(v)
    if (r() < 0.2) s = s.replace(/\//g, '\\/')
    if (r() < 0.2) s = s.replace(/[a-z]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    return s
  }
  if (typeof v === 'number' && r() < 0.1 && Number.isInteger(v)) return `${v}.0`
  if (Array.isArray(v)) return `[${ws()}${v.map((x) => looseJson(x, r)).join(`${ws()},${ws()}`)}${ws()}]`
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${looseJson(k, r)}${r() < 0.1 ? ' ' : ''}:${ws()}${looseJson(x, r)}`)
    if (r() < 0.1 && entries.length > 0) entries.push(entries[0] as string)
    return `{${ws()}${entries.join(`${ws()},${ws()}`)}${ws()}}`
  }
  return JSON.stringify(v) ?? 'null'
}

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1
  return () => ((s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32
}

/** What the packer reads into `TxnFields`, from the parsed object, as `scanBlockJson` would keep it. */
function expectedFields(t: Record<string, unknown>): TxnFields {
  const f = emptyTxnFields()
  for (const k of ['type', 'gas_unit_price', 'gas_used', 'epoch', 'version', 'sender', 'sequence_number', 'replay_protection_nonce'] as const) (f as unknown as Record<string, unknown>)[k] = t[k]
  // The packer's proof: a sender it read as a hex token (ReadTxnFields.senderIsLowerHex).
  f.senderIsLowerHex = typeof t.sender === 'string' && /^0x[0-9a-f]{8,16383}$/.test(t.sender)
  const p = t.payload as Record<string, unknown> | undefined
  if (p !== undefined) f.payload = { type: p.type as string | undefined, function: p.function as string | undefined }
  const info = t.block_end_info as Record<string, unknown> | null | undefined
  if (info !== undefined) {
    f.block_end_info = info === null ? null : {}
    for (const k of ['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size']) {
      if (info !== null && k in info) (f.block_end_info as Record<string, unknown>)[k] = info[k]
    }
  }
  return f
}

describe('txn-pack', () => {
  it('unpacking packText(JSON.stringify(v)) gives JSON.stringify(v) back for any object', () => {
    fc.assert(
      fc.property(object, (v) => {
        const json = JSON.stringify(v)
        const record = Buffer.from(packText(json))
        expect(unpackJson(record, 0, record.length)).toBe(json)
        expect(record.length).toBeLessThanOrEqual(Buffer.byteLength(json) + 1)
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('packTransaction of any JSON text of an object either refuses it or packs JSON.stringify(JSON.parse(text)), and reads the fields JSON.parse gives', () => {
    fc.assert(
      fc.property(object, fc.integer(), fc.boolean(), (v, seed, sloppy) => {
        const loose = sloppy ? looseJson(v, seeded(seed)) : JSON.stringify(v)
        const bytes = Buffer.from(loose)
        const out = Buffer.alloc(bytes.length + 16)
        const fields = emptyTxnFields()
        const end = packTransaction(bytes, 0, out, 0, fields)
        if (end < 0) return
        expect(end).toBe(bytes.length)
        expect(packer.end).toBeLessThanOrEqual(bytes.length + 1)
        const parsed = JSON.parse(loose) as Record<string, unknown>
        expect(unpackJson(out, 0, packer.end)).toBe(JSON.stringify(parsed))
        expect(fields).toEqual(expectedFields(parsed))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('packTransaction never takes bytes JSON.parse refuses, and what it takes it packs losslessly', () => {
    fc.assert(
      fc.property(object, fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 255 }), (v, at, byte) => {
        const good = Buffer.from(JSON.stringify(v))
        const bytes = Buffer.from(good)
        bytes[at % bytes.length] = byte
        const out = Buffer.alloc(bytes.length + 16)
        const end = packTransaction(bytes, 0, out, 0, null)
        if (end < 0) return
        const text = bytes.subarray(0, end).toString('utf8')
        if (!Buffer.from(text).equals(bytes.subarray(0, end))) return // not UTF-8: the caller checks that first
        expect(unpackJson(out, 0, packer.end)).toBe(JSON.stringify(JSON.parse(text)))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('a plain string of any length, with an escape or a non-ASCII character at any place, comes back byte for byte', () => {
    // Every length from 1 to past the longest dictionary entry: strings short enough to be looked up whole, and longer ones.
    for (let n = 1; n <= 90; n++) {
      const plain = Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7) % 95))).join('')
      for (const special of ['', '"', '\\', '\n', '\u0001', 'é', '€', '𝄞']) {
        for (const at of special === '' ? [0] : [0, 1, n >> 1, n - 1, n]) {
          const v = { vm_status: plain.slice(0, at) + special + plain.slice(at), events: [plain, special + plain] }
          const json = JSON.stringify(v)
          const record = Buffer.from(packText(json))
          expect(unpackJson(record, 0, record.length)).toBe(json)
          const bytes = Buffer.from(json)
          const out = Buffer.alloc(bytes.length + 16, 0xff)
          expect(packTransaction(bytes, 0, out, 0, null)).toBe(bytes.length)
          expect(unpackJson(out, 0, packer.end)).toBe(json)
        }
      }
    }
  })

  it('texts the packer refuses are kept whole and still unpack to themselves', () => {
    for (const json of ['{"a":1.5}', '{"1":2,"b":3}', '{"x":"\\ud800"}', '{"big":12345678901234567890}', `{"deep":${'['.repeat(300)}${']'.repeat(300)}}`]) {
      const record = Buffer.from(packText(json))
      expect(record[0]).toBe(3)
      expect(unpackJson(record, 0, record.length)).toBe(json)
    }
  })

  it('a key one byte off a dictionary key, or a dictionary key cut short at the end of the bytes, is never taken for it', () => {
    const keys = DICTIONARY.filter((w) => w.endsWith(':')).map((w) => w.slice(1, -2))
    for (const name of keys) {
      for (let i = 0; i < name.length; i++) {
        // Each byte of the name changed in turn (to a letter that keeps it a valid key).
        const other = name.slice(0, i) + (name[i] === 'z' ? 'y' : 'z') + name.slice(i + 1)
        const json = JSON.stringify({ [other]: 1, [name]: '0x00' })
        const record = packText(json)
        expect(unpackJson(record, 0, record.length)).toBe(json)
      }
      const whole = Buffer.from(`{"a":1,"${name}":2}`)
      for (let end = whole.length - 1; end > 7; end--) {
        const out = new Uint8Array(whole.length + 1)
        expect(packTransaction(whole.subarray(0, end), 0, out, 0, null)).toBe(-1)
      }
    }
  })

  it('a sender carries the proof senderIsLowerHex exactly when it is 0x and 8 to 16,383 lowercase hex digits, and reads as its text', () => {
    const digit = fc.constantFrom(...'0123456789abcdefABCDEFg')
    const sender = fc.oneof(
      fc.array(digit, { maxLength: 70 }).map((ds) => `0x${ds.join('')}`),
      fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: 1, maxLength: 70 }).map((ds) => `0x${ds.join('')}`),
      fc.constantFrom(`0x${'ab'.repeat(8192)}`, `0x${'a'.repeat(16383)}`, '0x414343554d554c41544f525f504c414345484f4c4445525f4841534800000000'),
      // A read field that holds an escape is left to the full parser (-1), so none here.
      fc.string().filter((x) => JSON.stringify(x) === `"${x}"`),
    )
    fc.assert(
      fc.property(sender, (s) => {
        const bytes = Buffer.from(JSON.stringify({ type: 'user_transaction', sender: s }))
        const fields = emptyTxnFields()
        expect(packTransaction(bytes, 0, Buffer.alloc(bytes.length + 16), 0, fields)).toBe(bytes.length)
        expect(fields.sender).toBe(s)
        expect(fields.senderIsLowerHex).toBe(/^0x[0-9a-f]{8,16383}$/.test(s))
      }),
      { numRuns: NUM_RUNS },
    )
  })

  it('decimal strings of every length up to 2^53 − 1 take the two-digits-a-byte token and come back byte for byte, the gas fields read as their text', () => {
    const emptyJson = Buffer.from(JSON.stringify({ type: 'user_transaction', gas_unit_price: '', gas_used: '' }))
    packTransaction(emptyJson, 0, new Uint8Array(emptyJson.length + 1), 0, null)
    const emptyEnd = packer.end
    // ('0' and '1' are dictionary words, a byte each.)
    const decimals = ['7', '10', '99', '100', '1750000000', '1750000000265395', String(Number.MAX_SAFE_INTEGER)]
    for (let n = 2; n <= 16; n++) decimals.push('8765432109876543'.slice(0, n))
    for (const d of decimals) {
      const json = JSON.stringify({ type: 'user_transaction', gas_unit_price: d, gas_used: d })
      const bytes = Buffer.from(json)
      const out = new Uint8Array(bytes.length + 1)
      const fields = emptyTxnFields()
      expect(packTransaction(bytes, 0, out, 0, fields)).toBe(bytes.length)
      // Two tokens of `0x02`, a count and ⌈n/2⌉ bytes each, where two empty strings take `""` each.
      expect(packer.end - emptyEnd).toBe(2 * (2 + Math.ceil(d.length / 2)) - 2 * 2)
      expect(unpackJson(Buffer.from(out), 0, packer.end)).toBe(json)
      expect([fields.gas_unit_price, fields.gas_used]).toEqual([d, d])
    }
    // Past 2^53 − 1, or with a leading zero, a decimal is copied as the string it is.
    for (const d of [String(Number.MAX_SAFE_INTEGER + 1), '01', '12345678901234567']) {
      const json = JSON.stringify({ amount: d })
      const record = packText(json)
      expect(record.includes(2)).toBe(false)
      expect(unpackJson(record, 0, record.length)).toBe(json)
    }
  })

  it('a sender read again is the same text, and one that shares its first digits is read as itself', () => {
    const a = `0xabcd${'1'.repeat(60)}`
    const b = `0xabcd${'2'.repeat(60)}`
    const senders = [a, b, a, `0xabcd${'2'.repeat(58)}`, b]
    for (const sender of senders) {
      const bytes = Buffer.from(JSON.stringify({ type: 'user_transaction', sender }))
      const fields = emptyTxnFields()
      expect(packTransaction(bytes, 0, new Uint8Array(bytes.length + 1), 0, fields)).toBe(bytes.length)
      expect(fields.sender).toBe(sender)
    }
  })
})
