import type { JsonValue } from '@bufbuild/protobuf'
import { describe, expect, it } from 'vitest'
import { hex } from '../../../src/follow/stream/convert/hex.js'
import { transactionText } from '../../../src/follow/stream/convert/transaction-text.js'
import { TextWriter } from '../../../src/follow/stream/decode/text-writer.js'
import { decodeTransaction } from '../../../src/follow/stream/decode/transaction.js'
import { decodeTextResponse, textHash } from '../../../src/follow/stream/decode/wire-text.js'
import { fallbacks, partFallbacks } from '../../../src/follow/stream/decode/fallbacks.js'
import type { Transaction } from '../../../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'
import { responseBytes } from '../../../src/follow/stream/stream-server.js'
import { fcRuns } from '../../budget.js'
import { sampleChain } from './helpers/sample.js'
import { decoderOutcome, mainnetFixtures, mergedShapes, oddShapes, wire, wireOutcome } from './helpers/wire-shapes.js'

/** A TransactionsResponse's wire bytes holding `transactions` and chain id 4. */
const response = (transactions: readonly Uint8Array[]) => responseBytes(transactions, 4)

/** What the ingest held before the wire path: the decoder's message through `transactionText`. */
function expected(tx: Transaction) {
  return transactionText(tx)
}

function messages(): Uint8Array[] {
  const out = [...mainnetFixtures().map((f) => f.bytes), ...oddShapes(), ...mergedShapes()]
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
  for (const m of more) out.push(wire(m))
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

  it('writes every mainnet fixture but the validator transaction wholly from the wire, never through the decoder', () => {
    const w = new TextWriter()
    const taken = mainnetFixtures().map(({ name, bytes }) => {
      const whole = fallbacks.transaction
      const parts = partFallbacks()
      decodeTextResponse(response([bytes]), w)
      return `${name}: ${fallbacks.transaction > whole ? 'decoder' : partFallbacks() > parts ? 'in part' : 'wire'}`
    })
    expect(taken.filter((t) => !t.endsWith(': wire'))).toEqual(['554229017_events_with_no_event_size_info.json: decoder'])
  })

  it('leaves to the decoder exactly the odd shapes it is meant to: modules, resources without a type string, signers without a signature, payloads other than entry functions and scripts', () => {
    const w = new TextWriter()
    const taken = oddShapes().map((bytes) => {
      const before = { ...fallbacks }
      const [t] = decodeTextResponse(response([bytes]), w).transactions
      const parts = (['transaction', 'event', 'change', 'signature', 'payload'] as const).filter((k) => fallbacks[k] > before[k]).map((k) => `${k} ${fallbacks[k] - before[k]}`)
      return `${t?.version}: ${parts.join(', ') || 'wire'}`
    })
    expect(taken.filter((t) => !t.endsWith(': wire'))).toEqual(['20: change 6', '22: signature 1', '24: signature 1', '25: signature 1', '30: signature 1', '31: signature 1', '34: signature 1', '45: payload 1', '46: payload 1', '47: payload 1'])
  })

  it('writes what the decoder writes of two transactions merged as protobuf merges them, for every pair of mainnet fixtures', () => {
    const all = mainnetFixtures().map((f) => f.bytes)
    const w = new TextWriter(4096)
    for (const a of all) {
      const batch = all.map((b) => Buffer.concat([a, b]))
      const got = decodeTextResponse(response(batch), w)
      got.transactions.forEach((t, k) => {
        const want = expected(decodeTransaction(batch[k] as Uint8Array))
        expect(t.bytes.toString('utf8')).toBe(want.json)
        expect(t.skeleton).toEqual(want.skeleton)
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
    // Cuts spread over the whole response, as many as the budget gives: each one decodes the response up to the cut twice.
    const step = Math.max(1, Math.floor(good.length / fcRuns(5)))
    let checked = 0
    for (let cut = 1; cut < good.length; cut += step) {
      for (const bytes of [good.subarray(0, cut), Buffer.concat([good.subarray(0, cut), Buffer.from([0xff]), good.subarray(cut + 1)])]) {
        expect(wireOutcome(bytes)).toEqual(decoderOutcome(bytes))
        checked++
      }
    }
    expect(checked).toBeGreaterThan(60)
  })
})
