import type {
  MoveFunction,
  MoveFunctionGenericTypeParam,
  MoveModule,
  MoveModuleBytecode,
  MoveModuleId,
  MoveStruct,
  MoveStructField,
  MoveStructGenericTypeParam,
  MoveStructTag,
  MoveType,
  MoveType_ReferenceType,
} from '../gen/aptos/transaction/v1/transaction_pb.js'
import type { WireReader } from './wire-reader.js'

// Each decoder reads one message's fields up to `end` into `m` (a fresh message, or the one a
// repeated occurrence of the same singular field merges into, as protobuf requires). Cases are
// `field << 3 | wire type`; any other tag goes to `other`, which refuses a known field under a
// wrong wire type and skips the rest. Field numbers: proto/aptos/transaction/v1/transaction.proto.

/** Skips a field the message does not define; a field it defines (bit set in `known`) arrived with a wrong wire type. */
export function other(r: WireReader, tag: number, end: number, known: number): void {
  const field = tag >>> 3
  if (field < 32 && ((known >>> field) & 1) === 1) r.wrongType(tag)
  r.skip(tag, end)
}

export function moveModuleId(r: WireReader, end: number, m: MoveModuleId = { $typeName: 'aptos.transaction.v1.MoveModuleId', address: '', name: '' }): MoveModuleId {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.address = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.name = r.string(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

export function moveStructTag(r: WireReader, end: number, m: MoveStructTag = { $typeName: 'aptos.transaction.v1.MoveStructTag', address: '', module: '', name: '', genericTypeParams: [] }): MoveStructTag {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.address = r.string(end)
        break
      case (2 << 3) | 2:
        m.module = r.string(end)
        break
      case (3 << 3) | 2:
        m.name = r.string(end)
        break
      case (4 << 3) | 2:
        m.genericTypeParams.push(moveType(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b11110)
    }
  }
  return m
}

/**
 * Reads a `MoveStructTag` with `moveStructTag`'s checks and errors but builds nothing (no
 * message, no string): for a tag the node's JSON takes from its string form instead.
 */
export function checkMoveStructTag(r: WireReader, end: number): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2) || tag === ((2 << 3) | 2) || tag === ((3 << 3) | 2)) r.skipString(end)
    else if (tag === ((4 << 3) | 2)) checkMoveType(r, r.lengthEnd(end))
    else other(r, tag, end, 0b11110)
  }
}

function referenceType(r: WireReader, end: number, m: MoveType_ReferenceType = { $typeName: 'aptos.transaction.v1.MoveType.ReferenceType', mutable: false }): MoveType_ReferenceType {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.mutable = r.varint32(end) !== 0
    else if (tag === ((2 << 3) | 2)) m.to = moveType(r, r.lengthEnd(end), m.to)
    else other(r, tag, end, 0b110)
  }
  return m
}

export function moveType(r: WireReader, end: number, m: MoveType = { $typeName: 'aptos.transaction.v1.MoveType', type: 0, content: { case: undefined } }): MoveType {
  while (r.pos < end) {
    const tag = r.tag(end)
    const c = m.content
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (3 << 3) | 2:
        m.content = { case: 'vector', value: moveType(r, r.lengthEnd(end), c.case === 'vector' ? c.value : undefined) }
        break
      case (4 << 3) | 2:
        m.content = { case: 'struct', value: moveStructTag(r, r.lengthEnd(end), c.case === 'struct' ? c.value : undefined) }
        break
      case (5 << 3) | 0:
        m.content = { case: 'genericTypeParamIndex', value: r.varint32(end) }
        break
      case (6 << 3) | 2:
        m.content = { case: 'reference', value: referenceType(r, r.lengthEnd(end), c.case === 'reference' ? c.value : undefined) }
        break
      case (7 << 3) | 2:
        m.content = { case: 'unparsable', value: r.string(end) }
        break
      default:
        other(r, tag, end, 0b11111010)
    }
  }
  return m
}

/** `moveType`'s reading of a `MoveType`, checks and errors included, building nothing (`checkMoveStructTag`). */
export function checkMoveType(r: WireReader, end: number): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 0:
      case (5 << 3) | 0:
        r.varint32(end)
        break
      case (3 << 3) | 2:
        checkMoveType(r, r.lengthEnd(end))
        break
      case (4 << 3) | 2:
        checkMoveStructTag(r, r.lengthEnd(end))
        break
      case (6 << 3) | 2: {
        // ReferenceType: mutable (1), to (2).
        const stop = r.lengthEnd(end)
        while (r.pos < stop) {
          const t = r.tag(stop)
          if (t === ((1 << 3) | 0)) r.varint32(stop)
          else if (t === ((2 << 3) | 2)) checkMoveType(r, r.lengthEnd(stop))
          else other(r, t, stop, 0b110)
        }
        break
      }
      case (7 << 3) | 2:
        r.skipString(end)
        break
      default:
        other(r, tag, end, 0b11111010)
    }
  }
}

/** A packed or unpacked `repeated MoveAbility` (enum values as int32). */
function abilities(r: WireReader, tag: number, end: number, into: number[]): void {
  r.repeatedVarint(tag, end, into, (e) => r.varint32(e) | 0)
}

function functionGenericTypeParam(r: WireReader, end: number): MoveFunctionGenericTypeParam {
  const m: MoveFunctionGenericTypeParam = { $typeName: 'aptos.transaction.v1.MoveFunctionGenericTypeParam', constraints: [] }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag >>> 3 === 1) abilities(r, tag, end, m.constraints)
    else other(r, tag, end, 0b10)
  }
  return m
}

export function moveFunction(
  r: WireReader,
  end: number,
  m: MoveFunction = { $typeName: 'aptos.transaction.v1.MoveFunction', name: '', visibility: 0, isEntry: false, genericTypeParams: [], params: [], return: [] },
): MoveFunction {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.name = r.string(end)
        break
      case (2 << 3) | 0:
        m.visibility = r.varint32(end) | 0
        break
      case (3 << 3) | 0:
        m.isEntry = r.varint32(end) !== 0
        break
      case (4 << 3) | 2:
        m.genericTypeParams.push(functionGenericTypeParam(r, r.lengthEnd(end)))
        break
      case (5 << 3) | 2:
        m.params.push(moveType(r, r.lengthEnd(end)))
        break
      case (6 << 3) | 2:
        m.return.push(moveType(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  return m
}

function structGenericTypeParam(r: WireReader, end: number): MoveStructGenericTypeParam {
  const m: MoveStructGenericTypeParam = { $typeName: 'aptos.transaction.v1.MoveStructGenericTypeParam', constraints: [], isPhantom: false }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag >>> 3 === 1) abilities(r, tag, end, m.constraints)
    else if (tag === ((2 << 3) | 0)) m.isPhantom = r.varint32(end) !== 0
    else other(r, tag, end, 0b110)
  }
  return m
}

function structField(r: WireReader, end: number): MoveStructField {
  const m: MoveStructField = { $typeName: 'aptos.transaction.v1.MoveStructField', name: '' }
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.name = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.type = moveType(r, r.lengthEnd(end), m.type)
    else other(r, tag, end, 0b110)
  }
  return m
}

function moveStruct(r: WireReader, end: number): MoveStruct {
  const m: MoveStruct = { $typeName: 'aptos.transaction.v1.MoveStruct', name: '', isNative: false, isEvent: false, abilities: [], genericTypeParams: [], fields: [] }
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.name = r.string(end)
        break
      case (2 << 3) | 0:
        m.isNative = r.varint32(end) !== 0
        break
      case (6 << 3) | 0:
        m.isEvent = r.varint32(end) !== 0
        break
      case (3 << 3) | 0:
      case (3 << 3) | 2:
        abilities(r, tag, end, m.abilities)
        break
      case (4 << 3) | 2:
        m.genericTypeParams.push(structGenericTypeParam(r, r.lengthEnd(end)))
        break
      case (5 << 3) | 2:
        m.fields.push(structField(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  return m
}

function moveModule(r: WireReader, end: number, m: MoveModule = { $typeName: 'aptos.transaction.v1.MoveModule', address: '', name: '', friends: [], exposedFunctions: [], structs: [] }): MoveModule {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.address = r.string(end)
        break
      case (2 << 3) | 2:
        m.name = r.string(end)
        break
      case (3 << 3) | 2:
        m.friends.push(moveModuleId(r, r.lengthEnd(end)))
        break
      case (4 << 3) | 2:
        m.exposedFunctions.push(moveFunction(r, r.lengthEnd(end)))
        break
      case (5 << 3) | 2:
        m.structs.push(moveStruct(r, r.lengthEnd(end)))
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  return m
}

export function moveModuleBytecode(r: WireReader, end: number, m: MoveModuleBytecode = { $typeName: 'aptos.transaction.v1.MoveModuleBytecode', bytecode: new Uint8Array(0) }): MoveModuleBytecode {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.bytecode = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.abi = moveModule(r, r.lengthEnd(end), m.abi)
    else other(r, tag, end, 0b110)
  }
  return m
}
