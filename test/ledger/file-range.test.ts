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
  it('hands out the file in order in chunks of one refilled buffer, each intact until the next is asked for', async () => {
    const bytes = randomBytes((1 << 20) + 12345)
    const path = join(dir, 'random.bin')
    writeFileSync(path, bytes)
    const copies: Buffer[] = []
    const seen = new Set<ArrayBufferLike>()
    for await (const chunk of readSmallFile(path)) {
      expect(chunk.length).toBeLessThanOrEqual(1 << 18)
      copies.push(Buffer.from(chunk))
      seen.add(chunk.buffer)
    }
    expect(Buffer.concat(copies).equals(bytes)).toBe(true)
    expect(copies.length).toBe(5)
    expect(seen.size).toBe(1)
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
