import { changeText } from '../convert/payload-text.js'
import { fallbacks } from './fallbacks.js'
import { checkMoveStructTag, other } from './move.js'
import { ascii, type TextWriter } from './text-writer.js'
import type { Ranges } from './user-text.js'
import type { WireReader } from './wire-reader.js'
import { writeSetChange } from './write-set.js'

// A transaction's write-set changes written straight from their wire bytes, as user-text.ts
// writes the other parts: resources (written and deleted) and table items (written and
// deleted), the changes nearly every mainnet transaction holds, member by member; modules, and
// any shape protobuf would merge (a change or its data sent twice), through `writeSetChange`
// and `changeText`, so each change's bytes are `JSON.stringify(changeJson(c))`.

const OPEN = ascii('[')
const COMMA = ascii(',')
const CLOSE = ascii(']')
const ADDRESS = ascii('{"address":')
const KEY_HASH = ascii(',"state_key_hash":')
const RESOURCE_TYPE = ascii(',"data":{"type":')
const DATA = ascii(',"data":')
const RESOURCE_END = ascii('},"type":"write_resource"}')
const RESOURCE = ascii(',"resource":')
const DELETE_RESOURCE_END = ascii(',"type":"delete_resource"}')
const ITEM_KEY_HASH = ascii('{"state_key_hash":')
const HANDLE = ascii(',"handle":')
const KEY = ascii(',"key":')
const VALUE_0X = ascii(',"value":"0x"')
const NULL = ascii('null')
const TABLE_KEY = ascii('{"key":')
const KEY_TYPE = ascii(',"key_type":')
const VALUE = ascii(',"value":')
const VALUE_TYPE = ascii(',"value_type":')
const WRITE_ITEM_END = ascii('},"type":"write_table_item"}')
const DELETE_ITEM_END = ascii('},"type":"delete_table_item"}')
const WRITE_ITEM_NULL_END = ascii(',"type":"write_table_item"}')
const DELETE_ITEM_NULL_END = ascii(',"type":"delete_table_item"}')

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
  // The change's one member (fields 2–7 of its oneof) beside its kind (field 1).
  let field = 0
  let member = -1
  let memberEnd = -1
  let others = 0
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    const f = tag >>> 3
    if ((tag & 7) === 2 && f >= 2 && f <= 7) {
      if (member >= 0) others++
      memberEnd = r.lengthEnd(end)
      member = r.pos
      r.pos = memberEnd
      field = f
    } else if (tag === ((1 << 3) | 0)) {
      r.varint32(end)
    } else {
      others++
      other(r, tag, end, 0)
    }
  }
  const mark = w.mark()
  if (member >= 0 && others === 0) {
    if (field === 6 ? writeResource(r, member, memberEnd, w) : field === 7 ? tableItem(r, member, memberEnd, w, true) : field === 4 ? tableItem(r, member, memberEnd, w, false) : field === 3 && deleteResource(r, member, memberEnd, w)) return
    w.reset(mark)
  }
  fallbacks.change++
  r.pos = at
  w.utf8(changeText(writeSetChange(r, end)))
}

/**
 * A write-resource change member by member; false (nothing written) when it has no type string
 * or a string member comes twice (the decoder checks every occurrence's UTF-8; the last wins).
 */
function writeResource(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let address = 0
  let addressEnd = 0
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
        if (addressEnd !== 0) return false
        addressEnd = r.lengthEnd(end)
        address = r.pos
        r.pos = addressEnd
        break
      case (2 << 3) | 2:
        keyEnd = r.lengthEnd(end)
        keyAt = r.pos
        r.pos = keyEnd
        break
      case (3 << 3) | 2:
        checkMoveStructTag(r, r.lengthEnd(end))
        break
      case (4 << 3) | 2:
        if (typeAt >= 0) return false
        typeEnd = r.lengthEnd(end)
        typeAt = r.pos
        r.pos = typeEnd
        break
      case (5 << 3) | 2:
        if (dataEnd !== 0) return false
        dataEnd = r.lengthEnd(end)
        dataAt = r.pos
        r.pos = dataEnd
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  if (typeAt < 0 || typeAt === typeEnd) return false
  w.lit(ADDRESS)
  w.address(r, address, addressEnd)
  w.lit(KEY_HASH)
  if (keyAt < 0) w.hex(r.input, 0, 0)
  else w.hex(r.input, keyAt, keyEnd)
  w.lit(RESOURCE_TYPE)
  w.string(r, typeAt, typeEnd)
  w.lit(DATA)
  w.json(r, dataAt, dataEnd)
  w.lit(RESOURCE_END)
  return true
}

/**
 * A delete-resource change member by member; false (nothing written) when it has no type string
 * or a string member comes twice (the decoder's case, as for `writeResource`).
 */
function deleteResource(r: WireReader, at: number, end: number, w: TextWriter): boolean {
  let address = 0
  let addressEnd = 0
  let keyAt = 0
  let keyEnd = 0
  let typeAt = -1
  let typeEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      if (addressEnd !== 0) return false
      addressEnd = r.lengthEnd(end)
      address = r.pos
      r.pos = addressEnd
    } else if (tag === ((2 << 3) | 2)) {
      keyEnd = r.lengthEnd(end)
      keyAt = r.pos
      r.pos = keyEnd
    } else if (tag === ((3 << 3) | 2)) {
      // Read only to check it as the decoder does: the type string wins.
      checkMoveStructTag(r, r.lengthEnd(end))
    } else if (tag === ((4 << 3) | 2)) {
      if (typeAt >= 0) return false
      typeEnd = r.lengthEnd(end)
      typeAt = r.pos
      r.pos = typeEnd
    } else other(r, tag, end, 0b11110)
  }
  if (typeAt < 0 || typeAt === typeEnd) return false
  w.lit(ADDRESS)
  w.address(r, address, addressEnd)
  w.lit(KEY_HASH)
  w.hex(r.input, keyAt, keyEnd)
  w.lit(RESOURCE)
  w.string(r, typeAt, typeEnd)
  w.lit(DELETE_RESOURCE_END)
  return true
}

/**
 * A table item written (`write`: fields state_key_hash, handle, key, data with key, key_type,
 * value, value_type) or deleted (data with key, key_type), member by member; false when its data
 * comes twice (protobuf merges it) or a string member does (the decoder checks every occurrence's
 * UTF-8): the decoder's cases. The stream has no raw BCS value: a
 * written item's `value` is `0x`, as changeJson writes it.
 */
function tableItem(r: WireReader, at: number, end: number, w: TextWriter, write: boolean): boolean {
  let keyHashAt = 0
  let keyHashEnd = 0
  let handleAt = 0
  let handleEnd = 0
  let keyAt = 0
  let keyEnd = 0
  let data = -1
  let dataEnd = -1
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) {
      keyHashEnd = r.lengthEnd(end)
      keyHashAt = r.pos
      r.pos = keyHashEnd
    } else if (tag === ((2 << 3) | 2)) {
      if (handleEnd !== 0) return false
      handleEnd = r.lengthEnd(end)
      handleAt = r.pos
      r.pos = handleEnd
    } else if (tag === ((3 << 3) | 2)) {
      if (keyEnd !== 0) return false
      keyEnd = r.lengthEnd(end)
      keyAt = r.pos
      r.pos = keyEnd
    } else if (tag === ((4 << 3) | 2)) {
      if (data >= 0) return false
      dataEnd = r.lengthEnd(end)
      data = r.pos
      r.pos = dataEnd
    } else other(r, tag, end, 0b11110)
  }
  w.lit(ITEM_KEY_HASH)
  w.hex(r.input, keyHashAt, keyHashEnd)
  w.lit(HANDLE)
  w.string(r, handleAt, handleEnd)
  w.lit(KEY)
  w.string(r, keyAt, keyEnd)
  if (write) w.lit(VALUE_0X)
  w.lit(DATA)
  if (data < 0) {
    w.lit(NULL)
    w.lit(write ? WRITE_ITEM_NULL_END : DELETE_ITEM_NULL_END)
    return true
  }
  // WriteTableData (key, key_type, value, value_type) or DeleteTableData (key, key_type). A string
  // field sent twice goes to the decoder, which checks every occurrence's UTF-8 (the last one wins).
  let dKeyAt = 0
  let dKeyEnd = 0
  let keyTypeAt = 0
  let keyTypeEnd = 0
  let valueAt = 0
  let valueEnd = 0
  let valueTypeAt = 0
  let valueTypeEnd = 0
  r.pos = data
  while (r.pos < dataEnd) {
    const tag = r.tag(dataEnd)
    if (tag === ((1 << 3) | 2)) {
      if (dKeyEnd !== 0) return false
      dKeyEnd = r.lengthEnd(dataEnd)
      dKeyAt = r.pos
      r.pos = dKeyEnd
    } else if (tag === ((2 << 3) | 2)) {
      if (keyTypeEnd !== 0) return false
      keyTypeEnd = r.lengthEnd(dataEnd)
      keyTypeAt = r.pos
      r.pos = keyTypeEnd
    } else if (write && tag === ((3 << 3) | 2)) {
      if (valueEnd !== 0) return false
      valueEnd = r.lengthEnd(dataEnd)
      valueAt = r.pos
      r.pos = valueEnd
    } else if (write && tag === ((4 << 3) | 2)) {
      if (valueTypeEnd !== 0) return false
      valueTypeEnd = r.lengthEnd(dataEnd)
      valueTypeAt = r.pos
      r.pos = valueTypeEnd
    } else other(r, tag, dataEnd, write ? 0b11110 : 0b110)
  }
  w.lit(TABLE_KEY)
  w.json(r, dKeyAt, dKeyEnd)
  w.lit(KEY_TYPE)
  w.string(r, keyTypeAt, keyTypeEnd)
  if (write) {
    w.lit(VALUE)
    w.json(r, valueAt, valueEnd)
    w.lit(VALUE_TYPE)
    w.string(r, valueTypeAt, valueTypeEnd)
  }
  w.lit(write ? WRITE_ITEM_END : DELETE_ITEM_END)
  return true
}
