import { describe, expect, it } from 'vitest'
import { ByteArena } from '../../src/ledger/memory/byte-arena.js'

function put(arena: ByteArena, bytes: Buffer): number {
  const at = arena.reserve(bytes.length)
  bytes.copy(arena.chunk, arena.offset)
  arena.commit(arena.offset + bytes.length)
  return at
}

function read(arena: ByteArena, at: number, n: number): string {
  const start = at % arena.chunkBytes
  return arena.chunkOf(at).toString('latin1', start, start + n)
}

describe('ByteArena', () => {
  it('keeps records whole within a chunk, gives a record longer than a chunk a chunk of its own, and releases chunks before the oldest record kept', () => {
    const arena = new ByteArena(16)
    const records = ['aaaaaaaaaa', 'bbbbbbbbbb', 'c'.repeat(40), 'dddd', 'eeeeeeeeeeee']
    const at = records.map((r) => put(arena, Buffer.from(r, 'latin1')))
    records.forEach((r, i) => expect(read(arena, at[i] as number, r.length)).toBe(r))
    expect(arena.retainedBytes).toBe(records.join('').length)
    arena.releaseBefore(at[3] as number)
    expect(arena.retainedBytes).toBe(records[3]!.length + records[4]!.length)
    expect(read(arena, at[4] as number, 12)).toBe(records[4])
    expect(arena.chunkOf(at[0] as number)).toBeUndefined()
  })
})
