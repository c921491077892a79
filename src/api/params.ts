import type { FastifySchemaCompiler } from 'fastify'
import { TXN_KINDS, type TxnKind } from '../core/txn-kind.js'
import { parseU64 } from '../core/u64.js'
import { parseAddress } from '../ledger/store/address.js'
import { ApiError } from './plumbing/errors.js'
import type { Schema } from './schema/ref.js'

/** How a path or query value is read. Named by the vendor keyword `x-parse` of its schema. */
type ParseKind = 'address' | 'u64' | 'u32' | 'u16' | 'boolean' | 'decimal' | 'txn_kind'

/**
 * Schemas of path and query parameters. Each documents the wire type in the OpenAPI document and
 * names (via `x-parse`) the exact parser the validator applies; the handler receives the parsed
 * value (canonical long address, `U64`, number, boolean).
 */
export const PARAM: Readonly<Record<ParseKind, Schema>> = {
  address: {
    type: 'string',
    format: 'hex',
    description: 'Account address: 0x followed by 1 to 64 hex digits, or exactly 64 hex digits without 0x',
    'x-parse': 'address',
  },
  u64: { type: 'string', format: 'uint64', description: 'A u64 as a decimal string', 'x-parse': 'u64' },
  u32: { type: 'integer', format: 'uint32', minimum: 0, maximum: 4294967295, 'x-parse': 'u32' },
  u16: { type: 'integer', format: 'uint16', minimum: 0, maximum: 65535, 'x-parse': 'u16' },
  boolean: { type: 'boolean', 'x-parse': 'boolean' },
  decimal: { type: 'number', description: 'A plain decimal number such as 0.95 (no sign, no exponent)', 'x-parse': 'decimal' },
  txn_kind: { type: 'string', enum: [...TXN_KINDS], description: 'Transaction kind, for its minimum gas unit price', 'x-parse': 'txn_kind' },
}

const TYPE_NAME: Record<ParseKind, string> = { address: 'string(hex)', u64: 'string(uint64)', u32: 'integer(uint32)', u16: 'integer(uint16)', boolean: 'boolean', decimal: 'number(double)', txn_kind: 'string(kind)' }

/** Digits with at most one decimal point: no sign, no exponent, no `inf`/`NaN`. */
const DECIMAL = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/

/** Why a decimal string is not an unsigned integer, in the words of Rust's `from_str` (which the node uses). */
function integerProblem(text: string): string {
  if (text === '') return 'cannot parse integer from empty string'
  if (!/^[0-9]+$/.test(text)) return 'invalid digit found in string'
  return 'number too large to fit in target type'
}

/** Parses one raw value; `undefined` means it does not parse. */
function parseValue(kind: ParseKind, raw: string): unknown {
  switch (kind) {
    case 'address':
      return parseAddress(raw)
    case 'u64':
      return parseU64(raw)
    case 'u32':
      return raw.length > 0 && raw.length <= 10 && /^[0-9]+$/.test(raw) && Number(raw) <= 4294967295 ? Number(raw) : undefined
    case 'u16':
      return raw.length > 0 && raw.length <= 5 && /^[0-9]+$/.test(raw) && Number(raw) <= 65535 ? Number(raw) : undefined
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined
    case 'decimal':
      // 32 characters are more digits than a double holds; longer is only a way to make work.
      return raw.length <= 32 && DECIMAL.test(raw) ? Number(raw) : undefined
    case 'txn_kind':
      return (TXN_KINDS as readonly string[]).includes(raw) ? (raw as TxnKind) : undefined
  }
}

/** A client's value as a message quotes it: at most 64 characters, so an answer stays small whatever was sent. */
function quote(raw: string): string {
  return raw.length <= 64 ? JSON.stringify(raw) : `${JSON.stringify(raw.slice(0, 64))}… (${raw.length} characters)`
}

function problem(kind: ParseKind, raw: string): string {
  if (kind === 'address') return `invalid account address ${quote(raw)}`
  if (kind === 'boolean') return 'provided string was not `true` or `false`'
  if (kind === 'decimal') return 'invalid float literal'
  if (kind === 'txn_kind') return `expected one of ${TXN_KINDS.join(', ')}, got ${quote(raw)}`
  return integerProblem(raw)
}

interface ObjectSchema {
  properties?: Record<string, Record<string, unknown>>
  required?: string[]
}

/**
 * Fastify validator compiler for `params` and `querystring`: reads each declared parameter with
 * the exact parser its schema names (Ajv's coercion would take `1e2`, ` 5` or `0x10` as
 * numbers; the node does not). Undeclared query parameters are ignored, as the node does. A value
 * that does not parse → `ApiError('invalid_parameter')` (400 `web_framework_error`).
 */
export const compileParamParser: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const s = schema as ObjectSchema
  const where = httpPart === 'params' ? 'path' : 'parameter'
  const fields = Object.entries(s.properties ?? {}).map(([name, p]) => {
    const kind = p['x-parse'] as ParseKind | undefined
    if (kind === undefined || !(kind in TYPE_NAME)) throw new TypeError(`parameter schema ${name} has no known x-parse`)
    return { name, kind, required: (s.required ?? []).includes(name) }
  })
  return (data: unknown) => {
    const input = (data ?? {}) as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const { name, kind, required } of fields) {
      const raw = input[name]
      if (raw === undefined) {
        if (required) return { error: new ApiError('invalid_parameter', `failed to parse ${where} \`${name}\`: value is required`) }
        continue
      }
      if (typeof raw !== 'string') {
        return { error: new ApiError('invalid_parameter', `failed to parse ${where} \`${name}\`: expected one value, got ${Array.isArray(raw) ? raw.length : typeof raw}`) }
      }
      const value = parseValue(kind, raw)
      if (value === undefined) {
        return { error: new ApiError('invalid_parameter', `failed to parse ${where} \`${name}\`: failed to parse "${TYPE_NAME[kind]}": ${problem(kind, raw)}`) }
      }
      out[name] = value
    }
    return { value: out }
  }
}
