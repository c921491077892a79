import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ingestBlocksThreaded } from '../../src/ledger/threads/scan-threads.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-scan-threads-'))
let files = 0

function write(text: string | Buffer): string {
  const file = join(dir, `chain-${files++}.jsonl`)
  writeFileSync(file, text)
  return file
}

// The blocks, lines and errors of a threaded read against the sequential one are held equal in
// ingest-threads.prop.test.ts; here, the pool's own behaviour across jobs.
describe('the scan pool: one worker design, jobs told apart', () => {
  it('reads an empty file as no blocks', async () => {
    let count = 0
    for await (const _ of ingestBlocksThreaded(write(''), { threads: 2, maxTransactions: 100 })) count++
    expect(count).toBe(0)
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
    const first = ingestBlocksThreaded(failing, { threads: 2, chunkBytes, maxTransactions: 100 })
    expect((await first.next()).done).toBe(false)
    await first.return(undefined)
    let count = 0
    for await (const _ of ingestBlocksThreaded(next, { threads: 2, chunkBytes, maxTransactions: 100 })) count++
    expect(count).toBe(2200)
  })
})
