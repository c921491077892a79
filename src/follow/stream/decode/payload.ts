import type {
  DirectWriteSet,
  EntryFunctionId,
  EntryFunctionPayload,
  Event,
  EventKey,
  ExtraConfigV1,
  MoveScriptBytecode,
  MultisigPayload,
  MultisigTransactionPayload,
  ScriptPayload,
  ScriptWriteSet,
  TransactionPayload,
  UserTransactionRequest,
  WriteSet,
  WriteSetPayload,
} from '../gen/aptos/transaction/v1/transaction_pb.js'
import type { Timestamp } from '../gen/aptos/util/timestamp/timestamp_pb.js'
import { moveFunction, moveModuleId, moveType, other } from './move.js'
import { signature } from './signature.js'
import type { WireReader } from './wire-reader.js'
import { writeSetChange } from './write-set.js'

// Decoders of requests, payloads, write sets and events, written as in move.ts (a write set's changes: write-set.ts).

export function timestamp(r: WireReader, end: number, m: Timestamp = { $typeName: 'aptos.util.timestamp.Timestamp', seconds: 0n, nanos: 0 }): Timestamp {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.seconds = r.int64(end)
    else if (tag === ((2 << 3) | 0)) m.nanos = r.varint32(end) | 0
    else other(r, tag, end, 0b110)
  }
  return m
}

function eventKey(r: WireReader, end: number, m: EventKey = { $typeName: 'aptos.transaction.v1.EventKey', creationNumber: '0', accountAddress: '' }): EventKey {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.creationNumber = r.uint64String(end)
    else if (tag === ((2 << 3) | 2)) m.accountAddress = r.string(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

export function event(r: WireReader, end: number): Event {
  const m: Event = { $typeName: 'aptos.transaction.v1.Event', sequenceNumber: '0', typeStr: '', data: '' }
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.key = eventKey(r, r.lengthEnd(end), m.key)
        break
      case (2 << 3) | 0:
        m.sequenceNumber = r.uint64String(end)
        break
      case (3 << 3) | 2:
        m.type = moveType(r, r.lengthEnd(end), m.type)
        break
      case (5 << 3) | 2:
        m.typeStr = r.string(end)
        break
      case (4 << 3) | 2:
        m.data = r.string(end)
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  return m
}

export function entryFunctionId(r: WireReader, end: number, m: EntryFunctionId = { $typeName: 'aptos.transaction.v1.EntryFunctionId', name: '' }): EntryFunctionId {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.module = moveModuleId(r, r.lengthEnd(end), m.module)
    else if (tag === ((2 << 3) | 2)) m.name = r.string(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

/** `entryFunctionId`'s reading of an `EntryFunctionId`, checks and errors included, building nothing (`checkMoveStructTag`). */
export function checkEntryFunctionId(r: WireReader, end: number): void {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      // MoveModuleId: address (1), name (2).
      const stop = r.lengthEnd(end)
      while (r.pos < stop) {
        const t = r.tag(stop)
        if (t === ((1 << 3) | 2) || t === ((2 << 3) | 2)) r.skipString(stop)
        else other(r, t, stop, 0b110)
      }
    } else if (tag === ((2 << 3) | 2)) r.skipString(end)
    else other(r, tag, end, 0b110)
  }
}

function entryFunctionPayload(
  r: WireReader,
  end: number,
  m: EntryFunctionPayload = { $typeName: 'aptos.transaction.v1.EntryFunctionPayload', typeArguments: [], arguments: [], entryFunctionIdStr: '' },
): EntryFunctionPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.function = entryFunctionId(r, r.lengthEnd(end), m.function)
        break
      case (2 << 3) | 2:
        m.typeArguments.push(moveType(r, r.lengthEnd(end)))
        break
      case (3 << 3) | 2:
        m.arguments.push(r.string(end))
        break
      case (4 << 3) | 2:
        m.entryFunctionIdStr = r.string(end)
        break
      default:
        other(r, tag, end, 0b11110)
    }
  }
  return m
}

function moveScriptBytecode(r: WireReader, end: number, m: MoveScriptBytecode = { $typeName: 'aptos.transaction.v1.MoveScriptBytecode', bytecode: new Uint8Array(0) }): MoveScriptBytecode {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.bytecode = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.abi = moveFunction(r, r.lengthEnd(end), m.abi)
    else other(r, tag, end, 0b110)
  }
  return m
}

function scriptPayload(r: WireReader, end: number, m: ScriptPayload = { $typeName: 'aptos.transaction.v1.ScriptPayload', typeArguments: [], arguments: [] }): ScriptPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.code = moveScriptBytecode(r, r.lengthEnd(end), m.code)
    else if (tag === ((2 << 3) | 2)) m.typeArguments.push(moveType(r, r.lengthEnd(end)))
    else if (tag === ((3 << 3) | 2)) m.arguments.push(r.string(end))
    else other(r, tag, end, 0b1110)
  }
  return m
}

function multisigTransactionPayload(
  r: WireReader,
  end: number,
  m: MultisigTransactionPayload = { $typeName: 'aptos.transaction.v1.MultisigTransactionPayload', type: 0, payload: { case: undefined } },
): MultisigTransactionPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) m.type = r.varint32(end) | 0
    else if (tag === ((2 << 3) | 2)) m.payload = { case: 'entryFunctionPayload', value: entryFunctionPayload(r, r.lengthEnd(end), m.payload.case === 'entryFunctionPayload' ? m.payload.value : undefined) }
    else other(r, tag, end, 0b110)
  }
  return m
}

function multisigPayload(r: WireReader, end: number, m: MultisigPayload = { $typeName: 'aptos.transaction.v1.MultisigPayload', multisigAddress: '' }): MultisigPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.multisigAddress = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.transactionPayload = multisigTransactionPayload(r, r.lengthEnd(end), m.transactionPayload)
    else other(r, tag, end, 0b110)
  }
  return m
}

function writeSetPayload(r: WireReader, end: number, m: WriteSetPayload = { $typeName: 'aptos.transaction.v1.WriteSetPayload' }): WriteSetPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.writeSet = writeSet(r, r.lengthEnd(end), m.writeSet)
    else other(r, tag, end, 0b10)
  }
  return m
}

function extraConfigV1(r: WireReader, end: number, m: ExtraConfigV1 = { $typeName: 'aptos.transaction.v1.ExtraConfigV1' }): ExtraConfigV1 {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.multisigAddress = r.string(end)
    else if (tag === ((2 << 3) | 0)) m.replayProtectionNonce = r.uint64(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

export function transactionPayload(r: WireReader, end: number, m: TransactionPayload = { $typeName: 'aptos.transaction.v1.TransactionPayload', type: 0, payload: { case: undefined }, extraConfig: { case: undefined } }): TransactionPayload {
  while (r.pos < end) {
    const tag = r.tag(end)
    const p = m.payload
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (2 << 3) | 2:
        m.payload = { case: 'entryFunctionPayload', value: entryFunctionPayload(r, r.lengthEnd(end), p.case === 'entryFunctionPayload' ? p.value : undefined) }
        break
      case (3 << 3) | 2:
        m.payload = { case: 'scriptPayload', value: scriptPayload(r, r.lengthEnd(end), p.case === 'scriptPayload' ? p.value : undefined) }
        break
      case (5 << 3) | 2:
        m.payload = { case: 'writeSetPayload', value: writeSetPayload(r, r.lengthEnd(end), p.case === 'writeSetPayload' ? p.value : undefined) }
        break
      case (6 << 3) | 2:
        m.payload = { case: 'multisigPayload', value: multisigPayload(r, r.lengthEnd(end), p.case === 'multisigPayload' ? p.value : undefined) }
        break
      case (7 << 3) | 2:
        m.extraConfig = { case: 'extraConfigV1', value: extraConfigV1(r, r.lengthEnd(end), m.extraConfig.case === 'extraConfigV1' ? m.extraConfig.value : undefined) }
        break
      default:
        other(r, tag, end, 0b11101110)
    }
  }
  return m
}

export function userTransactionRequest(
  r: WireReader,
  end: number,
  m: UserTransactionRequest = { $typeName: 'aptos.transaction.v1.UserTransactionRequest', sender: '', sequenceNumber: '0', maxGasAmount: '0', gasUnitPrice: '0' },
): UserTransactionRequest {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.sender = r.string(end)
        break
      case (2 << 3) | 0:
        m.sequenceNumber = r.uint64String(end)
        break
      case (3 << 3) | 0:
        m.maxGasAmount = r.uint64String(end)
        break
      case (4 << 3) | 0:
        m.gasUnitPrice = r.uint64String(end)
        break
      case (5 << 3) | 2:
        m.expirationTimestampSecs = timestamp(r, r.lengthEnd(end), m.expirationTimestampSecs)
        break
      case (6 << 3) | 2:
        m.payload = transactionPayload(r, r.lengthEnd(end), m.payload)
        break
      case (7 << 3) | 2:
        m.signature = signature(r, r.lengthEnd(end), m.signature)
        break
      default:
        other(r, tag, end, 0b11111110)
    }
  }
  return m
}

function scriptWriteSet(r: WireReader, end: number, m: ScriptWriteSet = { $typeName: 'aptos.transaction.v1.ScriptWriteSet', executeAs: '' }): ScriptWriteSet {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.executeAs = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.script = scriptPayload(r, r.lengthEnd(end), m.script)
    else other(r, tag, end, 0b110)
  }
  return m
}

function directWriteSet(r: WireReader, end: number, m: DirectWriteSet = { $typeName: 'aptos.transaction.v1.DirectWriteSet', writeSetChange: [], events: [] }): DirectWriteSet {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.writeSetChange.push(writeSetChange(r, r.lengthEnd(end)))
    else if (tag === ((2 << 3) | 2)) m.events.push(event(r, r.lengthEnd(end)))
    else other(r, tag, end, 0b110)
  }
  return m
}

export function writeSet(r: WireReader, end: number, m: WriteSet = { $typeName: 'aptos.transaction.v1.WriteSet', writeSetType: 0, writeSet: { case: undefined } }): WriteSet {
  while (r.pos < end) {
    const tag = r.tag(end)
    const w = m.writeSet
    if (tag === ((1 << 3) | 0)) m.writeSetType = r.varint32(end) | 0
    else if (tag === ((2 << 3) | 2)) m.writeSet = { case: 'scriptWriteSet', value: scriptWriteSet(r, r.lengthEnd(end), w.case === 'scriptWriteSet' ? w.value : undefined) }
    else if (tag === ((3 << 3) | 2)) m.writeSet = { case: 'directWriteSet', value: directWriteSet(r, r.lengthEnd(end), w.case === 'directWriteSet' ? w.value : undefined) }
    else other(r, tag, end, 0b1110)
  }
  return m
}
