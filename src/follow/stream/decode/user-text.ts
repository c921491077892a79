import { moveTypeString } from '../convert/move-type.js'
import { moveFunctionJson } from '../convert/payload.js'
import { eventText, payloadText, type PayloadText } from '../convert/payload-text.js'
import { micros } from '../convert/hex.js'
import { fallbacks } from './fallbacks.js'
import { checkMoveType, moveFunction, moveType, other } from './move.js'
import { checkEntryFunctionId, event, timestamp, transactionPayload } from './payload.js'
import { ascii, type TextWriter } from './text-writer.js'
import type { WireReader } from './wire-reader.js'

// The parts of a transaction's node JSON written straight from their wire bytes into a
// TextWriter: the common shapes member by member (string fields copied as bytes when they need
// no escaping, JSON text copied when it already is the node's text); any other shape of a part
// is decoded by the message decoders and written by its twin in convert/payload-text.ts, so
// each part's bytes are the ones those twins write. Every field the decoders read is read here
// with the same checks (UTF-8, lengths, wire types), or by the decoders themselves.

/** `[start, stop)` of each length-delimited field, pairwise. */
export type Ranges = number[]

const EVENT_GUID = ascii('{"guid":{"creation_number":"')
const EVENT_ADDRESS = ascii('","account_address":')
const EVENT_SEQUENCE = ascii('},"sequence_number":"')
const EVENT_TYPE = ascii('","type":')
const EVENT_DATA = ascii(',"data":')

/** Reads a length-delimited field's bounds into `into` and moves past it. */
export function range(r: WireReader, end: number, into: Ranges): void {
  const stop = r.lengthEnd(end)
  into.push(r.pos, stop)
  r.pos = stop
}

/** `JSON.stringify(events.map(eventJson))` of the events at `ranges`. */
export function eventsText(r: WireReader, ranges: Ranges, w: TextWriter): void {
  w.lit(OPEN)
  for (let i = 0; i < ranges.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    eventText1(r, ranges[i] as number, ranges[i + 1] as number, w)
  }
  w.lit(CLOSE)
}

const OPEN = ascii('[')
const COMMA = ascii(',')
const CLOSE = ascii(']')

function eventText1(r: WireReader, at: number, end: number, w: TextWriter): void {
  let creation: number | string = 0
  let address = 0
  let addressEnd = 0
  let keyAt = -1
  let merged = false
  let sequence: number | string = 0
  let typeAt = -1
  let typeEnd = -1
  let dataAt = 0
  let dataEnd = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2: {
        // A key seen twice is merged by protobuf: the decoder does that.
        if (keyAt >= 0) merged = true
        const stop = r.lengthEnd(end)
        keyAt = r.pos
        while (r.pos < stop) {
          const t = r.tag(stop)
          if (t === ((1 << 3) | 0)) creation = r.uint64Value(stop)
          else if (t === ((2 << 3) | 2)) {
            if (addressEnd !== 0) merged = true
            addressEnd = r.lengthEnd(stop)
            address = r.pos
            r.pos = addressEnd
          }
          else other(r, t, stop, 0b110)
        }
        break
      }
      case (2 << 3) | 0:
        sequence = r.uint64Value(end)
        break
      case (3 << 3) | 2:
        // The move type is read only to check it as the decoder does: the type string wins.
        checkMoveType(r, r.lengthEnd(end))
        break
      case (5 << 3) | 2:
        if (typeAt >= 0) merged = true
        typeEnd = r.lengthEnd(end)
        typeAt = r.pos
        r.pos = typeEnd
        break
      case (4 << 3) | 2:
        if (dataEnd !== 0) merged = true
        dataEnd = r.lengthEnd(end)
        dataAt = r.pos
        r.pos = dataEnd
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  if (keyAt < 0 || merged || typeAt < 0 || typeAt === typeEnd) {
    fallbacks.event++
    r.pos = at
    w.utf8(eventText(event(r, end)))
    return
  }
  w.lit(EVENT_GUID)
  w.u64(creation)
  w.lit(EVENT_ADDRESS)
  w.address(r, address, addressEnd)
  w.lit(EVENT_SEQUENCE)
  w.u64(sequence)
  w.lit(EVENT_TYPE)
  w.string(r, typeAt, typeEnd)
  w.lit(EVENT_DATA)
  w.json(r, dataAt, dataEnd)
  w.lit(CLOSE_OBJECT)
}

const CLOSE_OBJECT = ascii('}')

/** What a payload contributes beyond its text: the writer's check reads `skeleton`, the transaction's `replay_protection_nonce` comes from its extra config. */
export interface PayloadParts {
  skeleton: PayloadText['skeleton']
  nonce: string | null
}

const ENTRY_FUNCTION = ascii('{"function":')
const TYPE_ARGUMENTS = ascii(',"type_arguments":[')
const ARGUMENTS = ascii('],"arguments":[')
const ENTRY_END = ascii('],"type":"entry_function_payload"}')
const BYTECODE = ascii('{"code":{"bytecode":')
const ABI = ascii(',"abi":')
const SCRIPT_END = ascii('],"type":"script_payload"}')

/** `payloadText` of the payload at `[at, end)` (`at` < 0: none). */
export function payloadText1(r: WireReader, at: number, end: number, w: TextWriter): PayloadParts {
  if (at >= 0) {
    const mark = w.mark()
    const parts = payloadWire(r, at, end, w)
    if (parts !== undefined) return parts
    w.reset(mark)
  }
  fallbacks.payload++
  let p
  if (at >= 0) {
    r.pos = at
    p = transactionPayload(r, end)
  }
  const text = payloadText(p)
  w.utf8(text.text)
  const extra = p?.extraConfig.case === 'extraConfigV1' ? p.extraConfig.value : undefined
  return { skeleton: text.skeleton, nonce: extra?.replayProtectionNonce === undefined ? null : String(extra.replayProtectionNonce) }
}

/**
 * An entry-function or script payload, with or without its extra config, written member by
 * member; `undefined` for any other kind or a shape protobuf would merge (a member sent twice),
 * which the decoder takes. Whatever it wrote then is dropped by the caller.
 */
function payloadWire(r: WireReader, at: number, end: number, w: TextWriter): PayloadParts | undefined {
  let field = 0
  let member = -1
  let memberEnd = -1
  let extra = -1
  let extraEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((2 << 3) | 2) || tag === ((3 << 3) | 2)) {
      if (member >= 0) return undefined
      field = tag >>> 3
      memberEnd = r.lengthEnd(end)
      member = r.pos
      r.pos = memberEnd
    } else if (tag === ((7 << 3) | 2)) {
      if (extra >= 0) return undefined
      extraEnd = r.lengthEnd(end)
      extra = r.pos
      r.pos = extraEnd
    } else if (tag === ((1 << 3) | 0)) r.varint32(end)
    else return undefined
  }
  if (member < 0) return undefined
  // ExtraConfigV1: the multisig address is read only to check it (an entry function's or script's JSON has none); the nonce is the transaction's.
  let nonce: string | null = null
  r.pos = extra
  while (r.pos < extraEnd) {
    const tag = r.tag(extraEnd)
    if (tag === ((1 << 3) | 2)) r.string(extraEnd)
    else if (tag === ((2 << 3) | 0)) nonce = r.uint64String(extraEnd)
    else other(r, tag, extraEnd, 0b110)
  }
  if (field === 3) return script(r, member, memberEnd, w) ? { skeleton: { type: 'script_payload' }, nonce } : undefined
  const fn = entryFunction(r, member, memberEnd, w)
  return fn === undefined ? undefined : { skeleton: { type: 'entry_function_payload', function: fn }, nonce }
}

// The ranges `entryFunction` reads into: one array each, reused, as it never runs inside itself.
const FUNCTION_TYPES: Ranges = []
const FUNCTION_ARGUMENTS: Ranges = []

/** An entry-function payload written member by member; `undefined` (nothing written) when it has no function id string. */
function entryFunction(r: WireReader, at: number, end: number, w: TextWriter): string | undefined {
  const types = FUNCTION_TYPES
  const args = FUNCTION_ARGUMENTS
  types.length = 0
  args.length = 0
  let id = -1
  let idEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        checkEntryFunctionId(r, r.lengthEnd(end))
        break
      case (2 << 3) | 2:
        range(r, end, types)
        break
      case (3 << 3) | 2:
        range(r, end, args)
        break
      case (4 << 3) | 2:
        // Checked when written (`functionText`); a string sent twice is checked twice by the decoder.
        if (id >= 0) return undefined
        idEnd = r.lengthEnd(end)
        id = r.pos
        r.pos = idEnd
        break
      default:
        other(r, tag, end, 0b11110)
    }
  }
  if (id === idEnd) return undefined
  w.lit(ENTRY_FUNCTION)
  const fn = w.functionText(r, id, idEnd)
  typesAndArguments(r, types, args, w)
  w.lit(ENTRY_END)
  return fn
}

/** A script payload (code, type arguments, arguments) member by member; false when its code comes twice, or its ABI does (protobuf merges them). */
function script(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const types: Ranges = []
  const args: Ranges = []
  let code = -1
  let codeEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      if (code >= 0) return false
      codeEnd = r.lengthEnd(end)
      code = r.pos
      r.pos = codeEnd
    } else if (tag === ((2 << 3) | 2)) range(r, end, types)
    else if (tag === ((3 << 3) | 2)) range(r, end, args)
    else other(r, tag, end, 0b1110)
  }
  // MoveScriptBytecode: the bytecode's last value wins; the ABI, rare and nested, is written by the decoder's twin.
  let bytecode = 0
  let bytecodeEnd = 0
  let abi = -1
  let abiEnd = -1
  r.pos = code
  while (r.pos < codeEnd) {
    const tag = r.tag(codeEnd)
    if (tag === ((1 << 3) | 2)) {
      bytecodeEnd = r.lengthEnd(codeEnd)
      bytecode = r.pos
      r.pos = bytecodeEnd
    } else if (tag === ((2 << 3) | 2)) {
      if (abi >= 0) return false
      abiEnd = r.lengthEnd(codeEnd)
      abi = r.pos
      r.pos = abiEnd
    } else other(r, tag, codeEnd, 0b110)
  }
  w.lit(BYTECODE)
  w.hex(r.input, bytecode, bytecodeEnd)
  if (abi >= 0) {
    w.lit(ABI)
    r.pos = abi
    w.utf8(JSON.stringify(moveFunctionJson(moveFunction(r, abiEnd))))
  }
  w.lit(CLOSE_OBJECT)
  typesAndArguments(r, types, args, w)
  w.lit(SCRIPT_END)
  return true
}

/** `,"type_arguments":[…],"arguments":[…` of a payload: each type as its string, each argument's JSON text as the node's. */
function typesAndArguments(r: WireReader, types: Ranges, args: Ranges, w: TextWriter): void {
  w.lit(TYPE_ARGUMENTS)
  for (let i = 0; i < types.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    r.pos = types[i] as number
    w.quoted(moveTypeString(moveType(r, types[i + 1] as number)))
  }
  w.lit(ARGUMENTS)
  for (let i = 0; i < args.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    w.json(r, args[i] as number, args[i + 1] as number)
  }
}

/** What `timestampAt` read; one object reused, so reading a timestamp allocates nothing. */
const TIME = { seconds: 0, nanos: 0 }

/**
 * The `Timestamp` at `[at, end)`, read with `timestamp`'s checks (same errors), as doubles when
 * that is exact: seconds in [0, 2^49) (`varintNumber`) and nanos ≥ 0; `undefined`
 * otherwise (a negative or larger value), for the decoder's exact path. The answer is valid
 * until the next call.
 */
export function timestampAt(r: WireReader, at: number, end: number): { readonly seconds: number; readonly nanos: number } | undefined {
  let seconds = 0
  let nanos = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 0)) {
      // A negative int64 has ten bytes, so any value read here is the int64's.
      seconds = r.varintNumber(end)
      if (seconds < 0) return undefined
    } else if (tag === ((2 << 3) | 0)) {
      nanos = r.varint32(end) | 0
      if (nanos < 0) return undefined
    } else other(r, tag, end, 0b110)
  }
  TIME.seconds = seconds
  TIME.nanos = nanos
  return TIME
}

/** `String(seconds)` of the `Timestamp` at `[at, end)` (`at` < 0: none, 0), as the decoder reads it, written. */
export function secondsText(r: WireReader, at: number, end: number, w: TextWriter): void {
  const t = at < 0 ? ZERO_TIME : timestampAt(r, at, end)
  if (t !== undefined) return w.decimal(t.seconds)
  r.pos = at
  w.ascii(String(timestamp(r, end).seconds))
}

/**
 * `micros` of the `Timestamp` at `[at, end)` (`at` < 0: none, 0), written: from doubles when the
 * seconds and nanos are in the range where that is exact (seconds below 2^33, so µs stay below
 * 2^53), else as the decoder and `micros` compute it.
 */
export function microsText(r: WireReader, at: number, end: number, w: TextWriter): void {
  const t = at < 0 ? ZERO_TIME : timestampAt(r, at, end)
  if (t !== undefined && t.seconds < 2 ** 33) return w.decimal(t.seconds * 1_000_000 + Math.floor(t.nanos / 1000))
  r.pos = at
  w.ascii(micros(timestamp(r, end)))
}

/** A `Timestamp` left out: proto3's default, 0 s. */
const ZERO_TIME = { seconds: 0, nanos: 0 }
