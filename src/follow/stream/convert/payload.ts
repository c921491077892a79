import type { EntryFunctionPayload, Event, MoveFunction, MoveModule, MoveStruct, ScriptPayload, TransactionPayload, WriteSet, WriteSetChange } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { MoveAbility, MoveFunction_Visibility } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { hex, shortAddress } from './hex.js'
import { moveTypeString, structTagString } from './move-type.js'

type Json = Record<string, unknown>

/**
 * A value the stream sends as JSON text (event data, resource data, entry-function arguments,
 * table keys and values), parsed back into the value the node shows. Text that is not JSON is
 * kept as the string it is.
 */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The node's `Event` JSON: guid with the short address, the type string, data parsed. */
export function eventJson(e: Event): Json {
  return {
    guid: { creation_number: e.key?.creationNumber ?? '0', account_address: shortAddress(e.key?.accountAddress ?? '0x0') },
    sequence_number: e.sequenceNumber,
    type: e.typeStr !== '' ? e.typeStr : e.type === undefined ? '' : moveTypeString(e.type),
    data: jsonValue(e.data),
  }
}

function entryFunction(p: EntryFunctionPayload): Json {
  const module = p.function?.module
  const fn = p.entryFunctionIdStr !== '' ? p.entryFunctionIdStr : `${module?.address ?? '0x0'}::${module?.name ?? ''}::${p.function?.name ?? ''}`
  const [address = '', ...rest] = fn.split('::')
  return { function: [shortAddress(address), ...rest].join('::'), type_arguments: p.typeArguments.map(moveTypeString), arguments: p.arguments.map(jsonValue) }
}

const VISIBILITY: Record<MoveFunction_Visibility, string> = {
  [MoveFunction_Visibility.UNSPECIFIED]: 'private',
  [MoveFunction_Visibility.PRIVATE]: 'private',
  [MoveFunction_Visibility.PUBLIC]: 'public',
  [MoveFunction_Visibility.FRIEND]: 'friend',
}

const ABILITY: Record<MoveAbility, string> = {
  [MoveAbility.UNSPECIFIED]: 'unspecified',
  [MoveAbility.COPY]: 'copy',
  [MoveAbility.DROP]: 'drop',
  [MoveAbility.STORE]: 'store',
  [MoveAbility.KEY]: 'key',
}

/** The node's `MoveFunction` JSON. The stream does not carry `is_view`; it is written false. */
export function moveFunctionJson(f: MoveFunction): Json {
  return {
    name: f.name,
    visibility: VISIBILITY[f.visibility] ?? 'private',
    is_entry: f.isEntry,
    is_view: false,
    generic_type_params: f.genericTypeParams.map((g) => ({ constraints: g.constraints.map((a) => ABILITY[a]) })),
    params: f.params.map(moveTypeString),
    return: f.return.map(moveTypeString),
  }
}

/** The node's `MoveStruct` JSON. The stream carries no enum variants: `is_enum` false, `variants` empty. */
function moveStructJson(s: MoveStruct): Json {
  return {
    name: s.name,
    is_native: s.isNative,
    is_event: s.isEvent,
    is_enum: false,
    abilities: s.abilities.map((a) => ABILITY[a]),
    generic_type_params: s.genericTypeParams.map((g) => ({ constraints: g.constraints.map((a) => ABILITY[a]), is_phantom: g.isPhantom })),
    fields: s.fields.map((f) => ({ name: f.name, type: f.type === undefined ? '' : moveTypeString(f.type) })),
    variants: [],
  }
}

function moveModuleJson(m: MoveModule): Json {
  return {
    address: shortAddress(m.address),
    name: m.name,
    friends: m.friends.map((f) => `${shortAddress(f.address)}::${f.name}`),
    exposed_functions: m.exposedFunctions.map(moveFunctionJson),
    structs: m.structs.map(moveStructJson),
  }
}

function scriptJson(p: ScriptPayload): Json {
  const code: Json = { bytecode: hex(p.code?.bytecode ?? new Uint8Array()) }
  if (p.code?.abi !== undefined) code.abi = moveFunctionJson(p.code.abi)
  return { code, type_arguments: p.typeArguments.map(moveTypeString), arguments: p.arguments.map(jsonValue) }
}

/** The node's `WriteSet` JSON (genesis and write-set payloads). */
export function writeSetJson(w: WriteSet | undefined): Json {
  const s = w?.writeSet
  if (s?.case === 'scriptWriteSet') {
    return { execute_as: shortAddress(s.value.executeAs), script: s.value.script === undefined ? null : scriptJson(s.value.script), type: 'script_write_set' }
  }
  return { changes: s?.case === 'directWriteSet' ? s.value.writeSetChange.map(changeJson) : [], events: s?.case === 'directWriteSet' ? s.value.events.map(eventJson) : [], type: 'direct_write_set' }
}

/**
 * The node's `TransactionPayload` JSON. A multisig address or replay nonce in `extra_config_v1`
 * is read by the caller (the nonce is the request's `replay_protection_nonce`).
 */
export function payloadJson(p: TransactionPayload | undefined): Json {
  const x = p?.payload
  switch (x?.case) {
    case 'entryFunctionPayload':
      return { ...entryFunction(x.value), type: 'entry_function_payload' }
    case 'scriptPayload':
      return { ...scriptJson(x.value), type: 'script_payload' }
    case 'writeSetPayload':
      return { write_set: writeSetJson(x.value.writeSet), type: 'write_set_payload' }
    case 'multisigPayload': {
      const inner = x.value.transactionPayload?.payload
      const out: Json = { multisig_address: shortAddress(x.value.multisigAddress) }
      if (inner?.case === 'entryFunctionPayload') out.transaction_payload = { ...entryFunction(inner.value), type: 'entry_function_payload' }
      return { ...out, type: 'multisig_payload' }
    }
    default:
      return { type: 'unknown_payload' }
  }
}

/**
 * The node's `WriteSetChange` JSON. The stream does not carry a table item's raw BCS value, only
 * its decoded JSON (`data.value`): `value` is written as `0x` (empty) and `data` holds the value.
 */
export function changeJson(c: WriteSetChange): Json {
  const x = c.change
  switch (x.case) {
    case 'deleteModule':
      return { address: shortAddress(x.value.address), state_key_hash: hex(x.value.stateKeyHash), module: `${shortAddress(x.value.module?.address ?? '0x0')}::${x.value.module?.name ?? ''}`, type: 'delete_module' }
    case 'deleteResource':
      return { address: shortAddress(x.value.address), state_key_hash: hex(x.value.stateKeyHash), resource: x.value.typeStr !== '' ? x.value.typeStr : x.value.type === undefined ? '' : structTagString(x.value.type), type: 'delete_resource' }
    case 'deleteTableItem': {
      const d = x.value.data
      return { state_key_hash: hex(x.value.stateKeyHash), handle: x.value.handle, key: x.value.key, data: d === undefined ? null : { key: jsonValue(d.key), key_type: d.keyType }, type: 'delete_table_item' }
    }
    case 'writeModule': {
      const data: Json = { bytecode: hex(x.value.data?.bytecode ?? new Uint8Array()) }
      if (x.value.data?.abi !== undefined) data.abi = moveModuleJson(x.value.data.abi)
      return { address: shortAddress(x.value.address), state_key_hash: hex(x.value.stateKeyHash), data, type: 'write_module' }
    }
    case 'writeResource':
      return {
        address: shortAddress(x.value.address),
        state_key_hash: hex(x.value.stateKeyHash),
        data: { type: x.value.typeStr !== '' ? x.value.typeStr : x.value.type === undefined ? '' : structTagString(x.value.type), data: jsonValue(x.value.data) },
        type: 'write_resource',
      }
    case 'writeTableItem': {
      const d = x.value.data
      return {
        state_key_hash: hex(x.value.stateKeyHash),
        handle: x.value.handle,
        key: x.value.key,
        value: '0x',
        data: d === undefined ? null : { key: jsonValue(d.key), key_type: d.keyType, value: jsonValue(d.value), value_type: d.valueType },
        type: 'write_table_item',
      }
    }
    default:
      return { type: 'unknown_change' }
  }
}
