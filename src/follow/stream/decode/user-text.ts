import { shortAddress } from '../convert/hex.js'
import { moveTypeString } from '../convert/move-type.js'
import { changeText, eventText, payloadText, signatureText, type PayloadText } from '../convert/payload-text.js'
import { fallbacks } from './fallbacks.js'
import { moveStructTag, moveType, other } from './move.js'
import { entryFunctionId, event, timestamp, transactionPayload } from './payload.js'
import { signature } from './signature.js'
import { ascii, type TextWriter } from './text-writer.js'
import type { WireReader } from './wire-reader.js'
import { writeSetChange } from './write-set.js'

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
const RESOURCE_ADDRESS = ascii('{"address":')
const RESOURCE_KEY = ascii(',"state_key_hash":')
const RESOURCE_TYPE = ascii(',"data":{"type":')
const RESOURCE_END = ascii('},"type":"write_resource"}')
const ED25519_KEY = ascii('{"public_key":')
const ED25519_SIGNATURE = ascii(',"signature":')
const ED25519_END = ascii(',"type":"ed25519_signature"}')

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
  let creation = '0'
  let address = ''
  let keyAt = -1
  let merged = false
  let sequence = '0'
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
          if (t === ((1 << 3) | 0)) creation = r.uint64String(stop)
          else if (t === ((2 << 3) | 2)) address = r.string(stop)
          else other(r, t, stop, 0b110)
        }
        break
      }
      case (2 << 3) | 0:
        sequence = r.uint64String(end)
        break
      case (3 << 3) | 2:
        // The move type is read only to check it as the decoder does: the type string wins.
        moveType(r, r.lengthEnd(end))
        break
      case (5 << 3) | 2:
        typeEnd = r.lengthEnd(end)
        typeAt = r.pos
        r.pos = typeEnd
        break
      case (4 << 3) | 2:
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
  w.ascii(creation)
  w.lit(EVENT_ADDRESS)
  w.quoted(shortAddress(address))
  w.lit(EVENT_SEQUENCE)
  w.ascii(sequence)
  w.lit(EVENT_TYPE)
  w.string(r, typeAt, typeEnd)
  w.lit(EVENT_DATA)
  w.json(r, dataAt, dataEnd)
  w.lit(CLOSE_OBJECT)
}

const CLOSE_OBJECT = ascii('}')

/** `JSON.stringify(changes.map(changeJson))` of the write-set changes at `ranges`. */
export function changesText(r: WireReader, ranges: Ranges, w: TextWriter): void {
  w.lit(OPEN)
  for (let i = 0; i < ranges.length; i += 2) {
    if (i > 0) w.lit(COMMA)
    changeText1(r, ranges[i] as number, ranges[i + 1] as number, w)
  }
  w.lit(CLOSE)
}

function changeText1(r: WireReader, at: number, end: number, w: TextWriter): void {
  let resource = -1
  let resourceEnd = -1
  let others = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((6 << 3) | 2)) {
      if (resource >= 0) others++
      resourceEnd = r.lengthEnd(end)
      resource = r.pos
      r.pos = resourceEnd
    } else if (tag === ((1 << 3) | 0)) {
      r.varint32(end)
    } else {
      others++
      other(r, tag, end, 0)
    }
  }
  if (resource < 0 || others > 0 || !writeResource(r, resource, resourceEnd, w)) {
    fallbacks.change++
    r.pos = at
    w.utf8(changeText(writeSetChange(r, end)))
  }
}

/** A write-resource change member by member; false (nothing written) when it has no type string. */
function writeResource(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let address = ''
  let keyAt = -1
  let keyEnd = -1
  let typeAt = -1
  let typeEnd = -1
  let dataAt = 0
  let dataEnd = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        address = r.string(end)
        break
      case (2 << 3) | 2:
        keyEnd = r.lengthEnd(end)
        keyAt = r.pos
        r.pos = keyEnd
        break
      case (3 << 3) | 2:
        moveStructTag(r, r.lengthEnd(end))
        break
      case (4 << 3) | 2:
        typeEnd = r.lengthEnd(end)
        typeAt = r.pos
        r.pos = typeEnd
        break
      case (5 << 3) | 2:
        dataEnd = r.lengthEnd(end)
        dataAt = r.pos
        r.pos = dataEnd
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  if (typeAt < 0 || typeAt === typeEnd) return false
  w.lit(RESOURCE_ADDRESS)
  w.quoted(shortAddress(address))
  w.lit(RESOURCE_KEY)
  if (keyAt < 0) w.hex(r.input, 0, 0)
  else w.hex(r.input, keyAt, keyEnd)
  w.lit(RESOURCE_TYPE)
  w.string(r, typeAt, typeEnd)
  w.lit(EVENT_DATA)
  w.json(r, dataAt, dataEnd)
  w.lit(RESOURCE_END)
  return true
}

/**
 * The one member at field 2 of the message at `[at, end)` (a signature's ed25519 or a payload's
 * entry function: the first case of its oneof), when its only other field is its kind (field 1,
 * a varint): its bytes' range. `null` when it has none, more than one, or any other field, so
 * the caller takes the decoder's path. Leaves `r.pos` at `end`.
 */
function soleMember(r: WireReader, at: number, end: number): { at: number; end: number } | null {
  let member = -1
  let memberEnd = -1
  let others = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((2 << 3) | 2)) {
      if (member >= 0) others++
      memberEnd = r.lengthEnd(end)
      member = r.pos
      r.pos = memberEnd
    } else if (tag === ((1 << 3) | 0)) {
      r.varint32(end)
    } else {
      others++
      other(r, tag, end, 0)
    }
  }
  return member >= 0 && others === 0 ? { at: member, end: memberEnd } : null
}

/** `signatureText` of the signature at `[at, end)`; false when the signature member is left out. */
export function signatureText1(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  const sole = soleMember(r, at, end)
  if (sole !== null) {
    const ed = sole.at
    const edEnd = sole.end
    let keyAt = ed
    let keyEnd = ed
    let sigAt = ed
    let sigEnd = ed
    r.pos = ed
    while (r.pos < edEnd) {
      const tag = r.tag(edEnd)
      if (tag === ((1 << 3) | 2)) {
        keyEnd = r.lengthEnd(edEnd)
        keyAt = r.pos
        r.pos = keyEnd
      } else if (tag === ((2 << 3) | 2)) {
        sigEnd = r.lengthEnd(edEnd)
        sigAt = r.pos
        r.pos = sigEnd
      } else other(r, tag, edEnd, 0b110)
    }
    w.lit(ED25519_KEY)
    w.hex(r.input, keyAt, keyEnd)
    w.lit(ED25519_SIGNATURE)
    w.hex(r.input, sigAt, sigEnd)
    w.lit(ED25519_END)
    return true
  }
  fallbacks.signature++
  r.pos = at
  const text = signatureText(signature(r, end))
  if (text === undefined) return false
  w.utf8(text)
  return true
}

/** What a payload contributes beyond its text: the writer's check reads `skeleton`, the transaction's `replay_protection_nonce` comes from its extra config. */
export interface PayloadParts {
  skeleton: PayloadText['skeleton']
  nonce: string | null
}

const ENTRY_FUNCTION = ascii('{"function":')
const TYPE_ARGUMENTS = ascii(',"type_arguments":[')
const ARGUMENTS = ascii('],"arguments":[')
const ENTRY_END = ascii('],"type":"entry_function_payload"}')

/** `payloadText` of the payload at `[at, end)` (`at` < 0: none). */
export function payloadText1(r: WireReader, at: number, end: number, w: TextWriter): PayloadParts {
  if (at >= 0) {
    const sole = soleMember(r, at, end)
    if (sole !== null) {
      const fn = entryFunction(r, sole.at, sole.end, w)
      if (fn !== undefined) return { skeleton: { type: 'entry_function_payload', function: fn }, nonce: null }
    }
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

/** An entry-function payload written member by member; `undefined` (nothing written) when it has no function id string. */
function entryFunction(r: WireReader, at: number, end: number, w: TextWriter): string | undefined {
  const types: Ranges = []
  const args: Ranges = []
  let id = ''
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        entryFunctionId(r, r.lengthEnd(end))
        break
      case (2 << 3) | 2:
        range(r, end, types)
        break
      case (3 << 3) | 2:
        range(r, end, args)
        break
      case (4 << 3) | 2:
        id = r.string(end)
        break
      default:
        other(r, tag, end, 0b11110)
    }
  }
  if (id === '') return undefined
  const cut = id.indexOf('::')
  const fn = cut < 0 ? shortAddress(id) : `${shortAddress(id.slice(0, cut))}${id.slice(cut)}`
  w.lit(ENTRY_FUNCTION)
  w.quoted(fn)
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
  w.lit(ENTRY_END)
  return fn
}

/** `String(seconds)` of the `Timestamp` at `[at, end)`, as the decoder reads it. */
export function seconds(r: WireReader, at: number, end: number): string {
  r.pos = at
  return String(timestamp(r, end).seconds)
}
