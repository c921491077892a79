import * as grpc from '@grpc/grpc-js'
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

/** The ledger's newest block and version, `null` while it has none or the file is not there yet. */
async function tipOf(db: string): Promise<{ block_height: number; ledger_version: string } | null> {
  try {
    const { store } = await openLedger(db, { readonly: true })
    try {
      const info = await store.ledgerInfo()
      return info === null ? null : { block_height: Number(info.block_height), ledger_version: String(info.ledger_version) }
    } finally {
      await store.close()
    }
  } catch {
    return null
  }
}

it('an ingest SIGKILLed mid-stream resumes to the same ledger as an uninterrupted one', async () => {
  const { blocks, chain } = sampleChain(400)
  const last = blocks.at(-1) as BlockJson
  let kill = () => {}
  let killed = false
  // The ingest's first call (which also gives the new ledger its chain id) gets 20 of some 32 responses, the last one
  // ending inside a block, and then the stream ends; every later call is refused as
  // UNAVAILABLE, so the ingest commits what it has and retries, with a block left open, until
  // it is killed. (With HTTP/2's window of several responses, a kill timed on the server's
  // sends would not tell how far the writer got.)
  const cut = 20 * 40
  const server = await startStreamServer({
    chain,
    chainId: 4,
    maxBatchSize: 40,
    fault: ({ call, response }) => {
      if (killed) return undefined
      if (call === 0) return response === 20 ? { kind: 'end' } : undefined
      return { kind: 'fail', status: grpc.status.UNAVAILABLE, details: 'held back until the kill' }
    },
  })
  const whole = blocks.filter((b) => BigInt(b.last_version) <= BigInt(chain.firstVersion) + BigInt(cut) - 1n).at(-1) as BlockJson
  expect(BigInt(whole.last_version)).toBeLessThan(BigInt(chain.firstVersion) + BigInt(cut) - 1n)
  try {
    const db = join(dir, 'crash.db')
    let exited: Awaited<ReturnType<typeof ingest>> | undefined
    const first = ingest(db, server.url, last.first_version, (k) => (kill = k)).then((r) => (exited = r))
    // Wait for the blocks of those 20 responses to be committed, then kill the child.
    for (;;) {
      const tip = await tipOf(db)
      if (tip !== null && tip.ledger_version === String(whole.last_version)) break
      if (exited !== undefined) expect({ exitedBeforeTheKill: exited, tip }).toEqual({ tip: { ledger_version: String(whole.last_version) } })
      await new Promise((r) => setTimeout(r, 20))
    }
    killed = true
    kill()
    expect((await first).signal).toBe('SIGKILL')
    const { store: mid } = await openLedger(db, { readonly: true })
    const atKill = await mid.ledgerInfo()
    await mid.close()
    expect(atKill?.block_height).toBe(Number(whole.block_height))
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
