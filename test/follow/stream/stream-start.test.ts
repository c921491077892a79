import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openLedger } from '../../../src/cli/open-store.js'
import { ingestFromStream } from '../../../src/follow/stream/ingest-stream.js'
import { startStream } from '../../../src/follow/stream/stream-start.js'
import { responseBytes, startStreamServer, type StreamServer } from '../../../src/follow/stream/stream-server.js'
import { responseChainId } from '../../../src/follow/stream/decode/response-chain-id.js'
import { WireFormatError } from '../../../src/follow/stream/decode/wire-reader.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { runCli } from '../../helpers/run-cli.js'
import { sampleChain } from './helpers/sample.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-stream-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})
let n = 0
const db = () => join(dir, `s${n++}.db`)

/**
 * A stream server behind a TCP proxy that counts the connections made to it, beside the
 * server's own count of calls: what the client opened to reach the stream.
 */
async function countedStream(count: number, chainId: number): Promise<{ url: string; server: StreamServer; blocks: BlockJson[]; connections: () => number }> {
  const { blocks, chain } = sampleChain(count)
  const server = await startStreamServer({ chain, chainId })
  const target = new URL(server.url)
  let connections = 0
  const proxy: Server = createServer((socket) => {
    connections++
    const upstream = createConnection(Number(target.port), target.hostname)
    socket.pipe(upstream).pipe(socket)
    socket.on('error', () => upstream.destroy())
    upstream.on('error', () => socket.destroy())
    socket.on('close', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const port = (proxy.address() as { port: number }).port
  closers.push(() => server.close())
  closers.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())))
  return { url: `http://127.0.0.1:${port}`, server, blocks, connections: () => connections }
}

async function ledgerTip(path: string): Promise<{ block_height: unknown; chain_id: unknown } | null> {
  const { store } = await openLedger(path, { readonly: true })
  try {
    return await store.ledgerInfo()
  } finally {
    await store.close()
  }
}

describe('responseChainId', () => {
  it('reads chain_id past the transactions, the last one when sent twice, and refuses a cut response', () => {
    const { chain } = sampleChain(3)
    const bytes = responseBytes(chain.transactions, 7)
    expect(responseChainId(bytes)).toBe('7')
    expect(responseChainId(Buffer.concat([bytes, Buffer.from([0x10, 0x02])]))).toBe('2')
    expect(responseChainId(responseBytes([], 1).subarray(0, 0))).toBeUndefined()
    expect(() => responseChainId(bytes.subarray(0, bytes.length - 3))).toThrow(WireFormatError)
  })
})

describe('ingest --from-stream reads the chain id from its own first call', () => {
  it('a new ledger: one connection and one call, the ledger created with the stream chain id', async () => {
    const s = await countedStream(30, 1)
    const path = db()
    const last = s.blocks[29] as BlockJson
    const r = await runCli(['ingest', '--db', path, '--from-stream', s.url, '--starting-version', '1', '--to-version', last.first_version])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect({ calls: s.server.stats.calls, connections: s.connections() }).toEqual({ calls: 1, connections: 1 })
    expect(await ledgerTip(path)).toMatchObject({ block_height: Number(last.block_height), chain_id: 1 })
  })

  it('a new ledger without --starting-version: one call, from the stream newest block', async () => {
    const s = await countedStream(12, 3)
    const path = db()
    const last = s.blocks.at(-1) as BlockJson
    const r = await runCli(['ingest', '--db', path, '--from-stream', s.url, '--to-version', last.last_version])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^ingest: 1 blocks/)
    expect({ calls: s.server.stats.calls, connections: s.connections() }).toEqual({ calls: 1, connections: 1 })
    expect(await ledgerTip(path)).toMatchObject({ block_height: Number(last.block_height), chain_id: 3 })
  })

  it('an existing ledger resumes with one call; one of another chain is refused with exit 2 and nothing written', async () => {
    const s = await countedStream(20, 1)
    const path = db()
    const last = s.blocks[19] as BlockJson
    const { store } = await openLedger(path, { readonly: false, chainId: 1 })
    await store.appendBlocks(s.blocks.slice(0, 10))
    await store.close()
    const resumed = await runCli(['ingest', '--db', path, '--from-stream', s.url, '--to-version', last.last_version])
    expect(resumed.code).toBe(0)
    expect(resumed.stdout).toMatch(/^ingest: 10 blocks/)
    expect({ calls: s.server.stats.calls, connections: s.connections() }).toEqual({ calls: 1, connections: 1 })

    // Another chain past the ledger's newest version, so its first response carries its chain id.
    const other = await countedStream(30, 4)
    const refused = await runCli(['ingest', '--db', path, '--from-stream', other.url])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/serves chain id 4, but .* holds chain id 1; nothing was written/)
    expect(refused.stderr).not.toMatch(/\n\s+at /)
    expect(await ledgerTip(path)).toMatchObject({ block_height: Number(last.block_height), chain_id: 1 })
  })

  it('a start that asks for another version than the ledger continues from is ended; the ingest calls again on the same connection', async () => {
    const s = await countedStream(20, 4)
    const path = db()
    const { store } = await openLedger(path, { readonly: false, chainId: 4 })
    try {
      await store.appendBlocks(s.blocks.slice(0, 5))
      const start = await startStream(s.url, { startingVersion: 1n })
      expect(start.chainId).toBe(4)
      const last = s.blocks[19] as BlockJson
      const summary = await ingestFromStream({ endpoint: s.url, store, start, toVersion: last.last_version })
      expect(summary).toMatchObject({ appended: 15, height: Number(last.block_height) })
      expect({ calls: s.server.stats.calls, connections: s.connections() }).toEqual({ calls: 2, connections: 1 })
    } finally {
      await store.close()
    }
  })

  it('a stream that cannot be reached stops the ingest naming the endpoint, before any ledger file is made', async () => {
    const cut = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve))
    closers.push(() => new Promise<void>((resolve) => cut.close(() => resolve())))
    const url = `http://127.0.0.1:${(cut.address() as { port: number }).port}`
    const path = db()
    const r = await runCli(['ingest', '--db', path, '--from-stream', url, '--to-version', '5'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(url)
    expect(existsSync(path)).toBe(false)
  })
})
