import fc from 'fast-check'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { BlockInput } from '../../src/core/block.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { InvalidDataError } from '../../src/ledger/store/errors.js'
import { BlockBatchReader, BlockBatchWriter } from '../../src/ledger/threads/block-batch.js'
import { BlockScanner } from '../../src/ledger/read/block-scanner.js'
import { scanBlocks } from '../../src/ledger/scan-blocks.js'
import { scanBlocksThreaded } from '../../src/ledger/threads/scan-threads.js'
import { fcRuns } from '../budget.js'
import { seenError } from './seen-error.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-scan-threads-'))
let files = 0

/** Everything a scan yields, or its error after the blocks before it: the message, and its class, fields and cause chain (`thrown`). */
async function collect(blocks: AsyncIterable<{ file: string; line: number; block: BlockInput }>): Promise<{ lines: { file: string; line: number; block: BlockInput }[]; error: string | null; thrown?: unknown }> {
  const lines: { file: string; line: number; block: BlockInput }[] = []
  try {
    for await (const l of blocks) lines.push(l)
    return { lines, error: null }
  } catch (error) {
    return { lines, error: (error as Error).message, thrown: seenError(error) }
  }
}

function write(text: string | Buffer): string {
  const file = join(dir, `chain-${files++}.jsonl`)
  writeFileSync(file, text)
  return file
}

/** Lines of every kind a chain file holds: node block JSON, compact summaries (bigints too), blanks, CRLF, bad ones. */
function lineArb(height: number) {
  const block = new ChainBuilder({ height, version: height * 10 })
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.record({ sender: fc.integer({ min: 1, max: 3 }), gas_unit_price: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.constant(18446744073709551615n)), function: fc.constantFrom('0x1::coin::transfer', `${addr(0xbeef)}::dex::swap`) }), { maxLength: 3 }).map((users) => JSON.stringify(block.block({ users, epilogue: { block_gas_limit_reached: users.length > 2, block_output_limit_reached: false, block_effective_block_gas_units: 1, block_approx_output_size: 2 } }))) },
    { weight: 2, arbitrary: fc.constantFrom(`{"block_height":"${height}","epoch":"1","gas_unit_prices":["18446744073709551615",100]}`, `{"block_height":"${height}","epoch":"1","gas_unit_prices":[5],"extra":{"k":[1]}}`) },
    { weight: 1, arbitrary: fc.constantFrom('', '\r', '   ') },
    { weight: 1, arbitrary: fc.constantFrom('{"block_height":"x"}', '{not json', `{"block_height":"${height}","first_version":"1","last_version":"0","transactions":[]}`) },
  )
}

describe('BlockBatch: the compact form workers send', () => {
  const sample = readFileSync(SAMPLE, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .slice(0, 40)
  const built = new ChainBuilder({ height: 2 ** 53, version: 2n ** 63n })
  const info = { block_effective_block_gas_units: 5, block_approx_output_size: 9 }
  const wide = [0, 1, 2, 3].map((i) =>
    JSON.stringify(
      built.block({
        users: [{ sender: 1, gas_unit_price: 18446744073709551615n, function: `${addr(0xbeef)}::m::f` }, { sender: 2 }],
        epilogue: i % 2 === 0 ? null : { block_gas_limit_reached: true, block_output_limit_reached: i === 3, ...info },
      }),
    ),
  )
  const compact = ['{"block_height":"18446744073709551615","epoch":"1","gas_unit_prices":["18446744073709551615",7]}', '{"block_height":"3","epoch":"1","gas_unit_prices":[5],"gas_used":[1],"extra":null}']

  it('reads back, after a structured clone, every block equal to the one added: bigints, framework calls and compact summaries too', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...sample, ...wide, ...compact), { maxLength: 30 }), (lines) => {
        const scanner = new BlockScanner()
        const added = lines.map((l, i) => scanner.blockOfLine('f', i + 1, Buffer.from(l)))
        const writer = new BlockBatchWriter()
        added.forEach((b, i) => writer.add(i + 1, b))
        const { batch } = writer.take()
        expect(writer.count).toBe(0)
        const reader = new BlockBatchReader(structuredClone(batch))
        expect(added.map((_, i) => reader.block(i))).toEqual(added)
        expect([...batch.lines]).toEqual(added.map((_, i) => i + 1))
      }),
      { numRuns: fcRuns(0.6) },
    )
  })
})

describe('scanBlocksThreaded: the same blocks, lines and errors as a sequential scan', () => {
  it('yields every block of the first 600 of the sample chain with its line, whatever the chunk size and thread count', async () => {
    const file = write(`${readFileSync(SAMPLE, 'utf8').split('\n').slice(0, 600).join('\n')}\n`)
    const sequential = await collect(scanBlocks(file))
    for (const [threads, chunkBytes] of [
      [1, 1 << 20],
      [2, 65_537],
      [3, 300_001],
    ] as const) {
      expect(await collect(scanBlocksThreaded(file, { threads, chunkBytes }))).toEqual(sequential)
    }
    expect(sequential.lines.length).toBe(600)
  })

  it('agrees on files of mixed lines (summaries, blanks, CRLF, a BOM, no final newline, bad lines) cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => lineArb(i + 1)))),
        fc.record({ crlf: fc.boolean(), bom: fc.boolean(), finalNewline: fc.boolean() }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4000 }),
        async (lines, { crlf, bom, finalNewline }, threads, chunkBytes) => {
          const text = `${bom ? '\uFEFF' : ''}${lines.join(crlf ? '\r\n' : '\n')}${finalNewline ? '\n' : ''}`
          const file = write(text)
          const sequential = await collect(scanBlocks(file))
          expect(await collect(scanBlocksThreaded(file, { threads, chunkBytes }))).toEqual(sequential)
        },
      ),
      // Each run starts a scan on worker threads: a twelfth of the typical budget (12 by default).
      { numRuns: fcRuns(0.12, 8) },
    )
  })

  it('refuses a line over the limit at the same line, however the chunks cut it', async () => {
    const block = JSON.stringify(new ChainBuilder().block({ users: [{ sender: 1 }] }))
    const long = `{"block_height":"9","pad":"${'a'.repeat(5000)}"}`
    const file = write(`${block}\n${block.replace('"1"', '"2"')}\n${long}\n${block}\n`)
    const sequential = await collect(scanBlocks(file, { maxLineBytes: 4096 }))
    expect(sequential.error).toMatch(/:3: \(line\): longer than the limit of 4096 bytes/)
    for (const chunkBytes of [100, 3000, 7000]) expect(await collect(scanBlocksThreaded(file, { threads: 2, chunkBytes, maxLineBytes: 4096 }))).toEqual(sequential)
  })

  it('names the file, line and field of a bad line in the middle of the sample chain', async () => {
    const lines = readFileSync(SAMPLE, 'utf8').split('\n')
    lines[1234] = (lines[1234] as string).replace(/"gas_unit_price":"[0-9]+"/, '"gas_unit_price":"1.5"')
    const file = write(lines.join('\n'))
    const sequential = await collect(scanBlocks(file, { file: 'chain.jsonl' }))
    expect(sequential.error).toMatch(/^chain\.jsonl:1235: transactions\[[0-9]+\]\.gas_unit_price: block 1235: must be a u64 decimal string/)
    expect(sequential.lines.length).toBe(1234)
    expect(await collect(scanBlocksThreaded(file, { threads: 2, chunkBytes: 1 << 18, file: 'chain.jsonl' }))).toEqual(sequential)
  })

  it('the error of a bad line crosses the thread whole: the InvalidDataError of a sequential scan, its cause the same class with the same fields', async () => {
    const lines = readFileSync(SAMPLE, 'utf8').split('\n').slice(0, 300)
    for (const [at, bad, causeClass] of [
      [250, (l: string) => l.replace(/"gas_unit_price":"[0-9]+"/, '"gas_unit_price":"-1"'), InvalidBlockError],
      [260, (l: string) => l.slice(0, 100), SyntaxError],
    ] as const) {
      const file = write(lines.map((l, i) => (i === at ? bad(l) : l)).join('\n'))
      const thrown = await (async () => {
        for await (const _ of scanBlocksThreaded(file, { threads: 2, chunkBytes: 1 << 16 }));
      })().catch((e: unknown) => e)
      expect(thrown).toBeInstanceOf(InvalidDataError)
      expect((thrown as InvalidDataError).line).toBe(at + 1)
      expect((thrown as InvalidDataError).cause).toBeInstanceOf(causeClass)
      expect(seenError(thrown)).toEqual((await collect(scanBlocks(file))).thrown)
    }
  })

  it('reads an empty file as no blocks, and scanBlocks with threads takes standard input in place', async () => {
    expect(await collect(scanBlocksThreaded(write(''), { threads: 2 }))).toEqual({ lines: [], error: null })
    const { Readable } = await import('node:stream')
    const stdin = Readable.from([readFileSync(SAMPLE).subarray(0, 20_000)])
    const viaStdin = await collect(scanBlocks('-', { stdin, threads: 2 }))
    expect(viaStdin.lines[0]?.file).toBe('<stdin>')
    expect(viaStdin.lines.length).toBeGreaterThan(0)
  })

  it('a worker whose cancelled job fails afterwards still serves the next job to its end', { timeout: 15_000 }, async () => {
    // The worker of chunk 1 is still splitting its 2 MiB of blank lines when the reader stops
    // after the first batch of chunk 0 and starts the next job; it then reaches the bad line of
    // its old job. That failure once reset the worker's current job, so the next scan waited
    // for that worker forever.
    const chunkBytes = 2 << 20
    const blocks = `${new ChainBuilder().blocks(1100, () => []).map((b) => JSON.stringify(b)).join('\n')}\n`
    const padded = blocks + '\n'.repeat(chunkBytes - blocks.length)
    const failing = write(`${padded}${'\n'.repeat(chunkBytes - 10)}{bad\n`)
    const next = write(padded + blocks)
    const first = scanBlocksThreaded(failing, { threads: 2, chunkBytes })
    expect((await first.next()).done).toBe(false)
    await first.return(undefined)
    let count = 0
    for await (const _ of scanBlocksThreaded(next, { threads: 2, chunkBytes })) count++
    expect(count).toBe(2200)
  })
})
