import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { InvalidDataError } from '../../src/ledger/store/errors.js'
import { readLineBytes, readLineRuns, readLines, type Line, type LineOptions } from '../../src/ledger/read/lines.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-lines-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The lines of `chunks` (strings or byte arrays) read as one stream, or the error that stopped it with the lines before it. */
async function lines(chunks: (string | Buffer)[], options: LineOptions = {}): Promise<{ got: Line[]; error?: unknown }> {
  const got: Line[] = []
  try {
    for await (const l of readLines(Readable.from(chunks), { file: 'f.jsonl', ...options })) got.push(l)
  } catch (error) {
    return { got, error }
  }
  return { got }
}

const texts = (got: Line[]) => got.map((l) => [l.number, l.text])

describe('readLines: the one line splitter', () => {
  it('numbers lines as an editor does: blank lines skipped but counted, CRLF and a missing last newline accepted', async () => {
    const { got } = await lines(['a\r\n\r\nb\n', '\n', 'c'])
    expect(texts(got)).toEqual([
      [1, 'a'],
      [3, 'b'],
      [5, 'c'],
    ])
  })

  it('reads a source that refills one buffer for every chunk: lines across many chunks, and the first line numbered firstLine', async () => {
    const text = `${'a'.repeat(23)}\nbc\n\n${'é'.repeat(11)}d\n${'x'.repeat(3)}`
    const bytes = Buffer.from(text)
    async function* refilled(): AsyncGenerator<Buffer> {
      const buffer = Buffer.alloc(5)
      for (let at = 0; at < bytes.length; at += buffer.length) {
        const n = bytes.copy(buffer, 0, at, at + buffer.length)
        yield buffer.subarray(0, n)
      }
    }
    const got: Line[] = []
    for await (const l of readLines(refilled(), { file: 'f.jsonl', firstLine: 40 })) got.push(l)
    expect(texts(got)).toEqual([
      [40, 'a'.repeat(23)],
      [41, 'bc'],
      [43, `${'é'.repeat(11)}d`],
      [44, 'xxx'],
    ])
  })

  it('joins a line cut across chunks, also inside a multi-byte character', async () => {
    const bytes = Buffer.from('x€y\nzé\n')
    const chunks = [bytes.subarray(0, 2), bytes.subarray(2, 3), bytes.subarray(3, 9), bytes.subarray(9)]
    expect(texts((await lines(chunks)).got)).toEqual([
      [1, 'x€y'],
      [2, 'zé'],
    ])
  })

  it('drops a UTF-8 byte order mark at the start of the source, and only there', async () => {
    expect(texts((await lines(['\uFEFFa\n\uFEFFb\n'])).got)).toEqual([
      [1, 'a'],
      [2, '\uFEFFb'],
    ])
    const bom = Buffer.from('\uFEFFa\n')
    const oneByteChunks = [...bom].map((b) => Buffer.from([b]))
    expect(texts((await lines(oneByteChunks)).got)).toEqual([[1, 'a']])
    expect(texts((await lines(['\uFEFF\nb'])).got)).toEqual([[2, 'b']])
  })

  it('yields the lines before one over maxLineBytes, then throws naming file, line and (line)', async () => {
    const { got, error } = await lines(['1234\n12345\n', '123456\nnext\n'], { maxLineBytes: 5 })
    expect(texts(got)).toEqual([
      [1, '1234'],
      [2, '12345'],
    ])
    expect(error).toBeInstanceOf(InvalidDataError)
    expect((error as Error).message).toBe('f.jsonl:3: (line): longer than the limit of 5 bytes per line (max line bytes); one block must fit in one line')
  })

  it('stops reading a source without newlines once past the limit', async () => {
    let sent = 0
    const endless = new Readable({
      read() {
        sent += 65536
        this.push(Buffer.alloc(65536, 0x61))
      },
    })
    await expect(readLines(endless, { maxLineBytes: 1 << 20 }).next()).rejects.toThrow(/^<stream>:1: \(line\): longer than the limit of 1048576 bytes/)
    expect(sent).toBeLessThan(4 << 20)
  })

  it('names a file it cannot read, with (file)', async () => {
    await expect(readLines(join(dir, 'missing.jsonl')).next()).rejects.toThrow(/missing\.jsonl:0: \(file\): cannot read: ENOENT/)
    await expect(readLines(dir).next()).rejects.toThrow(new RegExp(`${dir}:0: \\(file\\): cannot read: EISDIR \\(it is a directory\\)`))
  })

  it('a line joined across chunks stays intact through its run while the same chunk leaves the next line unfinished, chunk after chunk', async () => {
    // Every chunk ends inside a line, and some lines span several chunks and outgrow the buffers
    // that join lines, so each run opens with a joined line while its chunk's tail is kept.
    const want = Array.from({ length: 60 }, (_, i) => `${i}:${String.fromCharCode(97 + (i % 26)).repeat((i * 977) % 9000)}`)
    const bytes = Buffer.from(`${want.join('\n')}\n`)
    async function* refilled(): AsyncGenerator<Buffer> {
      const buffer = Buffer.alloc(1500)
      for (let at = 0; at < bytes.length; at += buffer.length) yield buffer.subarray(0, bytes.copy(buffer, 0, at, at + buffer.length))
    }
    const got: string[] = []
    // A run is cut whole before it is yielded: its first line is read only after its chunk's tail was kept.
    for await (const run of readLineRuns(refilled(), { file: 'f.jsonl' })) got.push(...run.map((l) => l.bytes.toString('utf8')))
    expect(got).toEqual(want)
  })

  it('readLineRuns gives the lines of readLineBytes a chunk at a time, and throws the same error after the same lines', async () => {
    /** Every line's number and text, and the error's message or null, with the runs' sizes. */
    async function read<T>(source: AsyncIterable<T>, take: (item: T) => { number: number; bytes: Buffer }[]) {
      const got: [number, string][] = []
      const sizes: number[] = []
      try {
        for await (const item of source) {
          const lines = take(item)
          sizes.push(lines.length)
          // Read before the next run is asked for: the bytes hold until then.
          for (const { number, bytes } of lines) got.push([number, bytes.toString('utf8')])
        }
      } catch (error) {
        return { got, sizes, error: (error as Error).message }
      }
      return { got, sizes, error: null }
    }
    const options = { file: 'f.jsonl', maxLineBytes: 6 }
    for (const chunks of [['\uFEFFa\r\n\nbc\nd', 'ef\n12'], ['x\n', 'y\nz\n', '1234567\nw\n'], ['', 'q']]) {
      const source = () => Readable.from(chunks.map((c) => Buffer.from(c)))
      const runs = await read(readLineRuns(source(), options), (run) => run)
      const lines = await read(readLineBytes(source(), options), (line) => [line])
      expect(runs.got).toEqual(lines.got)
      expect(runs.error).toBe(lines.error)
      expect(runs.sizes.every((n) => n > 0)).toBe(true)
    }
    const two = await read(readLineRuns(Readable.from([Buffer.from('a\nb\nc'), Buffer.from('d\ne\n')]), options), (run) => run)
    expect(two.sizes).toEqual([2, 2])
    expect(two.got).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'cd'],
      [4, 'e'],
    ])
  })
})
