import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openInput, PARSE_BELOW_BYTES } from '../../src/replay/read-input.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-read-input-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const chain = new ChainBuilder().blocks(40, (i) => [{ sender: 1 }, { sender: 2, gas_unit_price: 100 + i }, { sender: 3, gas_unit_price: 2 ** 40 + i }])
const body = chain.map((b) => JSON.stringify(b)).join('\n')
// Blank lines, a CR line end and a BOM are the splitter's; both paths share it.
const good = file('good.jsonl', `\uFEFF${body.replace('\n', '\r\n\n')}\n`)
const bad = file('bad.jsonl', `${body}\n${JSON.stringify({ ...chain[0], block_height: 'x' })}\n`)

/**
 * Every block of `path` and the error that ends the read (or null): by parser when
 * `parseBelowBytes` exceeds its size, else by scanner; one at a time (`blocks`) or a run at a
 * time (`runs`).
 */
async function read(path: string, parseBelowBytes: number, by: 'blocks' | 'runs' = 'blocks') {
  const opened = await openInput(path, 'jsonl', undefined, { parseBelowBytes })
  const blocks: unknown[] = []
  try {
    if (by === 'blocks') for await (const b of opened.blocks) blocks.push(b)
    else for await (const run of opened.runs) for (const b of run) blocks.push(b)
  } catch (error) {
    return { blocks, error: (error as Error).message, bytes: opened.bytesRead(), total: opened.totalBytes }
  }
  return { blocks, error: null, bytes: opened.bytesRead(), total: opened.totalBytes }
}

describe('openInput reads JSON Lines by parser below the size threshold and by scanner above it, one block or a run at a time', () => {
  it('gives the same blocks, lines and byte count either way', async () => {
    const parsed = await read(good, Number.MAX_SAFE_INTEGER)
    const scanned = await read(good, 0)
    expect(parsed.error).toBeNull()
    expect(parsed.blocks).toHaveLength(40)
    expect(scanned).toEqual(parsed)
    expect(parsed.bytes).toBe(parsed.total)
    for (const below of [0, Number.MAX_SAFE_INTEGER]) expect(await read(good, below, 'runs')).toEqual(parsed)
  })

  it('stops at the same bad line with the same error either way', async () => {
    const parsed = await read(bad, Number.MAX_SAFE_INTEGER)
    expect(parsed.blocks).toHaveLength(40)
    expect(parsed.error).toMatch(/bad\.jsonl:41: block_height: /)
    expect(await read(bad, 0)).toEqual(parsed)
    for (const below of [0, Number.MAX_SAFE_INTEGER]) expect(await read(bad, below, 'runs')).toEqual(parsed)
  })

  it('names a missing file with field (file) either way', async () => {
    for (const below of [0, PARSE_BELOW_BYTES]) expect((await read(join(dir, 'nope.jsonl'), below)).error).toMatch(/nope\.jsonl:0: \(file\): cannot read: ENOENT/)
  })
})
