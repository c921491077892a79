import { create, fromBinary, fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { decodeTransaction, decodeTransactionsResponse } from '../../../src/follow/stream/decode/transaction.js'
import { WireFormatError } from '../../../src/follow/stream/decode/wire-reader.js'
import { StreamResponseError } from '../../../src/follow/stream/errors.js'
import { TransactionsResponseSchema } from '../../../src/follow/stream/gen/aptos/indexer/v1/raw_data_pb.js'
import { TransactionSchema, type Transaction } from '../../../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'
import { ingestFromStream } from '../../../src/follow/stream/ingest-stream.js'
import { startStreamServer } from '../../../src/follow/stream/stream-server.js'
import { sampleChain } from './helpers/sample.js'

const STREAM = join(import.meta.dirname, '../../fixtures/aptos-stream')
const fixtures = readdirSync(STREAM)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, message: fromJson(TransactionSchema, JSON.parse(readFileSync(join(STREAM, f), 'utf8')) as JsonValue) }))

/** What protobuf-es decodes, less what the hand decoder leaves out on purpose: unknown fields and `size_info`. */
function reference(bytes: Uint8Array): Transaction {
  const m = fromBinary(TransactionSchema, bytes, { readUnknownFields: false })
  delete m.sizeInfo
  return m
}

function outcome(decode: () => unknown): { value: unknown } | { error: unknown } {
  try {
    return { value: decode() }
  } catch (error) {
    return { error }
  }
}

/** Wire bytes: a varint. */
function varint(n: bigint | number): number[] {
  const out: number[] = []
  let v = BigInt.asUintN(64, BigInt(n))
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return out
}
const tag = (field: number, wire: number) => varint((field << 3) | wire)
const len = (field: number, body: number[]) => [...tag(field, 2), ...varint(body.length), ...body]
const num = (field: number, n: bigint | number) => [...tag(field, 0), ...varint(n)]
const utf8 = (s: string) => [...Buffer.from(s, 'utf8')]

describe('hand-written stream decoder', () => {
  it('decodes every real mainnet fixture as protobuf-es does', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(17)
    for (const { file, message } of fixtures) {
      const bytes = toBinary(TransactionSchema, message)
      expect(decodeTransaction(bytes), file).toStrictEqual(reference(bytes))
    }
  })

  it('decodes the transactions of the sample chain (its first 100 blocks) as protobuf-es does, from a Buffer as grpc-js hands it', () => {
    const { chain } = sampleChain(100)
    const differ: number[] = []
    for (let i = 0; i < chain.transactions.length; i++) {
      const bytes = Buffer.from(chain.transactions[i] as Uint8Array)
      if (!isDeepStrictEqual(decodeTransaction(bytes), reference(bytes))) differ.push(i)
    }
    expect(differ).toEqual([])
  })

  it('decodes a response (transactions, chain id, processed range) as protobuf-es does', () => {
    const transactions = fixtures.slice(0, 5).map((f) => f.message)
    const bytes = toBinary(TransactionsResponseSchema, create(TransactionsResponseSchema, { transactions, chainId: '1', processedRange: { firstVersion: 5n, lastVersion: 2n ** 64n - 1n } }))
    const expected = fromBinary(TransactionsResponseSchema, bytes, { readUnknownFields: false })
    for (const t of expected.transactions) delete t.sizeInfo
    expect(decodeTransactionsResponse(bytes)).toStrictEqual(expected)
  })

  it('skips unknown fields of every wire type, at the top and nested, keeping the rest', () => {
    const unknown = [
      { no: 90, wireType: 0, data: new Uint8Array(varint(2n ** 63n)) },
      { no: 91, wireType: 1, data: new Uint8Array(8).fill(7) },
      { no: 92, wireType: 2, data: new Uint8Array([3, 1, 2, 3]) },
      { no: 93, wireType: 5, data: new Uint8Array(4).fill(9) },
      { no: 94, wireType: 3, data: new Uint8Array([...num(1, 5), ...tag(95, 3), ...tag(95, 4), ...tag(94, 4)]) },
    ]
    for (const { file, message } of fixtures) {
      const m = structuredClone(message)
      m.$unknown = unknown
      if (m.info !== undefined) m.info.$unknown = unknown
      if (m.txnData.case === 'user') {
        m.txnData.value.$unknown = unknown
        for (const e of m.txnData.value.events) e.$unknown = unknown
        if (m.txnData.value.request?.signature !== undefined) m.txnData.value.request.signature.$unknown = unknown
      }
      const bytes = toBinary(TransactionSchema, m)
      expect(bytes.length, file).toBeGreaterThan(toBinary(TransactionSchema, message).length)
      expect(decodeTransaction(bytes), file).toStrictEqual(reference(toBinary(TransactionSchema, message)))
    }
  })

  it('writes proto3 defaults for absent fields, and leaves absent messages and optionals out', () => {
    expect(decodeTransaction(new Uint8Array(0))).toStrictEqual(reference(new Uint8Array(0)))
    const info = [...len(3, []), ...len(7, [])] // an empty info, an empty block metadata
    const t = decodeTransaction(new Uint8Array(info))
    expect(t).toStrictEqual(reference(new Uint8Array(info)))
    expect(t.info?.gasUsed).toBe('0')
    expect('stateCheckpointHash' in (t.info as object)).toBe(false)
  })

  it('reads repeated varints packed and unpacked, in any mix', () => {
    const metadata = [...num(6, 1), ...len(6, [2, ...varint(300)]), ...num(6, 4), ...len(6, [])]
    const multiEd = [...num(4, 0), ...len(4, [1, 31])]
    const user = len(10, len(1, len(7, len(3, multiEd))))
    const struct = len(5, [...len(1, utf8('M')), ...len(5, [...len(1, utf8('S')), ...num(3, 1), ...len(3, [2, 3])])])
    for (const bytes of [len(7, metadata), user, [...len(3, len(9, len(5, len(3, struct))))]]) {
      const b = new Uint8Array(bytes)
      expect(decodeTransaction(b)).toStrictEqual(reference(b))
    }
    const t = decodeTransaction(new Uint8Array(len(7, metadata)))
    expect(t.txnData.case === 'blockMetadata' && t.txnData.value.failedProposerIndices).toEqual([1, 2, 300, 4])
  })

  it('a oneof takes its last case; a repeated message field or oneof case merges as protobuf requires', () => {
    const cases = [
      [...len(9, []), ...len(10, len(1, len(1, utf8('0xa'))))], // checkpoint, then user: user
      [...len(10, len(1, len(1, utf8('0xa')))), ...len(10, len(1, num(2, 7)))], // user twice: merged request
      [...len(3, num(5, 10)), ...len(3, [...num(6, 1), ...len(1, [1, 2])])], // info twice: merged
      [...len(1, num(1, -5)), ...len(1, num(2, -1))], // negative int64 seconds and int32 nanos, merged
      [...num(2, 2n ** 64n - 1n), ...num(4, 2n ** 53n + 1n), ...num(5, 2n ** 49n)], // u64 strings at the edges
      [...len(10, len(1, len(6, len(7, [...num(2, 2n ** 64n - 1n)]))))], // optional u64 as bigint
    ]
    for (const bytes of cases) {
      const b = new Uint8Array(bytes)
      expect(decodeTransaction(b)).toStrictEqual(reference(b))
    }
    expect(decodeTransaction(new Uint8Array(cases[4] as number[])).version).toBe('18446744073709551615')
  })

  it('decodes UTF-8 strings short and long as protobuf-es does, a leading U+FEFF kept as text', () => {
    for (const text of ['\uFEFFa', 'é', `{"name":"${'ü€😀'.repeat(40)}"}`, '\uFEFF'.repeat(50), 'x'.repeat(64), 'x'.repeat(65)]) {
      const b = new Uint8Array(len(7, len(1, utf8(text))))
      const t = decodeTransaction(b)
      expect(t).toStrictEqual(reference(b))
      expect(t.txnData.case === 'blockMetadata' && t.txnData.value.id).toBe(text)
    }
  })

  it('refuses malformed bytes with a WireFormatError naming the fault, never a partial message', () => {
    const bad: [number[], RegExp][] = [
      [[...tag(2, 0), 0x80], /varint cut short/],
      [[...tag(3, 2), 5, 1], /length 5 runs past the end/],
      [[...len(3, [...tag(1, 2), 9, 0, 0])], /length 9 runs past the end/], // nested length past its message
      [[0x07], /invalid tag/], // wire type 7
      [[0x00, 0x00], /invalid tag/], // field 0
      [[...tag(3, 0), 1], /field 3 has wire type 0/], // a message field as a varint
      [[...tag(2, 2), 1, 1], /field 2 has wire type 2/], // a uint64 as bytes
      [[...len(7, len(1, [0xc3, 0x28]))], /not valid UTF-8/],
      [[...len(7, len(1, [...utf8('x'.repeat(80)), 0xed, 0xa0, 0x80]))], /not valid UTF-8/], // a long string holding a UTF-16 surrogate
      [[...tag(2, 0), ...new Array(10).fill(0xff), 1], /varint longer than 10 bytes/],
      [[...tag(99, 3), ...tag(98, 4)], /group 99 closed by end-group 98/],
      [[...tag(99, 4)], /unexpected end-group/],
      [[...tag(99, 1), 1, 2, 3], /fixed-width value cut short/],
    ]
    for (const [bytes, message] of bad) {
      const b = new Uint8Array(bytes)
      expect(() => decodeTransaction(b), JSON.stringify(bytes)).toThrow(WireFormatError)
      expect(() => decodeTransaction(b), JSON.stringify(bytes)).toThrow(message)
    }
  })

  it('a cut message either decodes as protobuf-es decodes it or throws WireFormatError', () => {
    for (const { file, message } of fixtures) {
      const bytes = toBinary(TransactionSchema, message)
      const step = Math.max(1, Math.floor(bytes.length / 150))
      for (let cut = 0; cut < bytes.length; cut += step) {
        const prefix = bytes.subarray(0, cut)
        const ours = outcome(() => decodeTransaction(prefix))
        if ('error' in ours) {
          expect(ours.error, `${file} cut at ${cut}`).toBeInstanceOf(WireFormatError)
          continue
        }
        expect(ours.value, `${file} cut at ${cut}`).toStrictEqual(reference(prefix))
      }
    }
  })
})

describe('a malformed response on the stream', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-decode-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('stops the ingest with an error naming the endpoint; only whole blocks of earlier responses are kept', async () => {
    const { blocks, chain } = sampleChain(60)
    const broken = 150
    const transactions = chain.transactions.slice()
    transactions[broken] = new Uint8Array([...tag(3, 2), 40, 1]) // info: a length past the transaction's end
    const server = await startStreamServer({ chain: { ...chain, transactions }, chainId: 4, maxBatchSize: 64 })
    const { store } = await openLedger(join(dir, 'l.db'), { readonly: false, chainId: 4 })
    try {
      const run = ingestFromStream({ endpoint: server.url, store, startingVersion: 1, toVersion: (blocks.at(-1) as { last_version: string }).last_version })
      await expect(run).rejects.toThrow(StreamResponseError)
      await expect(run).rejects.toThrow(new RegExp(`stream ${server.url}: a response is not a valid TransactionsResponse: transaction ${broken % 64} of the response: length 40 runs past the end`))
      const info = await store.ledgerInfo()
      const lastVersions = new Set(blocks.map((b) => String(b.last_version)))
      expect(info).not.toBeNull()
      expect(lastVersions.has(String(info?.ledger_version))).toBe(true)
      expect(BigInt(info?.ledger_version ?? 0)).toBeLessThan(BigInt(chain.firstVersion) + BigInt(broken - (broken % 64)))
    } finally {
      await store.close()
      await server.close()
    }
  })
})
