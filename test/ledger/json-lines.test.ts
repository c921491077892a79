import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { InvalidDataError } from '../../src/ledger/store/errors.js'
import { readJsonLines } from '../../src/ledger/read/json-lines.js'
import { loadJsonLines } from '../../src/ledger/read/load.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { readBlocks } from '../../src/ledger/read/read-blocks.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-json-lines-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('readJsonLines: one JSON Lines reader, each caller parses its own lines', () => {
  it('hands each value to parse with its line; not JSON is (json), a parse error keeps its field', async () => {
    const source = () => Readable.from(['{"a":1}\n\n[2]\n{oops\n'])
    const seen: [number, unknown][] = []
    const error = await (async () => {
      for await (const v of readJsonLines(source(), (json, line) => [line, json] as [number, unknown], { file: 'x.jsonl' })) seen.push(v)
    })().catch((e: unknown) => e)
    expect(seen).toEqual([
      [1, { a: 1 }],
      [3, [2]],
    ])
    expect((error as InvalidDataError).message).toMatch(/^x\.jsonl:4: \(json\): not valid JSON/)
    const refused = readJsonLines(source(), () => {
      throw new Error('no thanks')
    }, { file: 'x.jsonl' })
    await expect(refused.next()).rejects.toThrow(/^x\.jsonl:1: \(line\): no thanks$/)
  })

  it('a JSON Lines file with a BOM is read like one without, by every reader', async () => {
    const blocks = new ChainBuilder().blocks(3, () => [{ sender: 1 }])
    const body = blocks.map((b) => JSON.stringify(b)).join('\n')
    const plain = join(dir, 'plain.jsonl')
    const bom = join(dir, 'bom.jsonl')
    writeFileSync(plain, body)
    writeFileSync(bom, `\uFEFF${body}`)
    const heights = async (path: string) => {
      const out = []
      for await (const { block } of readBlocks(path)) out.push(block.block_height)
      return out
    }
    expect(await heights(bom)).toEqual(await heights(plain))
    expect(await heights(bom)).toHaveLength(3)
    const store = new MemoryStore()
    expect(await loadJsonLines(bom, store)).toBe(3)
    expect(store.ledgerInfo()).toEqual((await MemoryStore.fromJsonLines(plain)).ledgerInfo())
  })
})
