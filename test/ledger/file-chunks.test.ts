import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileChunks } from '../../src/ledger/ingest/file-chunks.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-chunks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('fileChunks', () => {
  it('hands out the file in order, each chunk intact until the next is asked for, though two buffers take turns', async () => {
    const bytes = randomBytes((3 << 20) + 12345)
    const path = join(dir, 'random.bin')
    writeFileSync(path, bytes)
    const copies: Buffer[] = []
    const seen = new Set<ArrayBufferLike>()
    for await (const chunk of fileChunks(path)) {
      copies.push(Buffer.from(chunk))
      seen.add(chunk.buffer)
    }
    expect(Buffer.concat(copies).equals(bytes)).toBe(true)
    expect(copies.length).toBe(4)
    expect(seen.size).toBe(2)
  })

  it('an empty file gives no chunk; stopping early ends the iteration cleanly', async () => {
    const empty = join(dir, 'empty.bin')
    writeFileSync(empty, '')
    const none: Buffer[] = []
    for await (const chunk of fileChunks(empty)) none.push(chunk)
    expect(none).toEqual([])
    const path = join(dir, 'two.bin')
    writeFileSync(path, randomBytes(2 << 20))
    for await (const chunk of fileChunks(path)) {
      expect(chunk.length).toBe(1 << 20)
      break
    }
  })
})
