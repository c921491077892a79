import type { MoveType } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { MoveTypes } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { shortAddress } from './hex.js'

const PRIMITIVE: Partial<Record<MoveTypes, string>> = {
  [MoveTypes.BOOL]: 'bool',
  [MoveTypes.U8]: 'u8',
  [MoveTypes.U16]: 'u16',
  [MoveTypes.U32]: 'u32',
  [MoveTypes.U64]: 'u64',
  [MoveTypes.U128]: 'u128',
  [MoveTypes.U256]: 'u256',
  [MoveTypes.ADDRESS]: 'address',
  [MoveTypes.SIGNER]: 'signer',
}

/** A struct tag as the node writes it: `0x1::coin::CoinStore<0x1::aptos_coin::AptosCoin>` (short address, `, ` between generics). */
export function structTagString(tag: { address: string; module: string; name: string; genericTypeParams: MoveType[] }): string {
  const base = `${shortAddress(tag.address)}::${tag.module}::${tag.name}`
  return tag.genericTypeParams.length === 0 ? base : `${base}<${tag.genericTypeParams.map(moveTypeString).join(', ')}>`
}

/**
 * The node's string form of a Move type (Aptos `MoveType` Display): primitives by name,
 * `vector<T>`, struct tags, `T0` for generic parameter 0, `&T`/`&mut T`; an unparsable type
 * keeps its text.
 *
 * @example moveTypeString(vectorOfU8) // 'vector<u8>'
 */
export function moveTypeString(t: MoveType): string {
  const c = t.content
  switch (c.case) {
    case 'vector':
      return `vector<${moveTypeString(c.value)}>`
    case 'struct':
      return structTagString(c.value)
    case 'genericTypeParamIndex':
      return `T${c.value}`
    case 'reference':
      return `&${c.value.mutable ? 'mut ' : ''}${c.value.to === undefined ? '' : moveTypeString(c.value.to)}`
    case 'unparsable':
      return c.value
    default:
      if (t.type === MoveTypes.GENERIC_TYPE_PARAM) return 'T0'
      return PRIMITIVE[t.type] ?? 'unknown'
  }
}

/** Proto JSON of a Move type (the `aptos.transaction.v1.MoveType` JSON mapping), the reverse of `moveTypeString`. */
export type MoveTypeJson = { type: string; vector?: MoveTypeJson; struct?: StructTagJson; genericTypeParamIndex?: number; reference?: { mutable?: boolean; to: MoveTypeJson }; unparsable?: string }
export type StructTagJson = { address: string; module: string; name: string; genericTypeParams?: MoveTypeJson[] }

const BY_NAME: Record<string, string> = { bool: 'MOVE_TYPES_BOOL', u8: 'MOVE_TYPES_U8', u16: 'MOVE_TYPES_U16', u32: 'MOVE_TYPES_U32', u64: 'MOVE_TYPES_U64', u128: 'MOVE_TYPES_U128', u256: 'MOVE_TYPES_U256', address: 'MOVE_TYPES_ADDRESS', signer: 'MOVE_TYPES_SIGNER' }

/**
 * Parses the node's string form of a Move type into proto JSON (what a stream server sends);
 * text it cannot read becomes `MOVE_TYPES_UNPARSABLE` with the text kept, as the node does.
 */
export function parseMoveType(text: string): MoveTypeJson {
  const cursor = { s: text, i: 0 }
  try {
    const t = readType(cursor)
    if (cursor.i !== text.length) throw new Error('trailing text')
    return t
  } catch {
    return { type: 'MOVE_TYPES_UNPARSABLE', unparsable: text }
  }
}

/** Parses a struct tag string (`0x1::coin::CoinStore<…>`) into proto JSON. @throws Error when it is not one. */
export function parseStructTag(text: string): StructTagJson {
  const t = parseMoveType(text)
  if (t.struct === undefined) throw new Error(`not a struct tag: ${text}`)
  return t.struct
}

function readType(c: { s: string; i: number }): MoveTypeJson {
  while (c.s[c.i] === ' ') c.i++
  if (c.s[c.i] === '&') {
    c.i++
    const mutable = c.s.startsWith('mut ', c.i)
    if (mutable) c.i += 4
    const to = readType(c)
    return { type: 'MOVE_TYPES_REFERENCE', reference: mutable ? { mutable, to } : { to } }
  }
  const m = /^[A-Za-z0-9_]+/.exec(c.s.slice(c.i))
  if (m === null) throw new Error('type expected')
  const word = m[0]
  c.i += word.length
  if (word === 'vector' && c.s[c.i] === '<') {
    c.i++
    const inner = readType(c)
    expect(c, '>')
    return { type: 'MOVE_TYPES_VECTOR', vector: inner }
  }
  if (c.s.startsWith('::', c.i)) {
    c.i += 2
    const module = /^[A-Za-z0-9_]+/.exec(c.s.slice(c.i))?.[0]
    if (module === undefined) throw new Error('module expected')
    c.i += module.length
    expect(c, '::')
    const name = /^[A-Za-z0-9_]+/.exec(c.s.slice(c.i))?.[0]
    if (name === undefined) throw new Error('name expected')
    c.i += name.length
    const struct: StructTagJson = { address: word, module, name }
    if (c.s[c.i] === '<') {
      c.i++
      const params: MoveTypeJson[] = [readType(c)]
      while (c.s[c.i] === ',') {
        c.i++
        params.push(readType(c))
      }
      expect(c, '>')
      struct.genericTypeParams = params
    }
    return { type: 'MOVE_TYPES_STRUCT', struct }
  }
  const primitive = BY_NAME[word]
  if (primitive !== undefined) return { type: primitive }
  const generic = /^T(\d+)$/.exec(word)
  if (generic !== null) return { type: 'MOVE_TYPES_GENERIC_TYPE_PARAM', genericTypeParamIndex: Number(generic[1]) }
  throw new Error(`unknown type ${word}`)
}

function expect(c: { s: string; i: number }, token: string): void {
  while (c.s[c.i] === ' ') c.i++
  if (!c.s.startsWith(token, c.i)) throw new Error(`${token} expected`)
  c.i += token.length
}
