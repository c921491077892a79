import type { BlockInput } from '../../core/block.js'
import { readJsonLines } from './json-lines.js'
import type { LineOptions } from './lines.js'
import { parseBlockJson } from '../store/parse-block.js'

/** A block read from a chain file, with the line it came from. */
export interface BlockLine {
  line: number
  /** The parsed JSON value of the line (the node's block JSON or a compact summary). */
  json: unknown
  block: BlockInput
}

/**
 * Streams the blocks of a JSON Lines file (`-` = standard input, or a stream). Each line is either
 * the node's block JSON (has `transactions`) or a compact summary (`BlockInput`: has
 * `gas_unit_prices`). Constant memory; lines over `maxLineBytes` (default 64 MiB) are refused, a
 * leading BOM is dropped (see `readLines`). A bad line throws `InvalidDataError` naming the file,
 * line and field.
 *
 * @example for await (const { line, block } of readBlocks('chain.jsonl')) estimator.ingest(block)
 */
export function readBlocks(source: string | NodeJS.ReadableStream, options: LineOptions = {}): AsyncGenerator<BlockLine> {
  return readJsonLines(source, (json, line) => ({ line, json, block: toBlockInput(json) }), options)
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
