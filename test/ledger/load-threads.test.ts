import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import type { LoadJob } from '../../src/ledger/threads/load-protocol.js'
import type { RangeRunner } from '../../src/ledger/threads/load-threads.js'
import { loadMemoryStore, MemoryStore } from '../../src/ledger/memory-store.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { inProcess, lineAtCut, observe, outcome, sendersOf } from './load-threads-helpers.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-load-threads-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

function write(text: string): string {
  const file = join(dir, `chain-${files++}.jsonl`)
  writeFileSync(file, text)
  return file
}

/** Blocks from height 1000 where senders 1 to 3 send in every block from sequence number 100: any cut falls between a sender's transactions, and digits never carry. */
function chainText(blocks: number): string {
  const chain = new ChainBuilder({ height: 1000, version: 10_000 })
  for (const s of [1, 2, 3]) chain.startSequence(s, 100)
  return `${chain
    .blocks(blocks, (i) => [{ sender: 1 }, { sender: 2 + (i % 2) }, ...(i % 5 === 0 ? [{ sender: 4, nonce: i }] : [])])
    .map((b) => JSON.stringify(b))
    .join('\n')}\n`
}

/** The file with `edit` applied to each line from `from` (1-based) on; edits keep each line's length, so the cuts stay where they were. */
function edited(text: string, from: number, edit: (line: string) => string): string {
  const lines = text.split('\n')
  return lines.map((l, i) => (i + 1 >= from && l.length > 0 ? edit(l) : l)).join('\n')
}

const forced = { threads: 2, threadsFromBytes: 0, runner: inProcess }

describe('MemoryStore.fromJsonLines on worker threads: the store and the errors of the load on the calling thread', () => {
  it('loads the sample chain in two ranges into a store that answers every read alike, and appends and prunes on alike', async () => {
    const senders = sendersOf(SAMPLE)
    const sequential = await MemoryStore.fromJsonLines(SAMPLE, { threads: 0 })
    const threaded = await loadMemoryStore(SAMPLE, { threads: 2, runner: inProcess })
    expect(observe(threaded, senders)).toEqual(observe(sequential, senders))
    expect(threaded.packedBytes).toBe(sequential.packedBytes)
    expect(sequential.ledgerInfo()?.block_height).toBe(2000)
    // The adopted store goes on as any: the next block, then a prune to the newest few.
    const info = sequential.ledgerInfo()
    const chain = new ChainBuilder({ height: 2001, version: Number(info?.ledger_version) + 1 })
    for (const a of senders.slice(0, 3)) chain.startSequence(a, sequential.accountSequenceNumber(a))
    const next = chain.block({ users: senders.slice(0, 3).map((sender) => ({ sender })) })
    for (const store of [sequential, threaded]) {
      store.appendBlock(next)
      store.pruneBelow(Number(store.ledgerInfo()?.ledger_version) - 40)
    }
    expect(observe(threaded, senders)).toEqual(observe(sequential, senders))
  })

  it('loads on two worker threads (the ranges posted, their buffers transferred) into the store of the sequential load', async () => {
    const file = write(chainText(60))
    const senders = [1, 2, 3, 4].map((n) => addr(n))
    const want = observe(await MemoryStore.fromJsonLines(file, { threads: 0 }), senders)
    expect(observe(await MemoryStore.fromJsonLines(file, { threads: 2, threadsFromBytes: 0 }), senders)).toEqual(want)
  })

  it('adopts ranges cut between each sender\'s transactions, whatever the number of ranges', async () => {
    const file = write(chainText(80))
    const senders = [1, 2, 3, 4].map((n) => addr(n))
    const want = observe(await MemoryStore.fromJsonLines(file, { threads: 0 }), senders)
    expect(want.accounts[0]?.[1]).toHaveLength(80)
    for (const threads of [3, 7]) expect(observe(await loadMemoryStore(file, { ...forced, threads }), senders)).toEqual(want)
  })

  it('gives the sequential error for a bad line in the first or the second half, and for rules broken only across the cut', async () => {
    const text = chainText(60)
    const cut = lineAtCut(text, 2, 1)
    expect(cut).toBeGreaterThan(20)
    const shiftHeight = (l: string) => l.replace(/"block_height":"(\d+)"/, (_, h: string) => `"block_height":"${Number(h) + 1}"`)
    const shiftSequence = (by: number) => (l: string) => l.replace(new RegExp(`("sender":"${addr(1)}","sequence_number":")(\\d+)"`), (_, k: string, s: string) => `${k}${Number(s) + by}"`)
    const cases = {
      'malformed JSON in the first half': edited(text, 5, (l) => (l.includes('"block_height":"1004"') ? l.replace('{', '[') : l)),
      'malformed JSON in the second half': edited(text, cut + 2, (l) => (l.includes(`"block_height":"${1000 + cut + 1}"`) ? l.slice(0, -1) : l)),
      // The second range alone is a valid chain: only the join breaks the rules.
      'a gap of heights at the cut': edited(text, cut, shiftHeight),
      'a sender\'s sequence numbers gap across the cut': edited(text, cut, shiftSequence(1)),
      'a sender\'s sequence numbers repeat across the cut': edited(text, cut, shiftSequence(-1)),
      'a gap of heights at the cut and a bad line after it': edited(edited(text, cut, shiftHeight), cut + 4, (l) => l.replace('"epoch":"1"', '"epoch":"x"')),
    }
    for (const [name, t] of Object.entries(cases)) {
      const file = write(t)
      const sequential = await outcome(file, { threads: 0 })
      expect('error' in sequential, name).toBe(true)
      expect(await outcome(file, forced), name).toEqual(sequential)
    }
    const seq = await outcome(write(cases["a sender's sequence numbers gap across the cut"]), { threads: 0 })
    expect(seq).toMatchObject({ error: { line: cut, field: 'transactions[1].sequence_number' } })
    expect(await outcome(write(cases['a gap of heights at the cut']), { threads: 0 })).toMatchObject({ error: { line: cut, field: 'block_height' } })
  })

  it('refuses a line over the limit at the same line, wherever it falls', async () => {
    const lines = chainText(30).split('\n')
    const maxLineBytes = Math.max(...lines.map((l) => l.length)) + 10
    lines[20] = `${lines[20]}${' '.repeat(2 * maxLineBytes)}`
    const file = write(lines.join('\n'))
    const sequential = await outcome(file, { threads: 0, maxLineBytes })
    expect(sequential).toMatchObject({ error: { line: 21, field: '(line)' } })
    for (const threads of [2, 5]) expect(await outcome(file, { ...forced, threads, maxLineBytes })).toEqual(sequential)
  })

  it('reads a byte order mark, CRLF, blank lines and a last line without a newline as the sequential load does', async () => {
    const text = `\uFEFF${chainText(40).replace(/\n/g, '\r\n').replace(/\r\n(?=\{"block_height":"1013")/, '\r\n\r\n\r\n')}`.trimEnd()
    const file = write(text)
    const senders = [1, 2, 3, 4].map((n) => addr(n))
    const want = observe(await MemoryStore.fromJsonLines(file, { threads: 0 }), senders)
    for (const threads of [2, 4]) expect(observe(await loadMemoryStore(file, { ...forced, threads }), senders)).toEqual(want)
  })

  it('loads standard input, a file under threadsFromBytes (by default 64 MiB), threads: 0 and by default (no threads given) any file on the calling thread; threads: 2 a larger one in 2 ranges', async () => {
    const jobs: LoadJob[] = []
    const counting: RangeRunner = (job) => {
      jobs.push(job)
      return inProcess(job)
    }
    const file = write(chainText(20))
    const stdin = Readable.from([readFileSync(file)])
    for (const [source, options] of [
      ['-', { stdin, threads: 2, threadsFromBytes: 0, runner: counting }],
      [file, { threads: 2, runner: counting }],
      [file, { threads: 0, threadsFromBytes: 0, runner: counting }],
      [file, { runner: counting }],
    ] as const) expect((await loadMemoryStore(source, options)).ledgerInfo()?.block_height).toBe(1019)
    expect(jobs).toEqual([])
    await loadMemoryStore(file, { threadsFromBytes: 0, runner: counting })
    expect(jobs).toEqual([])
    await loadMemoryStore(file, { threads: 2, threadsFromBytes: 0, runner: counting })
    expect(jobs.map((j) => j.start)).toEqual([0, expect.any(Number)])
  })
})
