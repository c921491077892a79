import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hex } from '../../../src/follow/stream/convert/hex.js'
import { transactionText } from '../../../src/follow/stream/convert/transaction-text.js'
import { TextWriter } from '../../../src/follow/stream/decode/text-writer.js'
import { decodeTransaction, decodeTransactionsResponse } from '../../../src/follow/stream/decode/transaction.js'
import { decodeTextResponse, textHash } from '../../../src/follow/stream/decode/wire-text.js'
import { WireFormatError } from '../../../src/follow/stream/decode/wire-reader.js'
import { TransactionSchema, type Transaction } from '../../../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'
import { sampleChain } from './helpers/sample.js'

const FIXTURES = join(import.meta.dirname, '../../fixtures')
const STREAM = join(FIXTURES, 'aptos-stream')

/** A TransactionsResponse's wire bytes holding `transactions` (field 1 each) and chain id 4. */
function response(transactions: readonly Uint8Array[]): Buffer {
  const parts: Buffer[] = []
  const varint = (n: number) => {
    const out: number[] = []
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80)
      n >>>= 7
    }
    out.push(n)
    return Buffer.from(out)
  }
  for (const t of transactions) parts.push(Buffer.from([0x0a]), varint(t.length), Buffer.from(t))
  parts.push(Buffer.from([0x10, 4]))
  return Buffer.concat(parts)
}

/** What the ingest held before the wire path: the decoder's message through `transactionText`. */
function expected(tx: Transaction) {
  return transactionText(tx)
}

function messages(): Uint8Array[] {
  const out = readdirSync(STREAM)
    .filter((f) => f.endsWith('.json'))
    .map((f) => toBinary(TransactionSchema, fromJson(TransactionSchema, JSON.parse(readFileSync(join(STREAM, f), 'utf8')) as JsonValue)))
  // Proto3 defaults, strings that need escaping, JSON text that is not the node's, repeats that protobuf merges.
  const more: JsonValue[] = [
    { version: '7', blockHeight: '1', user: {} },
    { version: '7', info: {}, user: { request: {} } },
    { version: '8', info: { vmStatus: 'Move abort "x"\n\u0001 é', success: true }, stateCheckpoint: {} },
    { version: '9', info: {}, blockEpilogue: { blockEndInfo: { blockGasLimitReached: true, blockEffectiveBlockGasUnits: '12' } } },
    { version: '10', info: {}, blockEpilogue: {} },
    { version: '10', timestamp: { seconds: '250000000000', nanos: 999999999 }, info: {}, blockEpilogue: { blockEndInfo: { blockApproxOutputSize: '18446744073709551615' } } },
    { version: '10', timestamp: { seconds: '1750000000', nanos: 123456789 }, info: {}, stateCheckpoint: {} },
    { version: '10', timestamp: { seconds: '-1', nanos: 5 }, info: {}, stateCheckpoint: {} },
    { version: '11', info: { hash: 'AQI=' }, blockMetadata: { id: '0x0\u00e9"', proposer: '0x00000a', failedProposerIndices: [1, 300], previousBlockVotesBitvec: 'AP8=' } },
    {
      version: '12',
      info: { changes: [{ type: 'TYPE_WRITE_RESOURCE', writeResource: { address: '0x0001', typeStr: '0x1::a::B', data: '{"a": 1,"b":"\u00e9","c":[1,2.5]}' } }] },
      user: {
        request: {
          sender: '0x000abc',
          sequenceNumber: '3',
          expirationTimestampSecs: { seconds: '-5' },
          payload: { type: 'TYPE_ENTRY_FUNCTION_PAYLOAD', entryFunctionPayload: { entryFunctionIdStr: '0x0001::m::f', arguments: ['"x"', '{"k":1,"k":2}', '12345678901234567', '"\\u00e9"'] } },
        },
        events: [{ key: { accountAddress: '0x00' }, typeStr: '0x1::e::E', data: '' }, { typeStr: '0x1::e::E', data: '{}' }, { key: { creationNumber: '2' }, data: '[]' }],
      },
    },
  ]
  for (const m of more) out.push(toBinary(TransactionSchema, fromJson(TransactionSchema, m)))
  return out
}

describe('stream transactions written straight from the wire (decodeTextResponse)', () => {
  it('writes the bytes and skeleton transactionText writes, for the sample chain, the mainnet fixtures and odd shapes', () => {
    const { chain } = sampleChain(400)
    const all = [...chain.transactions, ...messages()]
    // Several responses through one writer with small chunks, so texts move between chunks.
    const w = new TextWriter(4096)
    for (let i = 0; i < all.length; i += 97) {
      const batch = all.slice(i, i + 97)
      const got = decodeTextResponse(response(batch), w)
      expect(got.chainId).toBe('4')
      expect(got.transactions.length).toBe(batch.length)
      got.transactions.forEach((t, k) => {
        const tx = decodeTransaction(batch[k] as Uint8Array)
        const want = expected(tx)
        expect(t.bytes.toString('utf8'), `version ${tx.version}`).toBe(want.json)
        expect(t.skeleton).toEqual(want.skeleton)
        expect([t.version, t.blockHeight, t.kind, textHash(t)]).toEqual([tx.version, tx.blockHeight, tx.txnData.case, hex(tx.info?.hash ?? new Uint8Array())])
      })
    }
  })

  it('keeps every earlier text intact while later ones are written', () => {
    const { chain } = sampleChain(100)
    const w = new TextWriter(1024)
    const got = decodeTextResponse(response(chain.transactions), w)
    got.transactions.forEach((t, k) => expect(t.bytes.toString('utf8')).toBe(transactionText(decodeTransaction(chain.transactions[k] as Uint8Array)).json))
  })

  it('refuses a malformed response as the message decoder does, with the same error', () => {
    const good = response(messages())
    let checked = 0
    for (let cut = 1; cut < good.length; cut += 89) {
      for (const bytes of [good.subarray(0, cut), Buffer.concat([good.subarray(0, cut), Buffer.from([0xff]), good.subarray(cut + 1)])]) {
        let theirs: unknown
        try {
          decodeTransactionsResponse(bytes)
        } catch (error) {
          theirs = error
        }
        let ours: unknown
        let got
        try {
          got = decodeTextResponse(bytes, new TextWriter(256))
        } catch (error) {
          ours = error
        }
        if (theirs === undefined) {
          expect(ours).toBeUndefined()
          const back = decodeTransactionsResponse(bytes)
          expect(got?.transactions.map((t) => t.error?.message ?? t.bytes.toString('utf8'))).toEqual(
            back.transactions.map((t) => {
              try {
                return transactionText(t).json
              } catch (error) {
                return (error as Error).message
              }
            }),
          )
        } else {
          expect(ours).toBeInstanceOf(WireFormatError)
          expect((ours as Error).message).toBe((theirs as Error).message)
        }
        checked++
      }
    }
    expect(checked).toBeGreaterThan(60)
  })
})
