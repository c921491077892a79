import type { DeleteModule, DeleteResource, DeleteTableData, DeleteTableItem, WriteModule, WriteResource, WriteSetChange, WriteTableData, WriteTableItem } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { moveModuleBytecode, moveModuleId, moveStructTag, other } from './move.js'
import type { WireReader } from './wire-reader.js'

// Decoders of a write set's changes (modules, resources, table items), written as in move.ts.

function deleteModule(r: WireReader, end: number, m: DeleteModule = { $typeName: 'aptos.transaction.v1.DeleteModule', address: '', stateKeyHash: new Uint8Array(0) }): DeleteModule {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.address = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.stateKeyHash = r.bytes(end)
    else if (tag === ((3 << 3) | 2)) m.module = moveModuleId(r, r.lengthEnd(end), m.module)
    else other(r, tag, end, 0b1110)
  }
  return m
}

function deleteResource(r: WireReader, end: number, m: DeleteResource = { $typeName: 'aptos.transaction.v1.DeleteResource', address: '', stateKeyHash: new Uint8Array(0), typeStr: '' }): DeleteResource {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.address = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.stateKeyHash = r.bytes(end)
    else if (tag === ((3 << 3) | 2)) m.type = moveStructTag(r, r.lengthEnd(end), m.type)
    else if (tag === ((4 << 3) | 2)) m.typeStr = r.string(end)
    else other(r, tag, end, 0b11110)
  }
  return m
}

function deleteTableData(r: WireReader, end: number, m: DeleteTableData = { $typeName: 'aptos.transaction.v1.DeleteTableData', key: '', keyType: '' }): DeleteTableData {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.key = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.keyType = r.string(end)
    else other(r, tag, end, 0b110)
  }
  return m
}

function deleteTableItem(r: WireReader, end: number, m: DeleteTableItem = { $typeName: 'aptos.transaction.v1.DeleteTableItem', stateKeyHash: new Uint8Array(0), handle: '', key: '' }): DeleteTableItem {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.stateKeyHash = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.handle = r.string(end)
    else if (tag === ((3 << 3) | 2)) m.key = r.string(end)
    else if (tag === ((4 << 3) | 2)) m.data = deleteTableData(r, r.lengthEnd(end), m.data)
    else other(r, tag, end, 0b11110)
  }
  return m
}

function writeModule(r: WireReader, end: number, m: WriteModule = { $typeName: 'aptos.transaction.v1.WriteModule', address: '', stateKeyHash: new Uint8Array(0) }): WriteModule {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.address = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.stateKeyHash = r.bytes(end)
    else if (tag === ((3 << 3) | 2)) m.data = moveModuleBytecode(r, r.lengthEnd(end), m.data)
    else other(r, tag, end, 0b1110)
  }
  return m
}

function writeResource(r: WireReader, end: number, m: WriteResource = { $typeName: 'aptos.transaction.v1.WriteResource', address: '', stateKeyHash: new Uint8Array(0), typeStr: '', data: '' }): WriteResource {
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        m.address = r.string(end)
        break
      case (2 << 3) | 2:
        m.stateKeyHash = r.bytes(end)
        break
      case (3 << 3) | 2:
        m.type = moveStructTag(r, r.lengthEnd(end), m.type)
        break
      case (4 << 3) | 2:
        m.typeStr = r.string(end)
        break
      case (5 << 3) | 2:
        m.data = r.string(end)
        break
      default:
        other(r, tag, end, 0b111110)
    }
  }
  return m
}

function writeTableData(r: WireReader, end: number, m: WriteTableData = { $typeName: 'aptos.transaction.v1.WriteTableData', key: '', keyType: '', value: '', valueType: '' }): WriteTableData {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.key = r.string(end)
    else if (tag === ((2 << 3) | 2)) m.keyType = r.string(end)
    else if (tag === ((3 << 3) | 2)) m.value = r.string(end)
    else if (tag === ((4 << 3) | 2)) m.valueType = r.string(end)
    else other(r, tag, end, 0b11110)
  }
  return m
}

function writeTableItem(r: WireReader, end: number, m: WriteTableItem = { $typeName: 'aptos.transaction.v1.WriteTableItem', stateKeyHash: new Uint8Array(0), handle: '', key: '' }): WriteTableItem {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((1 << 3) | 2)) m.stateKeyHash = r.bytes(end)
    else if (tag === ((2 << 3) | 2)) m.handle = r.string(end)
    else if (tag === ((3 << 3) | 2)) m.key = r.string(end)
    else if (tag === ((4 << 3) | 2)) m.data = writeTableData(r, r.lengthEnd(end), m.data)
    else other(r, tag, end, 0b11110)
  }
  return m
}

/** An `aptos.transaction.v1.WriteSetChange` from `r.pos` to `end` (a transaction info's or a direct write set's). */
export function writeSetChange(r: WireReader, end: number): WriteSetChange {
  const m: WriteSetChange = { $typeName: 'aptos.transaction.v1.WriteSetChange', type: 0, change: { case: undefined } }
  while (r.pos < end) {
    const tag = r.tag(end)
    const c = m.change
    switch (tag) {
      case (1 << 3) | 0:
        m.type = r.varint32(end) | 0
        break
      case (2 << 3) | 2:
        m.change = { case: 'deleteModule', value: deleteModule(r, r.lengthEnd(end), c.case === 'deleteModule' ? c.value : undefined) }
        break
      case (3 << 3) | 2:
        m.change = { case: 'deleteResource', value: deleteResource(r, r.lengthEnd(end), c.case === 'deleteResource' ? c.value : undefined) }
        break
      case (4 << 3) | 2:
        m.change = { case: 'deleteTableItem', value: deleteTableItem(r, r.lengthEnd(end), c.case === 'deleteTableItem' ? c.value : undefined) }
        break
      case (5 << 3) | 2:
        m.change = { case: 'writeModule', value: writeModule(r, r.lengthEnd(end), c.case === 'writeModule' ? c.value : undefined) }
        break
      case (6 << 3) | 2:
        m.change = { case: 'writeResource', value: writeResource(r, r.lengthEnd(end), c.case === 'writeResource' ? c.value : undefined) }
        break
      case (7 << 3) | 2:
        m.change = { case: 'writeTableItem', value: writeTableItem(r, r.lengthEnd(end), c.case === 'writeTableItem' ? c.value : undefined) }
        break
      default:
        other(r, tag, end, 0b11111110)
    }
  }
  return m
}
