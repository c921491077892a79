import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readChunks, readSmallFile } from '../../src/ledger/read/file-range.js'
import { readLineRuns } from '../../src/ledger/read/lines.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-file-range-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('readSmallFile', () => {
  it('hands out the file in order in chunks that end at a newline, of one refilled buffer while no line outgrows it', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `${i} ${randomBytes(1 + ((i * 7919) % 9000)).toString('base64')}`)
    const text = `${lines.join('\n')}\nno newline at the end`
    const path = join(dir, 'lines.bin')
    writeFileSync(path, text)
    const copies: Buffer[] = []
    const seen = new Set<ArrayBufferLike>()
    for await (const chunk of readSmallFile(path)) {
      copies.push(Buffer.from(chunk))
      seen.add(chunk.buffer)
    }
    expect(Buffer.concat(copies).toString()).toBe(text)
    expect(copies.length).toBeGreaterThan(4)
    for (const c of copies.slice(0, -1)) expect(c.at(-1)).toBe(10)
    expect(copies.at(-1)?.toString()).toBe('no newline at the end')
    expect(seen.size).toBe(1)
  })

  it('a line longer than the buffer comes whole in one chunk', async () => {
    const long = 'x'.repeat(700_000)
    const path = join(dir, 'long.txt')
    writeFileSync(path, `short\n${long}\nafter\n`)
    const copies: string[] = []
    for await (const chunk of readSmallFile(path)) copies.push(chunk.toString())
    expect(copies.join('')).toBe(`short\n${long}\nafter\n`)
    expect(copies.some((c) => c.includes(`\n${long}\n`) || c.startsWith(`${long}\n`))).toBe(true)
  })

  it('gives the line splitter the same lines as readChunks, lines longer than a chunk and lines across chunks included', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => `${i}:${'x'.repeat((i * 7919) % 300_000)}`)
    const path = join(dir, 'lines.txt')
    writeFileSync(path, `${lines.join('\n')}\n`)
    const read = async (chunks: AsyncIterable<Buffer>) => {
      const out: string[] = []
      for await (const run of readLineRuns(chunks, { file: path })) for (const { number, bytes } of run) out.push(`${number} ${bytes.toString('utf8')}`)
      return out
    }
    const small = await read(readSmallFile(path))
    expect(small).toEqual(lines.map((l, i) => `${i + 1} ${l}`))
    expect(await read(readChunks(path))).toEqual(small)
  })

  it('an empty file gives no chunk; a missing one throws its ENOENT when first asked', async () => {
    const empty = join(dir, 'empty.bin')
    writeFileSync(empty, '')
    const none: Buffer[] = []
    for await (const chunk of readSmallFile(empty)) none.push(chunk)
    expect(none).toEqual([])
    await expect(readSmallFile(join(dir, 'missing.bin')).next()).rejects.toMatchObject({ code: 'ENOENT' })
  })
})
