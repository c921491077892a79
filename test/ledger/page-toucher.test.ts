import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ByteArena } from '../../src/ledger/memory/byte-arena.js'
import { AHEAD_BYTES, PageToucher } from '../../src/ledger/memory/page-toucher.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { loadJsonLines } from '../../src/ledger/read/load.js'

const CHUNK = 1 << 20
const PAGE = 4096

/** A deterministic record of `n` bytes, none of them 0, so a page byte the worker cleared would show. */
function record(seed: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n)
  let x = seed * 2654435761 + 1
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    b[i] = 1 + (x >>> 24) % 255
  }
  return b
}

function put(arena: ByteArena, bytes: Buffer): number {
  const at = arena.reserve(bytes.length)
  bytes.copy(arena.chunk, arena.offset)
  arena.commit(arena.offset + bytes.length)
  return at
}

async function until(done: () => boolean): Promise<void> {
  // Bounded: a worker that never starts fails the test instead of hanging it.
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10))
}

describe('PageToucher', () => {
  it('hands the arena shared chunks it touches ahead of the writer, never more than AHEAD_BYTES ahead, and every byte written stays', async () => {
    const toucher = PageToucher.start(CHUNK)
    expect(toucher).toBeDefined()
    const arena = new ByteArena(CHUNK)
    arena.source = toucher
    const written: [number, Buffer][] = []
    written.push([put(arena, record(0, 3000)), record(0, 3000)])
    expect(arena.chunk.buffer).toBeInstanceOf(SharedArrayBuffer)
    // AHEAD_BYTES is more than the chunk taken and the spare after it: the worker touches both whole, and no further.
    await until(() => toucher!.touchedBytes >= 2 * CHUNK)
    expect(toucher!.touchedBytes).toBe(2 * CHUNK)
    let most = 0
    for (let i = 1; i < 3000; i++) {
      const r = record(i, 1 + (i * 7919) % 9000)
      written.push([put(arena, r), r])
      most = Math.max(most, toucher!.touchedBytes - toucher!.writtenBytes)
    }
    // Records of up to 9000 bytes over 3000 records: about 13 MiB, 13 chunks.
    expect(Math.floor(written.at(-1)![0] / CHUNK)).toBeGreaterThan(10)
    expect(most).toBeLessThanOrEqual(AHEAD_BYTES + PAGE)
    toucher!.stop()
    arena.source = undefined
    for (const [at, r] of written) {
      const start = at % CHUNK
      expect(arena.chunkOf(at).subarray(start, start + r.length).equals(r)).toBe(true)
    }
  })

  it('touches AHEAD_BYTES past the writer and no further within a chunk larger than that', async () => {
    const big = 16 << 20
    const toucher = PageToucher.start(big)!
    const arena = new ByteArena(big)
    arena.source = toucher
    put(arena, record(0, 100))
    await until(() => toucher.touchedBytes >= AHEAD_BYTES)
    expect(toucher.touchedBytes).toBe(AHEAD_BYTES)
    const r = record(1, 9000)
    for (let i = 1; i < 3000; i++) {
      put(arena, r)
      expect(toucher.touchedBytes - toucher.writtenBytes).toBeLessThanOrEqual(AHEAD_BYTES + PAGE)
    }
    await until(() => toucher.touchedBytes >= toucher.writtenBytes + AHEAD_BYTES)
    expect(toucher.touchedBytes).toBe(toucher.writtenBytes + AHEAD_BYTES)
    toucher.stop()
  })

  it('leaves a record longer than a chunk, and every chunk after stop, to the arena', () => {
    const toucher = PageToucher.start(CHUNK)!
    const arena = new ByteArena(CHUNK)
    arena.source = toucher
    put(arena, record(1, 100))
    expect(arena.chunk.buffer).toBeInstanceOf(SharedArrayBuffer)
    put(arena, record(2, CHUNK + 1))
    expect(arena.chunk.buffer).not.toBeInstanceOf(SharedArrayBuffer)
    put(arena, record(3, 100))
    expect(arena.chunk.buffer).toBeInstanceOf(SharedArrayBuffer)
    toucher.stop()
    put(arena, record(4, CHUNK - 50))
    expect(arena.chunk.buffer).not.toBeInstanceOf(SharedArrayBuffer)
  })

  describe('a memory store loading with a toucher', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-toucher-'))
    afterAll(() => rmSync(dir, { recursive: true, force: true }))

    it('holds the same transactions and pages as one loading without', async () => {
      const file = join(dir, 'chain.jsonl')
      writeFileSync(file, readFileSync('data/chain.jsonl', 'utf8').split('\n').slice(0, 250).join('\n') + '\n')
      const plain = await MemoryStore.fromJsonLines(file)
      // Chunks of the arena's own size: the toucher hands out only chunks of the size it was made for.
      const toucher = PageToucher.start(ByteArena.DEFAULT_CHUNK_BYTES)!
      const touched = new MemoryStore({ path: file })
      touched.useChunkSource(toucher)
      await loadJsonLines(file, touched)
      touched.useChunkSource(undefined)
      toucher.stop()
      const info = plain.ledgerInfo()!
      expect(touched.ledgerInfo()).toEqual(info)
      const senders = new Set<string>()
      for (let v = Number(info.oldest_ledger_version); v <= Number(info.ledger_version); v++) {
        const bytes = plain.transactionBytesByVersion(v)!
        expect(touched.transactionBytesByVersion(v)!.equals(bytes)).toBe(true)
        const sender = (JSON.parse(bytes.toString()) as { sender?: string }).sender
        if (sender !== undefined) senders.add(sender)
      }
      expect(senders.size).toBeGreaterThan(10)
      for (const sender of senders) {
        expect(Buffer.from(touched.accountTransactionsBytes(sender, 0, 100).body).equals(plain.accountTransactionsBytes(sender, 0, 100).body)).toBe(true)
      }
    })
  })
})
