import fc from 'fast-check'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { IngestBatchWriter, ingestBlocksOfBatch } from '../../src/ledger/ingest/ingest-batch.js'
import { ingestBlockOfLine } from '../../src/ledger/ingest/ingest-block.js'
import { BlockScanner } from '../../src/ledger/read/block-scanner.js'
import { ingestJsonLines } from '../../src/ledger/ingest.js'
import { readLineBytes } from '../../src/ledger/read/lines.js'
import { ingestBlocksThreaded } from '../../src/ledger/threads/scan-threads.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { IngestBlock } from '../../src/ledger/store/store.js'
import { fcRuns } from '../budget.js'
import { seenError } from './seen-error.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const MAX_TXNS = 20_000
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-ingest-threads-'))
let files = 0
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function write(text: string): string {
  const file = join(dir, `chain-${files++}.jsonl`)
  writeFileSync(file, text)
  return file
}

/** What a store's `appendChecked` and the ingest read of a block, as plain data. */
function view(line: number, b: IngestBlock) {
  const { parsed } = b.checked
  return {
    line,
    block_height: parsed.block_height,
    epoch: parsed.epoch,
    first_version: parsed.first_version,
    last_version: parsed.last_version,
    block_hash: b.checked.block_hash,
    block_timestamp: b.checked.block_timestamp,
    transactions: b.checked.transactions.length,
    entries: b.checked.entries,
    json: b.transactionJson.map((j) => Buffer.from(j).toString('utf8')),
  }
}

/** The blocks read, or the error after them: its message, and its class, fields and cause chain (`thrown`). */
type Collected = { blocks: ReturnType<typeof view>[]; error: string | null; thrown?: unknown }

async function collect(blocks: AsyncIterable<{ line: number; block: IngestBlock }>): Promise<Collected> {
  const out: ReturnType<typeof view>[] = []
  try {
    for await (const { line, block } of blocks) out.push(view(line, block))
    return { blocks: out, error: null }
  } catch (error) {
    return { blocks: out, error: (error as Error).message, thrown: seenError(error) }
  }
}

/** The sequential read `ingestJsonLines` does without threads. */
async function* sequential(file: string, maxLineBytes?: number): AsyncGenerator<{ line: number; block: IngestBlock }> {
  const scanner = new BlockScanner()
  for await (const { number, bytes } of readLineBytes(file, { file, maxLineBytes })) yield { line: number, block: ingestBlockOfLine(file, number, bytes, MAX_TXNS, scanner) }
}

/** Ledger lines: node blocks with senders whose sequence numbers run on, some not canonical JSON, and bad ones. */
function linesArb() {
  return fc.array(fc.tuple(fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 4 }), fc.constantFrom('as-is', 'spaced', 'bad-json', 'bad-field', 'blank')), { minLength: 1, maxLength: 12 }).map((spec) => {
    const builder = new ChainBuilder()
    return spec.map(([senders, form]) => {
      const block = builder.block({ users: senders.map((sender) => ({ sender })) })
      if (form === 'spaced') return JSON.stringify(block, null, 1).replaceAll('\n', '')
      if (form === 'bad-json') return '{"block_height":'
      if (form === 'bad-field') return JSON.stringify({ ...block, block_hash: 'x' })
      if (form === 'blank') return ''
      return JSON.stringify(block)
    })
  })
}

describe('IngestBatch: the ingest blocks a worker sends', () => {
  it('reads back, after a structured clone, what the stores read of each block: versions, entries, transaction bytes', async () => {
    const want = await collect(sequential(SAMPLE))
    const writer = new IngestBatchWriter()
    const scanner = new BlockScanner()
    for await (const { number, bytes } of readLineBytes(SAMPLE)) {
      if (number > 300) break
      writer.add(number, ingestBlockOfLine(SAMPLE, number, bytes, MAX_TXNS, scanner))
    }
    const { batch } = writer.take()
    expect(writer.count).toBe(0)
    const copy = structuredClone(batch)
    expect(ingestBlocksOfBatch(copy).map((b, i) => view(copy.lines[i] as number, b))).toEqual(want.blocks.slice(0, 300))
  })
})

describe('ingestBlocksThreaded: the same blocks, lines and errors as reading in place', () => {
  it('on the first 600 blocks of the sample chain, cut into chunks for 2 threads', async () => {
    const file = write(`${readFileSync(SAMPLE, 'utf8').split('\n').slice(0, 600).join('\n')}\n`)
    const want = await collect(sequential(file))
    expect(want.blocks.length).toBe(600)
    expect(await collect(ingestBlocksThreaded(file, { threads: 2, chunkBytes: 100_003, maxTransactions: MAX_TXNS }))).toEqual(want)
  })

  it('on files of ledger lines (spaced JSON, bad JSON, a bad field, blanks) cut anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(linesArb(), fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 3000 }), async (lines, threads, chunkBytes) => {
        const file = write(`${lines.join('\n')}\n`)
        expect(await collect(ingestBlocksThreaded(file, { threads, chunkBytes, maxTransactions: MAX_TXNS }))).toEqual(await collect(sequential(file)))
      }),
      // Each run starts a scan on worker threads: a sixteenth of the typical budget (6 by default).
      { numRuns: fcRuns(0.06, 4) },
    )
  })

  it('refuses a line over the limit at the same line', async () => {
    const builder = new ChainBuilder()
    const lines = [builder.block({ users: [{ sender: 1 }] }), builder.block({ users: [{ sender: 2 }] })].map((b) => JSON.stringify(b))
    const file = write(`${lines[0]}\n{"pad":"${'a'.repeat(5000)}"}\n${lines[1]}\n`)
    const want = await collect(sequential(file, 4096))
    expect(want.error).toMatch(/:2: \(line\): longer than the limit of 4096 bytes/)
    expect(await collect(ingestBlocksThreaded(file, { threads: 2, chunkBytes: 700, maxLineBytes: 4096, maxTransactions: MAX_TXNS }))).toEqual(want)
  })
})

describe('ingestJsonLines with threads: the same ledger and errors as without', () => {
  const dump = (path: string) => {
    const store = SqliteStore.open(path, { mustExist: true })
    try {
      const info = store.ledgerInfo()
      const txns: (string | null)[] = []
      for (let v = 0; v <= Number(info?.ledger_version ?? -1); v++) txns.push(store.transactionJsonByVersion(v))
      const accounts = [1, 2, 3, 4, 5].map(addr).map((a) => [store.accountSequenceNumber(a), store.accountTransactionsJson(a, 0, 1000)])
      const blocks = Array.from({ length: Number(info?.block_height ?? -1) + 1 }, (_, h) => store.blockByHeight(h, false))
      return { info, txns, accounts, blocks }
    } finally {
      store.close()
    }
  }

  it('a chain, and the same chain with a bad sequence number at line 100: same ledger, same error', async () => {
    const lines = new ChainBuilder().blocks(150, (i) => [{ sender: 1 + (i % 4) }, { sender: 5 }]).map((b) => JSON.stringify(b))
    // A sequence-number gap is a rule across lines: the worker cannot see it, the writer refuses it.
    const bad = (lines[99] as string).replace(/"sequence_number":"([0-9]+)"/, (_, n: string) => `"sequence_number":"${Number(n) + 5}"`)
    expect(bad).not.toBe(lines[99])
    const broken = write([...lines.slice(0, 99), bad, ...lines.slice(100)].join('\n'))
    const good = write(lines.join('\n'))
    for (const file of [good, broken]) {
      const outcomes = []
      for (const threads of [0, 1]) {
        const db = join(dir, `ledger-${files++}.db`)
        const store = SqliteStore.open(db)
        let error: string | null = null
        try {
          await ingestJsonLines(file, store, { threads, batchBlocks: 32 })
        } catch (e) {
          error = (e as Error).message
        } finally {
          store.close()
        }
        outcomes.push({ error, ledger: dump(db) })
      }
      expect(outcomes[1]).toEqual(outcomes[0])
      if (file === broken) expect(outcomes[0]?.error).toMatch(/:100: transactions\[[0-9]+\]\.sequence_number: block [0-9]+: gap/)
      else expect(outcomes[0]?.ledger.blocks.filter((b) => b !== null).length).toBe(150)
    }
  })

  it('standard input is read in place even when threads are asked for', async () => {
    const { Readable } = await import('node:stream')
    const lines = new ChainBuilder().blocks(20, (i) => [{ sender: 1 + (i % 3) }]).map((b) => `${JSON.stringify(b)}\n`)
    const store = SqliteStore.open(join(dir, `ledger-${files++}.db`))
    try {
      const summary = await ingestJsonLines('-', store, { stdin: Readable.from([lines.join('')]), threads: 2 })
      expect(summary.appended).toBe(20)
    } finally {
      store.close()
    }
  })
})
