import { createReadStream } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'

/** One line of a text source with its 1-based number. */
export interface Line {
  number: number
  text: string
}

/**
 * Streams the lines of a file (`-` is standard input) without holding the file in memory.
 * Splits decoded chunks on `\n` (a trailing `\r` is dropped); blank lines are skipped but
 * counted. Constant memory apart from the longest line.
 */
export async function* readLines(source: string | NodeJS.ReadableStream, stdin?: NodeJS.ReadableStream): AsyncGenerator<Line> {
  const stream = typeof source === 'string' ? (source === '-' ? (stdin ?? process.stdin) : createReadStream(source, { highWaterMark: 1 << 20 })) : source
  const decoder = new StringDecoder('utf8')
  let rest = ''
  let number = 0
  for await (const chunk of stream) {
    const text = rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer))
    let start = 0
    let nl = text.indexOf('\n', start)
    while (nl !== -1) {
      number++
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl
      if (end > start) yield { number, text: text.slice(start, end) }
      start = nl + 1
      nl = text.indexOf('\n', start)
    }
    rest = text.slice(start)
  }
  rest += decoder.end()
  if (rest.length > 0) {
    number++
    const text = rest.endsWith('\r') ? rest.slice(0, -1) : rest
    if (text.length > 0) yield { number, text }
  }
}
