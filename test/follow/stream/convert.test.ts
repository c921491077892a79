import { fromBinary, fromJson, toBinary, toJson, type JsonValue } from '@bufbuild/protobuf'
import { Ajv, type ValidateFunction } from 'ajv'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { transactionJson } from '../../../src/follow/stream/convert/transaction.js'
import { transactionText } from '../../../src/follow/stream/convert/transaction-text.js'
import { decodeTransaction } from '../../../src/follow/stream/decode/transaction.js'
import { checkBlock } from '../../../src/ledger/store/append-rules.js'
import { sampleChain } from './helpers/sample.js'
import { transactionProtoJson } from '../../../src/follow/stream/convert/to-proto.js'
import { TransactionSchema } from '../../../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'

const FIXTURES = join(import.meta.dirname, '../../fixtures')
const STREAM = join(FIXTURES, 'aptos-stream')
const files = readdirSync(STREAM).filter((f) => f.endsWith('.json'))
const schemas = discriminated(JSON.parse(readFileSync(join(FIXTURES, 'aptos-openapi/transaction-schemas.json'), 'utf8')).schemas as Record<string, unknown>)

/**
 * The schemas with each discriminated `oneOf` as "if the tag is k, then the mapped schema", so a
 * body is checked against the one branch its tag names and Ajv's errors are that branch's
 * (a plain `oneOf` reports every branch's). A tag the mapping lacks matches no branch.
 */
function discriminated(all: Record<string, unknown>): Record<string, unknown> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (typeof node !== 'object' || node === null) return node
    const o = node as Record<string, unknown>
    const d = o.discriminator as { propertyName: string; mapping: Record<string, string> } | undefined
    if (d !== undefined && Array.isArray(o.oneOf)) {
      const tag = d.propertyName
      const keys = Object.keys(d.mapping)
      return {
        type: 'object',
        required: [tag],
        properties: { [tag]: { enum: keys } },
        allOf: keys.map((k) => ({ if: { properties: { [tag]: { const: k } } }, then: { $ref: `node${d.mapping[k]}` } })),
      }
    }
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(o)) out[k] = k === '$ref' && typeof v === 'string' ? `node${v}` : walk(v)
    // The schema's MoveType pattern has no references, which the node writes for ABI parameters
    // (`&signer`, Aptos `MoveType::Reference` Display): the one deviation allowed here.
    // Nor does its struct-tag pattern allow the `, ` between generic parameters that the node
    // writes (`0x1::pool::Pool<0x1::a::A, 0x1::b::B>`, Aptos `MoveStructTag` Display).
    if (typeof out.pattern === 'string' && out.pattern.startsWith('^(bool|u8')) out.pattern = `^(&(mut )?)?${out.pattern.slice(1)}`
    if (out.pattern === '^0x[0-9a-zA-Z:_<>]+$') out.pattern = '^0x[0-9a-zA-Z:_<>, ]+$'
    return out
  }
  return walk(all) as Record<string, unknown>
}

const U64_MAX = 18446744073709551615n
const ajv = new Ajv({ strict: false, allErrors: true })
ajv.addFormat('uint64', { type: 'string', validate: (s: string) => /^(0|[1-9][0-9]{0,19})$/.test(s) && BigInt(s) <= U64_MAX })
ajv.addFormat('hex', { type: 'string', validate: (s: string) => /^0x[0-9a-f]*$/.test(s) })
for (const [name, max] of [['uint8', 255], ['uint16', 65535], ['uint32', 4294967295]] as const) {
  ajv.addFormat(name, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= max })
}
ajv.addFormat('int64', { type: 'number', validate: () => true })
ajv.addSchema({ $id: 'node', components: { schemas } })
const validators = new Map<string, ValidateFunction>()
function validate(name: string, body: unknown): unknown {
  let v = validators.get(name)
  if (v === undefined) {
    v = ajv.compile({ $ref: `node#/components/schemas/${name}` })
    validators.set(name, v)
  }
  return v(withoutNulls(body)) ? null : { schema: name, errors: v.errors?.slice(0, 5) }
}

/**
 * The node writes an absent optional field as `null` (`state_checkpoint_hash`,
 * `replay_protection_nonce`; see the real node output in txs-22.json) where its OpenAPI schema
 * just leaves the field optional: such keys are dropped before checking. A required field that is
 * null is then missing, so it still fails.
 */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls)
  if (typeof v !== 'object' || v === null) return v
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]))
}

function validateSchema(name: string, schema: object, body: unknown): unknown {
  const v = ajv.compile(schema)
  return v(withoutNulls(body)) ? null : { schema: name, errors: v.errors?.slice(0, 5) }
}

/** The node's schema for a transaction type, and what the schema cannot hold as written. */
function schemaCheck(json: Record<string, unknown>): unknown {
  const sig = json.signature as Record<string, unknown> | undefined
  if (json.type === 'validator_transaction' && json.validator_transaction_type === undefined) {
    // The stream sent a validator transaction of neither kind (the mainnet fixture has none), so
    // there is no kind field to write: every other field must still be the node's.
    const jwk = schemas.JWKUpdateTransaction as { required: string[] }
    return validateSchema('validator (no kind)', { ...jwk, required: jwk.required.filter((k) => k !== 'quorum_certified_update') }, json)
  }
  if (sig?.type === 'single_sender') {
    // The schema says single_sender is an AccountSignature whose `type` is both `single_sender`
    // and its own kind; the node writes `single_sender` over the kind. Check the kind's fields.
    const kind = sig.public_keys !== undefined ? 'multi_key_signature' : 'single_key_signature'
    const { signature: _s, ...rest } = json
    void _s
    return validate('Transaction', rest) ?? validate('AccountSignature', { ...sig, type: kind })
  }
  return validate('Transaction', json)
}

function fixture(file: string) {
  const text = readFileSync(join(STREAM, file), 'utf8')
  return { json: JSON.parse(text) as JsonValue, message: fromJson(TransactionSchema, JSON.parse(text) as JsonValue) }
}

/** A proto message's JSON as the stream's own conversion keeps it, minus what the node's JSON has no place for. */
function comparable(json: JsonValue): JsonValue {
  const o = structuredClone(json) as Record<string, unknown>
  delete o.sizeInfo
  const payload = (o.user as { request?: { payload?: Record<string, unknown> } } | undefined)?.request?.payload
  // An empty extra config says nothing the node's JSON could carry.
  if (payload?.extraConfigV1 !== undefined && Object.keys(payload.extraConfigV1 as object).length === 0) delete payload.extraConfigV1
  return o as JsonValue
}

describe('stream transaction -> node REST JSON', () => {
  it('holds the fixtures it names: every type and signature kind of the sample', () => {
    const types = new Set(files.map((f) => (fixture(f).json as { type: string }).type))
    expect([...types].sort()).toEqual(['TRANSACTION_TYPE_STATE_CHECKPOINT', 'TRANSACTION_TYPE_USER', 'TRANSACTION_TYPE_VALIDATOR'])
  })

  for (const file of files) {
    it(`${file}: the converted transaction is the node's schema`, () => {
      const { message } = fixture(file)
      const json = transactionJson(fromBinary(TransactionSchema, toBinary(TransactionSchema, message))) as unknown as Record<string, unknown>
      expect(json.version).toBe(message.version)
      expect(schemaCheck(json)).toBeNull()
    })

    it(`${file}: keeps every field the proto carries (node JSON -> proto gives the proto back)`, () => {
      const { message, json: original } = fixture(file)
      const node = transactionJson(message) as unknown as Record<string, unknown>
      const back = fromJson(TransactionSchema, transactionProtoJson(node, { block_height: message.blockHeight, epoch: message.epoch }) as JsonValue)
      expect(comparable(toJson(TransactionSchema, back))).toEqual(comparable(toJson(TransactionSchema, fromJson(TransactionSchema, original))))
    })
  }

  it('writes addresses short, event data parsed, proto3 defaults out (sequence_number 0, module event guid)', () => {
    const { message } = fixture('2662373625_fa_secondary_store_burnt_with_deletion_event.json')
    const json = transactionJson(message) as unknown as { events: { guid: unknown; data: unknown }[]; changes: { type: string; data?: unknown }[]; sender: string }
    expect(json.events[0]?.guid).toEqual({ creation_number: '0', account_address: '0x0' })
    expect(json.events[0]?.data).toEqual({ amount: '870530600824', store: '0xa6ab8518e5f28a5f27247a895aa8b3de4a917209c6841b16187e8d64a67de242' })
    const table = json.changes.find((c) => c.type === 'delete_table_item')
    expect(table?.data).toEqual({ key: '0', key_type: 'u64' })
    const first = fixture('685_user_txn_ed25519.json')
    expect((first.json as { user: { request: Record<string, unknown> } }).user.request.sequenceNumber).toBeUndefined()
    expect((transactionJson(first.message) as unknown as { sequence_number: string }).sequence_number).toBe('0')
  })

  it('writes the JSON text straight from the message as JSON.stringify writes the node JSON, and its skeleton checks as the whole block does', () => {
    const messages = files.map((f) => fixture(f).message)
    // Proto3 defaults and strings that need escaping, on top of the fixtures' kinds.
    messages.push(fromJson(TransactionSchema, { version: '7', blockHeight: '1', user: {} }))
    messages.push(fromJson(TransactionSchema, { version: '8', info: { vmStatus: 'Move abort "x"\n\u0001 é', success: true }, stateCheckpoint: {} }))
    messages.push(fromJson(TransactionSchema, { version: '9', info: {}, blockEpilogue: { blockEndInfo: { blockGasLimitReached: true, blockEffectiveBlockGasUnits: '12' } } }))
    messages.push(fromJson(TransactionSchema, { version: '10', info: {}, blockEpilogue: {} }))
    for (const message of messages) expect(transactionText(message).json).toBe(JSON.stringify(transactionJson(message)))
    const { blocks, chain } = sampleChain(300)
    let at = 0
    for (const b of blocks) {
      const texts = b.transactions.map(() => transactionText(decodeTransaction(chain.transactions[at++] as Uint8Array)))
      expect(texts.map((t) => t.json)).toEqual(b.transactions.map((t) => JSON.stringify(t)))
      expect(checkBlock({ ...b, transactions: texts.map((t) => t.skeleton) })).toEqual({ ...checkBlock(b), transactions: texts.map((t) => t.skeleton) })
    }
    expect(at).toBe(chain.transactions.length)
  })

  it('a real node REST transaction survives node JSON -> stream proto -> node JSON', () => {
    const txns = JSON.parse(readFileSync(join(FIXTURES, 'aptos-mainnet-aphd/txs-22.json'), 'utf8')) as Record<string, unknown>[]
    let epoch = '0'
    for (const t of txns) {
      if (t.type === 'block_metadata_transaction') epoch = t.epoch as string
      const message = fromBinary(TransactionSchema, toBinary(TransactionSchema, fromJson(TransactionSchema, transactionProtoJson(t, { block_height: '0', epoch }) as JsonValue)))
      const again = transactionJson(message) as unknown as Record<string, unknown>
      // What 2022's node wrote differently: no replay_protection_nonce yet, and a table item's raw
      // value, which the stream does not carry (it carries the decoded data, null here).
      const expected = { ...t }
      if (expected.type === 'user_transaction') {
        const { events, timestamp, type, ...head } = expected
        for (const k of Object.keys(expected)) delete expected[k]
        Object.assign(expected, head, { replay_protection_nonce: null, events, timestamp, type })
      }
      expected.changes = (t.changes as Record<string, unknown>[]).map((c) => (c.type === 'write_table_item' ? { ...c, value: '0x' } : c))
      expect(JSON.stringify(again)).toBe(JSON.stringify(expected))
      expect(schemaCheck(again)).toBeNull()
    }
  })
})
