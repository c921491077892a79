import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { startStreamServer } from '../../../src/follow/stream/stream-server.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { readApiAnswers, ROOT, sampleChain } from './helpers/sample.js'

/*
 * The real CLI in a child process, SIGKILLed while the stream is mid-flight, then run again:
 * the ledger ends as one filled without interruption. Seconds of child processes: in
 * INTEGRATION_TESTS.
 */
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-stream-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function ingest(db: string, url: string, to: string, onSpawn: (kill: () => void) => void = () => {}): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest', '--db', db, '--from-stream', url, '--starting-version', '1', '--to-version', to, '--batch', '7'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  onSpawn(() => child.kill('SIGKILL'))
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })))
}

it('an ingest SIGKILLed mid-stream resumes to the same ledger as an uninterrupted one', async () => {
  const { blocks, chain } = sampleChain(400)
  const last = blocks.at(-1) as BlockJson
  let kill = () => {}
  let killed = 0
  // Kill the child when ingest call (after the chain-id probe) asks for its 21st of some 32 responses: blocks are committed (7 per
  // commit) and more are in flight.
  const server = await startStreamServer({
    chain,
    chainId: 4,
    maxBatchSize: 40,
    fault: ({ call, response }) => {
      if (call === 1 && response === 20) {
        killed++
        kill()
      }
      return undefined
    },
  })
  try {
    const db = join(dir, 'crash.db')
    const first = await ingest(db, server.url, last.first_version, (k) => (kill = k))
    expect(first.signal).toBe('SIGKILL')
    expect(killed).toBe(1)
    const { store: mid } = await openLedger(db, { readonly: true })
    const atKill = await mid.ledgerInfo()
    await mid.close()
    expect(atKill).not.toBeNull()
    expect(BigInt(atKill?.block_height ?? 0) < BigInt(last.block_height)).toBe(true)
    const second = await ingest(db, server.url, last.first_version)
    expect(second).toMatchObject({ code: 0, signal: null })

    const { store: reference } = await openLedger(join(dir, 'reference.db'), { readonly: false, chainId: 4 })
    await reference.appendBlocks(blocks)
    const { store: resumed } = await openLedger(db, { readonly: true })
    try {
      const want = await readApiAnswers(reference, blocks)
      const got = await readApiAnswers(resumed, blocks)
      expect(got.size).toBe(want.size)
      for (const [url, body] of want) if (got.get(url) !== body) expect({ url, body: got.get(url) }).toEqual({ url, body })
    } finally {
      await reference.close()
      await resumed.close()
    }
  } finally {
    await server.close()
  }
}, 120_000)
