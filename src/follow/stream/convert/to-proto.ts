import { parseMoveType, parseStructTag, type MoveTypeJson } from './move-type.js'

type Json = Record<string, unknown>
/** Node JSON read field by field: its shape is the OpenAPI schema's, checked by the tests, not by types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any

/**
 * The reverse of `transactionJson`: a node REST transaction as the Transaction Stream would send
 * it, in the proto3 JSON mapping of `aptos.transaction.v1.Transaction` (lowerCamelCase, u64 as
 * strings, bytes as base64, enums by name, defaults left out). `block_height` and `epoch` come
 * from the block, since the node's transaction JSON carries neither. What a stream server, a test
 * or a benchmark serves; what the node's JSON does not hold (`size_info`, a table item's
 * decoded `data` when the node gave none) stays empty.
 *
 * @example fromJson(TransactionSchema, transactionProtoJson(txn, { block_height: '7', epoch: '1' }))
 */
export function transactionProtoJson(t: Any, at: { block_height: string; epoch: string }): Json {
  const out: Json = {}
  if (t.timestamp !== undefined) out.timestamp = timestampOf(String(t.timestamp))
  out.version = t.version
  out.info = omitDefaults({
    hash: b64(t.hash),
    stateChangeHash: b64(t.state_change_hash),
    eventRootHash: b64(t.event_root_hash),
    stateCheckpointHash: t.state_checkpoint_hash === null || t.state_checkpoint_hash === undefined ? undefined : b64(t.state_checkpoint_hash),
    gasUsed: t.gas_used,
    success: t.success,
    vmStatus: t.vm_status,
    accumulatorRootHash: b64(t.accumulator_root_hash),
    changes: (t.changes as unknown as Any[]).map(changeProto),
  })
  out.epoch = at.epoch
  out.blockHeight = at.block_height
  switch (t.type as unknown as string) {
    case 'user_transaction': {
      out.type = 'TRANSACTION_TYPE_USER'
      const payload = payloadProto(t.payload)
      if (t.replay_protection_nonce !== null && t.replay_protection_nonce !== undefined) payload.extraConfigV1 = { replayProtectionNonce: t.replay_protection_nonce }
      out.user = {
        request: omitDefaults({
          sender: t.sender,
          sequenceNumber: t.sequence_number,
          maxGasAmount: t.max_gas_amount,
          gasUnitPrice: t.gas_unit_price,
          expirationTimestampSecs: omitDefaults({ seconds: t.expiration_timestamp_secs }),
          payload,
          signature: t.signature === undefined ? undefined : signatureProto(t.signature),
        }),
        events: (t.events as unknown as Any[]).map(eventProto),
      }
      break
    }
    case 'block_metadata_transaction':
      out.type = 'TRANSACTION_TYPE_BLOCK_METADATA'
      out.blockMetadata = omitDefaults({
        id: t.id,
        round: t.round,
        events: (t.events as unknown as Any[]).map(eventProto),
        previousBlockVotesBitvec: Buffer.from(t.previous_block_votes_bitvec as unknown as number[]).toString('base64'),
        proposer: t.proposer,
        failedProposerIndices: t.failed_proposer_indices,
      })
      break
    case 'state_checkpoint_transaction':
      out.type = 'TRANSACTION_TYPE_STATE_CHECKPOINT'
      out.stateCheckpoint = {}
      break
    case 'block_epilogue_transaction': {
      out.type = 'TRANSACTION_TYPE_BLOCK_EPILOGUE'
      const e = t.block_end_info
      out.blockEpilogue =
        e === null || e === undefined
          ? {}
          : { blockEndInfo: omitDefaults({ blockGasLimitReached: e.block_gas_limit_reached, blockOutputLimitReached: e.block_output_limit_reached, blockEffectiveBlockGasUnits: String(e.block_effective_block_gas_units), blockApproxOutputSize: String(e.block_approx_output_size) }) }
      break
    }
    case 'genesis_transaction':
      out.type = 'TRANSACTION_TYPE_GENESIS'
      out.genesis = { payload: writeSetProto(t.payload.write_set), events: (t.events as unknown as Any[]).map(eventProto) }
      break
    case 'validator_transaction':
      out.type = 'TRANSACTION_TYPE_VALIDATOR'
      out.validator = validatorProto(t)
      break
    default:
      throw new Error(`transaction ${String(t.version)}: no stream form for type ${JSON.stringify(t.type)}`)
  }
  return out
}

function b64(hex: unknown): string | undefined {
  if (typeof hex !== 'string') return undefined
  const s = hex.startsWith('0x') ? hex.slice(2) : hex
  return s === '' ? undefined : Buffer.from(s, 'hex').toString('base64')
}

/** proto3 JSON leaves out fields at their default: `undefined`, `""`, `"0"`, 0, false, empty arrays. */
function omitDefaults(o: Json): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === '' || v === '0' || v === 0 || v === false || (Array.isArray(v) && v.length === 0)) continue
    out[k] = v
  }
  return out
}

function timestampOf(micros: string): Json {
  const v = BigInt(micros)
  return omitDefaults({ seconds: String(v / 1_000_000n), nanos: Number(v % 1_000_000n) * 1000 })
}

function jsonText(v: unknown): string {
  return JSON.stringify(v)
}

function eventProto(e: Any): Json {
  return omitDefaults({
    key: omitDefaults({ creationNumber: e.guid.creation_number, accountAddress: longAddress(String(e.guid.account_address)) }),
    sequenceNumber: e.sequence_number,
    type: parseMoveType(String(e.type)),
    typeStr: e.type,
    data: jsonText(e.data),
  })
}

/**
 * The stream's form of an event-key address: special addresses (0x0..0xf) short, every other one
 * 64 hex digits (write-set change addresses come short, as the node writes them).
 */
function longAddress(a: string): string {
  const digits = a.slice(2).replace(/^0+/, '')
  return digits.length <= 1 ? `0x${digits === '' ? '0' : digits}` : `0x${digits.padStart(64, '0')}`
}

function entryFunctionProto(p: Any): Json {
  const [address = '', module = '', name = ''] = String(p.function).split('::')
  return omitDefaults({
    function: { module: { address, name: module }, name },
    typeArguments: (p.type_arguments as unknown as string[]).map(parseMoveType),
    arguments: (p.arguments as unknown as unknown[]).map(jsonText),
    entryFunctionIdStr: p.function,
  })
}

const ABILITY: Record<string, string> = { copy: 'MOVE_ABILITY_COPY', drop: 'MOVE_ABILITY_DROP', store: 'MOVE_ABILITY_STORE', key: 'MOVE_ABILITY_KEY' }

function functionProto(f: Any): Json {
  return omitDefaults({
    name: f.name,
    visibility: `VISIBILITY_${String(f.visibility).toUpperCase()}`,
    isEntry: f.is_entry,
    genericTypeParams: (f.generic_type_params as unknown as Any[]).map((g) => omitDefaults({ constraints: (g.constraints as unknown as string[]).map((a) => ABILITY[a]) })),
    params: (f.params as unknown as string[]).map(parseMoveType),
    return: (f.return as unknown as string[]).map(parseMoveType),
  })
}

function scriptProto(p: Any): Json {
  return omitDefaults({
    code: omitDefaults({ bytecode: b64(p.code.bytecode), abi: p.code.abi === undefined ? undefined : functionProto(p.code.abi) }),
    typeArguments: (p.type_arguments as unknown as string[]).map(parseMoveType),
    arguments: (p.arguments as unknown as unknown[]).map(jsonText),
  })
}

function payloadProto(p: Any): Json {
  switch (p.type as unknown as string) {
    case 'entry_function_payload':
      return { type: 'TYPE_ENTRY_FUNCTION_PAYLOAD', entryFunctionPayload: entryFunctionProto(p) }
    case 'script_payload':
      return { type: 'TYPE_SCRIPT_PAYLOAD', scriptPayload: scriptProto(p) }
    case 'write_set_payload':
      return { type: 'TYPE_WRITE_SET_PAYLOAD', writeSetPayload: { writeSet: writeSetProto(p.write_set) } }
    case 'multisig_payload':
      return {
        type: 'TYPE_MULTISIG_PAYLOAD',
        multisigPayload: omitDefaults({ multisigAddress: p.multisig_address, transactionPayload: p.transaction_payload === undefined ? undefined : { type: 'TYPE_ENTRY_FUNCTION_PAYLOAD', entryFunctionPayload: entryFunctionProto(p.transaction_payload) } }),
      }
    default:
      throw new Error(`no stream form for payload type ${JSON.stringify(p.type)}`)
  }
}

function writeSetProto(w: Any): Json {
  if (w.type === ('script_write_set' as unknown)) return { writeSetType: 'WRITE_SET_TYPE_SCRIPT_WRITE_SET', scriptWriteSet: omitDefaults({ executeAs: w.execute_as, script: w.script === null ? undefined : scriptProto(w.script) }) }
  return { writeSetType: 'WRITE_SET_TYPE_DIRECT_WRITE_SET', directWriteSet: omitDefaults({ writeSetChange: (w.changes as unknown as Any[]).map(changeProto), events: (w.events as unknown as Any[]).map(eventProto) }) }
}

function structProto(text: string): Json {
  const s = parseStructTag(text)
  return s as unknown as Json
}

function changeProto(c: Any): Json {
  switch (c.type as unknown as string) {
    case 'delete_module': {
      const [address = '', name = ''] = String(c.module).split('::')
      return { type: 'TYPE_DELETE_MODULE', deleteModule: omitDefaults({ address: c.address, stateKeyHash: b64(c.state_key_hash), module: { address, name } }) }
    }
    case 'delete_resource':
      return { type: 'TYPE_DELETE_RESOURCE', deleteResource: omitDefaults({ address: c.address, stateKeyHash: b64(c.state_key_hash), type: structProto(String(c.resource)), typeStr: c.resource }) }
    case 'delete_table_item':
      return { type: 'TYPE_DELETE_TABLE_ITEM', deleteTableItem: omitDefaults({ stateKeyHash: b64(c.state_key_hash), handle: c.handle, key: c.key, data: c.data === null || c.data === undefined ? undefined : omitDefaults({ key: jsonText(c.data.key), keyType: c.data.key_type }) }) }
    case 'write_module':
      return { type: 'TYPE_WRITE_MODULE', writeModule: omitDefaults({ address: c.address, stateKeyHash: b64(c.state_key_hash), data: omitDefaults({ bytecode: b64(c.data.bytecode) }) }) }
    case 'write_resource':
      return { type: 'TYPE_WRITE_RESOURCE', writeResource: omitDefaults({ address: c.address, stateKeyHash: b64(c.state_key_hash), type: structProto(String(c.data.type)), typeStr: c.data.type, data: jsonText(c.data.data) }) }
    case 'write_table_item':
      return {
        type: 'TYPE_WRITE_TABLE_ITEM',
        writeTableItem: omitDefaults({ stateKeyHash: b64(c.state_key_hash), handle: c.handle, key: c.key, data: c.data === null || c.data === undefined ? undefined : omitDefaults({ key: jsonText(c.data.key), keyType: c.data.key_type, value: jsonText(c.data.value), valueType: c.data.value_type }) }),
      }
    default:
      throw new Error(`no stream form for write-set change ${JSON.stringify(c.type)}`)
  }
}

const PUBLIC_KEY: Record<string, string> = { ed25519: 'TYPE_ED25519', secp256k1_ecdsa: 'TYPE_SECP256K1_ECDSA', secp256r1_ecdsa: 'TYPE_SECP256R1_ECDSA', keyless: 'TYPE_KEYLESS', federated_keyless: 'TYPE_FEDERATED_KEYLESS' }
const ANY_SIGNATURE: Record<string, [string, string]> = { ed25519: ['TYPE_ED25519', 'ed25519'], secp256k1_ecdsa: ['TYPE_SECP256K1_ECDSA', 'secp256k1Ecdsa'], web_authn: ['TYPE_WEBAUTHN', 'webauthn'], keyless: ['TYPE_KEYLESS', 'keyless'] }

function anySignatureProto(s: Any): Json {
  const [type, variant] = ANY_SIGNATURE[String(s.type)] ?? ['TYPE_UNSPECIFIED', '']
  const bytes = b64(s.value)
  // aptos-core's converter fills both the deprecated `signature` and the variant.
  return omitDefaults({ type, signature: bytes, ...(variant === '' ? {} : { [variant]: omitDefaults({ signature: bytes }) }) })
}

function indicesOf(bitmap: string): number[] {
  const bytes = Buffer.from(bitmap.slice(2), 'hex')
  const out: number[] = []
  for (let i = 0; i < bytes.length * 8; i++) if (((bytes[i >> 3] as number) & (0x80 >> (i & 7))) !== 0) out.push(i)
  return out
}

function multiEd25519Proto(s: Any): Json {
  return omitDefaults({ publicKeys: (s.public_keys as unknown as string[]).map(b64), signatures: (s.signatures as unknown as string[]).map(b64), threshold: s.threshold, publicKeyIndices: indicesOf(String(s.bitmap)) })
}

function accountSignatureProto(s: Any): Json {
  switch (s.type as unknown as string) {
    case 'ed25519_signature':
      return { type: 'TYPE_ED25519', ed25519: omitDefaults({ publicKey: b64(s.public_key), signature: b64(s.signature) }) }
    case 'multi_ed25519_signature':
      return { type: 'TYPE_MULTI_ED25519', multiEd25519: multiEd25519Proto(s) }
    case 'single_key_signature':
    case 'single_sender':
      return { type: 'TYPE_SINGLE_KEY', singleKeySignature: { publicKey: omitDefaults({ type: PUBLIC_KEY[String(s.public_key.type)], publicKey: b64(s.public_key.value) }), signature: anySignatureProto(s.signature) } }
    case 'multi_key_signature':
      return {
        type: 'TYPE_MULTI_KEY',
        multiKeySignature: omitDefaults({
          publicKeys: (s.public_keys as unknown as Any[]).map((k) => omitDefaults({ type: PUBLIC_KEY[String(k.type)], publicKey: b64(k.value) })),
          signatures: (s.signatures as unknown as Any[]).map((x) => omitDefaults({ index: x.index, signature: anySignatureProto(x.signature) })),
          signaturesRequired: s.signatures_required,
        }),
      }
    case 'abstract_signature':
      return { type: 'TYPE_ABSTRACTION', abstraction: omitDefaults({ functionInfo: s.function_info, signature: b64(s.auth_data) }) }
    default:
      return {}
  }
}

function signatureProto(s: Any): Json {
  switch (s.type as unknown as string) {
    case 'ed25519_signature':
      return { type: 'TYPE_ED25519', ed25519: omitDefaults({ publicKey: b64(s.public_key), signature: b64(s.signature) }) }
    case 'multi_ed25519_signature':
      return { type: 'TYPE_MULTI_ED25519', multiEd25519: multiEd25519Proto(s) }
    case 'multi_agent_signature':
      return { type: 'TYPE_MULTI_AGENT', multiAgent: omitDefaults({ sender: accountSignatureProto(s.sender), secondarySignerAddresses: s.secondary_signer_addresses, secondarySigners: (s.secondary_signers as unknown as Any[]).map(accountSignatureProto) }) }
    case 'fee_payer_signature':
      return {
        type: 'TYPE_FEE_PAYER',
        feePayer: omitDefaults({
          sender: accountSignatureProto(s.sender),
          secondarySignerAddresses: s.secondary_signer_addresses,
          secondarySigners: (s.secondary_signers as unknown as Any[]).map(accountSignatureProto),
          feePayerAddress: s.fee_payer_address,
          feePayerSigner: accountSignatureProto(s.fee_payer_signer),
        }),
      }
    case 'single_sender': {
      // The node writes the account signature's own kind over with `single_sender`; its fields say which it was.
      const kind = s.public_keys !== undefined ? 'multi_key_signature' : s.function_info !== undefined ? 'abstract_signature' : s.public_key !== undefined && typeof s.public_key === 'object' ? 'single_key_signature' : 'ed25519_signature'
      return { type: 'TYPE_SINGLE_SENDER', singleSender: { sender: accountSignatureProto({ ...s, type: kind } as Any) } }
    }
    default:
      return {}
  }
}

function validatorProto(t: Any): Json {
  const events = (t.events as unknown as Any[]).map(eventProto)
  const q = t.quorum_certified_update
  if (q !== undefined) {
    return omitDefaults({
      observedJwkUpdate: {
        quorumCertifiedUpdate: {
          update: omitDefaults({
            issuer: q.update.issuer,
            version: String(q.update.version),
            jwks: (q.update.jwks as unknown as Any[]).map((j) => (j.kid !== undefined ? { rsa: omitDefaults({ kid: j.kid, kty: j.kty, alg: j.alg, e: j.e, n: j.n }) } : { unsupportedJwk: omitDefaults({ id: Buffer.from(j.id as unknown as number[]).toString('base64'), payload: Buffer.from(j.payload as unknown as number[]).toString('base64') }) })),
          }),
          multiSig: omitDefaults({ signerIndices: (q.multi_sig.signer_indices as unknown as number[]).map(String), sig: b64(q.multi_sig.sig) }),
        },
      },
      events,
    })
  }
  const d = t.dkg_transcript
  if (d !== undefined) return omitDefaults({ dkgUpdate: { dkgTranscript: omitDefaults({ epoch: d.epoch, author: d.author, payload: b64(d.payload) }) }, events })
  return omitDefaults({ events })
}

export type { MoveTypeJson }
