import type { BlockInput } from '../core/block.js'
import { InvalidDataError } from './errors.js'
import { readLines } from './lines.js'
import { parseBlockJson } from './parse-block.js'

/** A block read from a chain file, with the line it came from. */
export interface BlockLine {
  line: number
  /** The parsed JSON value of the line (the node's block JSON or a compact summary). */
  json: unknown
  block: BlockInput
}

/**
 * Streams the blocks of a JSON Lines file (`-` = standard input). Each line is either the node's
 * block JSON (has `transactions`) or a compact summary (`BlockInput`: has `gas_unit_prices`).
 * Constant memory. A bad line throws `InvalidDataError` naming the file, line and field.
 */
export async function* readBlocks(path: string, stdin?: NodeJS.ReadableStream): AsyncGenerator<BlockLine> {
  const file = path === '-' ? '<stdin>' : path
  for await (const { number, text } of readLines(path, stdin)) {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw new InvalidDataError(file, number, '(json)', `not valid JSON: ${(error as Error).message}`)
    }
    let block: BlockInput
    try {
      block = toBlockInput(json)
    } catch (error) {
      throw InvalidDataError.at(file, number, error)
    }
    yield { line: number, json, block }
  }
}

/** The node's block JSON is parsed; a compact summary passes through (the engine validates it). */
export function toBlockInput(json: unknown): BlockInput {
  if (typeof json === 'object' && json !== null && !Array.isArray(json) && 'gas_unit_prices' in json && !('transactions' in json)) {
    return compactFromJson(json as Record<string, unknown>)
  }
  return parseBlockJson(json)
}

/** JSON has no bigint: compact summaries carry large u64 as decimal strings, read exactly here. */
function compactFromJson(o: Record<string, unknown>): BlockInput {
  const exact = (a: unknown): unknown =>
    Array.isArray(a) ? a.map((v) => (typeof v === 'string' && /^[0-9]+$/.test(v) ? BigInt(v) : v)) : a
  return {
    ...(o as unknown as BlockInput),
    gas_unit_prices: exact(o.gas_unit_prices) as BlockInput['gas_unit_prices'],
    gas_used: exact(o.gas_used) as BlockInput['gas_used'],
  }
}
