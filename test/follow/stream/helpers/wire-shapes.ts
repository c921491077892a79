import { fromJson, toBinary, type JsonValue, type Message } from '@bufbuild/protobuf'
import type { GenMessage } from '@bufbuild/protobuf/codegenv2'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { transactionText } from '../../../../src/follow/stream/convert/transaction-text.js'
import { TextWriter } from '../../../../src/follow/stream/decode/text-writer.js'
import { decodeTransactionsResponse } from '../../../../src/follow/stream/decode/transaction.js'
import { WireFormatError } from '../../../../src/follow/stream/decode/wire-reader.js'
import { decodeTextResponse } from '../../../../src/follow/stream/decode/wire-text.js'
import {
  AccountSignatureSchema,
  AnySignatureSchema,
  DeleteTableItemSchema,
  FeePayerSignatureSchema,
  IndexedSignatureSchema,
  MoveScriptBytecodeSchema,
  MultiAgentSignatureSchema,
  MultiEd25519SignatureSchema,
  MultiKeySignatureSchema,
  ScriptPayloadSchema,
  SignatureSchema,
  SingleKeySignatureSchema,
  TransactionPayloadSchema,
  TransactionSchema,
  UserTransactionRequestSchema,
  WriteSetChangeSchema,
  WriteTableItemSchema,
} from '../../../../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'

const STREAM = join(import.meta.dirname, '../../../fixtures/aptos-stream')

/** A transaction's wire bytes from its proto3 JSON form. */
export function wire(json: JsonValue): Uint8Array {
  return toBinary(TransactionSchema, fromJson(TransactionSchema, json))
}

/** The mainnet fixtures (test/fixtures/aptos-stream), by file name, as wire bytes. */
export function mainnetFixtures(): { name: string; bytes: Uint8Array }[] {
  return readdirSync(STREAM)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((name) => ({ name, bytes: wire(JSON.parse(readFileSync(join(STREAM, name), 'utf8')) as JsonValue) }))
}

const ed = { publicKey: 'AQI=', signature: 'AwQF' }
const keyless = { type: 'TYPE_KEYLESS', publicKey: 'G2h0dA==' }
const entry = { type: 'TYPE_ENTRY_FUNCTION_PAYLOAD', entryFunctionPayload: { entryFunctionIdStr: '0x1::m::f', arguments: ['"a"'] } }
/** A user transaction with `request` fields and write-set `changes`, the rest left at proto3 defaults. */
const user = (version: number, request: JsonValue, changes: JsonValue[] = []): JsonValue => ({ version: String(version), info: { hash: 'AQ==', changes }, user: { request: { sender: '0x00ab', payload: entry, ...(request as object) } } })

/**
 * Shapes of the parts the wire path writes member by member (write-set changes, signatures,
 * payloads) that the mainnet fixtures leave out: proto3 defaults, strings that need escaping,
 * JSON text that is not the node's, enum values the schema does not name, kinds it leaves to the
 * decoder. Each is compared with the decoder's text by the tests.
 */
export function oddShapes(): Uint8Array[] {
  const shapes: JsonValue[] = [
    user(20, {}, [
      { writeTableItem: { handle: '0x1', key: '0x"k"\n', data: { key: '{"b": 1}', keyType: 'u64', value: '1.50', valueType: '0x1::a::\u00e9' } } },
      { writeTableItem: { stateKeyHash: 'AP8=', handle: '0xab\u00e9', key: '0x2' } },
      { writeTableItem: { data: {} } },
      { deleteTableItem: { stateKeyHash: 'AQ==', handle: '0x3', key: '0x4', data: { key: '"\\u00e9"', keyType: 'address' } } },
      { deleteTableItem: {} },
      { deleteResource: { address: '0x000001', stateKeyHash: 'AQ==', typeStr: '0x1::coin::CoinStore<0x1::aptos_coin::AptosCoin>' } },
      { deleteResource: { address: '0x1', type: { address: '0x1', module: 'm', name: 'S' } } },
      { deleteResource: {} },
      { writeResource: { address: '0x1', type: { address: '0x1', module: 'm', name: 'S' }, data: '{}' } },
      { writeModule: { address: '0x1', data: { bytecode: 'AQI=' } } },
      { deleteModule: { address: '0x1', module: { address: '0x1', name: 'm' } } },
      { type: 'TYPE_WRITE_TABLE_ITEM' },
      { writeResource: { address: '0x', typeStr: '0x1::a::B', data: '1' } },
      { writeResource: { address: 'a"b', typeStr: '0x1::a::B', data: '1' } },
      { deleteResource: { address: '0x000', typeStr: '0x1::a::B' } },
      { deleteResource: { address: '0x0\u00e90', typeStr: '0x1::a::B' } },
    ]),
    { version: '35', info: {}, user: { request: { sender: '0x1', payload: entry }, events: [{ key: { accountAddress: '0x0é' }, typeStr: '0x1::e::E', data: '{}' }, { key: { accountAddress: '0x' }, typeStr: 'x', data: '1' }, { key: { creationNumber: '1' }, typeStr: 'x', data: '1' }, { key: { accountAddress: '1x00' }, typeStr: 'x', data: '1' }] } },
    user(21, { signature: { type: 'TYPE_MULTI_AGENT', multiAgent: { sender: { ed25519: ed }, secondarySignerAddresses: ['0x0002', '0xé'], secondarySigners: [{ ed25519: ed }, { multiEd25519: { publicKeys: ['AQ=='], signatures: ['Ag=='], threshold: 1, publicKeyIndices: [0, 9, 31, 40] } }] } } }),
    user(22, { signature: { multiAgent: {} } }),
    user(23, { signature: { feePayer: { sender: { singleKeySignature: { publicKey: keyless, signature: { type: 'TYPE_WEBAUTHN', signature: 'AQ==', webauthn: { signature: 'Ag==' } } } }, feePayerAddress: '0x00f', feePayerSigner: { abstraction: { functionInfo: '0x1::auth::f "x"', signature: 'AQ==' } } } } }),
    user(24, { signature: { feePayer: { sender: { ed25519: ed }, feePayerAddress: '0x1' } } }),
    user(25, { signature: { feePayer: { sender: {}, feePayerSigner: { ed25519: ed } } } }),
    user(26, { signature: { singleSender: { sender: { singleKeySignature: { publicKey: { type: 9, publicKey: 'AQ==' }, signature: { type: 'TYPE_SECP256K1_ECDSA', secp256k1Ecdsa: {} } } } } } }),
    user(27, { signature: { singleSender: { sender: { singleKeySignature: {} } } } }),
    user(28, { signature: { singleSender: { sender: { multiKeySignature: { publicKeys: [keyless, {}], signatures: [{ index: 3, signature: { type: 'TYPE_ED25519', signature: 'AQ==' } }, {}], signaturesRequired: 2 } } } } }),
    user(29, { signature: { singleSender: { sender: { abstraction: {} } } } }),
    user(30, { signature: { singleSender: {} } }),
    user(31, { signature: { singleSender: { sender: { type: 'TYPE_ED25519' } } } }),
    user(32, { signature: { multiEd25519: { publicKeys: ['AQ==', 'Ag=='], signatures: ['Aw=='], threshold: 4294967295, publicKeyIndices: [1] } } }),
    user(33, { signature: { multiEd25519: {} } }),
    user(34, { signature: { type: 'TYPE_ED25519' } }),
    user(40, { payload: { ...entry, extraConfigV1: { multisigAddress: '0x00c', replayProtectionNonce: '18446744073709551615' } } }),
    user(41, { payload: { ...entry, extraConfigV1: {} } }),
    user(42, { payload: { type: 'TYPE_SCRIPT_PAYLOAD', scriptPayload: { code: { bytecode: 'oRzrCw==' }, typeArguments: [{ type: 'MOVE_TYPES_U8' }], arguments: ['1', '{"a" :2}'] }, extraConfigV1: { replayProtectionNonce: '7' } } }),
    user(43, { payload: { scriptPayload: { code: { bytecode: 'AQ==', abi: { name: 'main', visibility: 'VISIBILITY_PUBLIC', isEntry: true, params: [{ type: 'MOVE_TYPES_SIGNER' }] } } } } }),
    user(44, { payload: { scriptPayload: {} } }),
    user(45, { payload: { multisigPayload: { multisigAddress: '0x0d', transactionPayload: { entryFunctionPayload: { entryFunctionIdStr: '0x1::m::g' } } } } }),
    user(46, { payload: { writeSetPayload: {} } }),
    user(47, { payload: { type: 'TYPE_ENTRY_FUNCTION_PAYLOAD' } }),
  ]
  return shapes.map(wire)
}

/** `json` in the form of the message `schema`, as wire bytes. */
function bin<T extends Message>(schema: GenMessage<T>, json: JsonValue): Uint8Array {
  return toBinary(schema, fromJson(schema, json))
}

/** Field `n` (length-delimited) holding `bytes`. */
function field(n: number, ...bytes: Uint8Array[]): Uint8Array {
  const inner = Buffer.concat(bytes)
  const head: number[] = [(n << 3) | 2]
  for (let v = inner.length; ; v >>>= 7) {
    if (v < 0x80) {
      head.push(v)
      break
    }
    head.push((v & 0x7f) | 0x80)
  }
  return Buffer.concat([Buffer.from(head), inner])
}

/** Two messages of `schema` one after the other: protobuf parses them as one, the second merged into the first. */
function twice<T extends Message>(schema: GenMessage<T>, a: JsonValue, b: JsonValue): Uint8Array {
  return Buffer.concat([bin(schema, a), bin(schema, b)])
}

/**
 * Transactions with one inner message sent twice (each level of a signature, payload and
 * write-set change that the wire path parses), which protobuf merges: the decoder's shapes.
 * Built by hand, since a message's JSON form cannot send a field twice.
 */
export function mergedShapes(): Uint8Array[] {
  const head = (version: number) => wire({ version: String(version), info: { hash: 'AQ==' } })
  const request = bin(UserTransactionRequestSchema, { sender: '0x1', payload: entry })
  /** A user transaction whose request has the signature `sig` (a Signature's bytes). */
  const signed = (version: number, sig: Uint8Array) => Buffer.concat([head(version), field(10, field(1, request, field(7, sig)))])
  /** A user transaction whose request has the payload `payload` (a TransactionPayload's bytes). */
  const paying = (version: number, payload: Uint8Array) => Buffer.concat([head(version), field(10, field(1, bin(UserTransactionRequestSchema, { sender: '0x1' }), field(6, payload)))])
  /** A user transaction whose write set has the change `change` (a WriteSetChange's bytes). */
  const changing = (version: number, change: Uint8Array) => Buffer.concat([wire({ version: String(version), user: { request: { sender: '0x1', payload: entry } } }), field(3, field(9, change))])
  const single = { publicKey: keyless, signature: { type: 'TYPE_KEYLESS', keyless: { signature: 'AQ==' } } }
  const item = { handle: '0x1', key: '0x2', data: { key: '"k"', keyType: 'address', value: '1', valueType: 'u64' } }
  return [
    signed(60, twice(SignatureSchema, { feePayer: { sender: { ed25519: ed } } }, { feePayer: { feePayerSigner: { ed25519: ed } } })),
    signed(61, twice(SignatureSchema, { ed25519: ed }, { singleSender: { sender: { ed25519: ed } } })),
    signed(62, field(5, twice(FeePayerSignatureSchema, { sender: { ed25519: ed }, feePayerSigner: { ed25519: ed } }, { sender: { ed25519: { signature: 'Bw==' } } }))),
    signed(63, field(5, twice(FeePayerSignatureSchema, { sender: { ed25519: ed }, feePayerSigner: { ed25519: ed } }, { feePayerSigner: { singleKeySignature: single } }))),
    signed(64, field(4, twice(MultiAgentSignatureSchema, { sender: { ed25519: ed }, secondarySigners: [{ ed25519: ed }] }, { secondarySignerAddresses: ['0x2'], secondarySigners: [{ singleKeySignature: single }] }))),
    signed(65, field(7, field(1, twice(AccountSignatureSchema, { singleKeySignature: single }, { singleKeySignature: { publicKey: { type: 'TYPE_ED25519' } } })))),
    signed(66, field(7, field(1, field(5, twice(SingleKeySignatureSchema, single, { signature: { type: 'TYPE_ED25519' } }))))),
    signed(67, field(7, field(1, field(5, field(2, twice(AnySignatureSchema, { ed25519: { signature: 'AQ==' } }, { ed25519: {} })))))),
    signed(68, field(7, field(1, field(5, field(2, twice(AnySignatureSchema, { ed25519: { signature: 'AQ==' } }, { webauthn: { signature: 'Ag==' } })))))),
    signed(69, field(7, field(1, field(6, twice(MultiKeySignatureSchema, { publicKeys: [keyless], signatures: [{ index: 0, signature: single.signature }], signaturesRequired: 1 }, { publicKeys: [keyless], signaturesRequired: 2 }))))),
    signed(70, field(7, field(1, field(6, field(2, twice(IndexedSignatureSchema, { index: 1, signature: single.signature }, { signature: { type: 'TYPE_ED25519' } })))))),
    signed(71, field(3, twice(MultiEd25519SignatureSchema, { publicKeys: ['AQ=='], publicKeyIndices: [1] }, { publicKeys: ['Ag=='], threshold: 2, publicKeyIndices: [7] }))),
    paying(72, twice(TransactionPayloadSchema, entry, { entryFunctionPayload: { arguments: ['2'] } })),
    paying(73, twice(TransactionPayloadSchema, { ...entry, extraConfigV1: { replayProtectionNonce: '5' } }, { extraConfigV1: { multisigAddress: '0x9' } })),
    paying(74, field(3, twice(ScriptPayloadSchema, { code: { bytecode: 'AQ==' } }, { code: { abi: { name: 'main' } }, arguments: ['1'] }))),
    paying(75, field(3, field(1, twice(MoveScriptBytecodeSchema, { bytecode: 'AQ==', abi: { name: 'a' } }, { abi: { isEntry: true } })))),
    changing(76, twice(WriteSetChangeSchema, { writeTableItem: item }, { writeTableItem: { data: { value: '2' } } })),
    changing(77, twice(WriteSetChangeSchema, { writeResource: { typeStr: '0x1::a::B', data: '{}' } }, { deleteResource: { typeStr: '0x1::a::B' } })),
    changing(78, field(7, twice(WriteTableItemSchema, item, { data: { keyType: 'u8' } }))),
    changing(79, field(4, twice(DeleteTableItemSchema, { handle: '0x1', data: { key: '1' } }, { data: { keyType: 'u8' } }))),
  ]
}

/** What a response comes to: each transaction's text (or the error its block would throw), or the error refusing the response. */
export type Outcome = { texts: string[] } | { refused: string }

/** The ingest's outcome of `bytes`: `decodeTextResponse` through a small writer (so texts move chunk). */
export function wireOutcome(bytes: Uint8Array): Outcome {
  try {
    return { texts: decodeTextResponse(bytes, new TextWriter(256)).transactions.map((t) => t.error?.message ?? t.bytes.toString('utf8')) }
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error
    return { refused: error.message }
  }
}

/** The reference outcome of `bytes`: the message decoder, then `transactionText` of each message. */
export function decoderOutcome(bytes: Uint8Array): Outcome {
  let transactions
  try {
    transactions = decodeTransactionsResponse(bytes).transactions
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error
    return { refused: error.message }
  }
  return {
    texts: transactions.map((t) => {
      try {
        return transactionText(t).json
      } catch (error) {
        return (error as Error).message
      }
    }),
  }
}
