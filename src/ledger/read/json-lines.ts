import { InvalidDataError } from '../store/errors.js'
import { readLines, sourceName, type LineOptions } from './lines.js'

/**
 * The one JSON Lines reader: streams a source through `readLines` (line limit, BOM, blank lines)
 * and yields what `parse` makes of each line's JSON value, so each caller decides what a line
 * must be (the node's block JSON, a compact summary, a block checked for a store) without
 * another layer of iteration. A line that is not JSON throws `InvalidDataError` with field
 * `(json)`; whatever `parse` throws becomes an `InvalidDataError` naming the file, the line and,
 * when the error knows it, the field (`InvalidDataError.at`). The lines before a bad one are
 * yielded first. Constant memory apart from the longest line.
 *
 * `parse` runs when the consumer asks for the line, after the loop body of the line before, so
 * it may depend on state that body updates.
 *
 * @example for await (const block of readJsonLines('chain.jsonl', parseBlockJson)) …
 */
export async function* readJsonLines<T>(source: string | NodeJS.ReadableStream, parse: (json: unknown, line: number) => T, options: LineOptions = {}): AsyncGenerator<T> {
  const file = options.file ?? sourceName(source)
  for await (const { number, text } of readLines(source, { ...options, file })) yield parseJsonLine(file, number, text, parse)
}

/**
 * What `readJsonLines` makes of one line: `parse` of its JSON value, with the same errors
 * (`(json)` when it is not JSON, else `InvalidDataError.at`). For readers that split lines
 * themselves and parse only some of them (the block scanner's fallback).
 */
export function parseJsonLine<T>(file: string, number: number, text: string, parse: (json: unknown, line: number) => T): T {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new InvalidDataError(file, number, '(json)', `not valid JSON: ${(error as Error).message}`, { cause: error })
  }
  try {
    return parse(json, number)
  } catch (error) {
    throw InvalidDataError.at(file, number, error)
  }
}
