import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli/main.js'
import { openLedger } from '../../../src/cli/open-store.js'
import { startStreamServer, type StreamServer } from '../../../src/follow/stream/stream-server.js'
import type { BlockJson } from '../../../src/ledger/store/types.js'
import { runCli } from '../../helpers/run-cli.js'
import { sampleChain } from './helpers/sample.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-stream-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const servers: StreamServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
  delete process.env.LEDGER_GAS_STREAM_API_KEY
})
let n = 0
const db = () => join(dir, `c${n++}.db`)

async function serve(count: number, chainId = 4, apiKey?: string): Promise<{ server: StreamServer; blocks: BlockJson[] }> {
  const { blocks, chain } = sampleChain(count)
  const server = await startStreamServer({ chain, chainId, apiKey })
  servers.push(server)
  return { server, blocks }
}

async function tip(path: string): Promise<{ block_height: unknown; chain_id: unknown } | null> {
  const { store } = await openLedger(path, { readonly: true })
  try {
    return await store.ledgerInfo()
  } finally {
    await store.close()
  }
}

describe('ledger-gas ingest --from-stream', () => {
  it('appends up to the block holding --to-version; a new ledger takes the stream chain id', async () => {
    const { server, blocks } = await serve(30, 1)
    const path = db()
    const last = blocks[29] as BlockJson
    const r = await runCli(['ingest', '--db', path, '--from-stream', server.url, '--starting-version', '1', '--to-version', last.first_version])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^ingest: 30 blocks \\(\\d+ transactions\\) appended from ${server.url} to .*; block height ${last.block_height}, ledger version ${last.last_version}; `))
    expect(await tip(path)).toMatchObject({ block_height: Number(last.block_height), chain_id: 1 })
    // Run again: it resumes after the newest block and, at --to-version already, appends nothing.
    const again = await runCli(['ingest', '--db', path, '--from-stream', server.url, '--to-version', last.first_version])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/^ingest: 0 blocks/)
  })

  it('a ledger of another chain is refused with exit 2 before anything is written', async () => {
    const { server } = await serve(5, 1)
    const path = db()
    const made = await runCli(['ingest', '--db', path, '--from-stream', server.url, '--starting-version', '1', '--to-version', '1', '--chain-id', '4'])
    expect(made.code).toBe(2)
    expect(made.stderr).toMatch(/serves chain id 1, but .* holds chain id 4; nothing was written/)
    expect(await tip(path)).toBeNull()
    const existing = await runCli(['ingest', '--db', path, '--from-stream', server.url, '--starting-version', '1', '--to-version', '1'])
    expect(existing.code).toBe(2)
    // An existing ledger keeps its chain id; the stream's first response is checked against it.
    expect(existing.stderr).toMatch(/serves chain id 1, but .* holds chain id 4; nothing was written/)
    expect(await tip(path)).toBeNull()
    expect(existing.stderr).not.toMatch(/\n\s+at /)
  })

  it('a refused key (from LEDGER_GAS_STREAM_API_KEY) stops with exit 1 naming the endpoint, never the key', async () => {
    const { server } = await serve(5, 4, 'right')
    process.env.LEDGER_GAS_STREAM_API_KEY = 'sk-expired-0123'
    const r = await runCli(['ingest', '--db', db(), '--from-stream', server.url, '--to-version', '3'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(server.url)
    expect(r.stderr).toMatch(/API key was refused \(UNAUTHENTICATED\)/)
    expect(r.stderr).not.toContain('sk-expired-0123')
    const ok = await runCli(['ingest', '--db', db(), '--from-stream', server.url, '--stream-api-key', 'right', '--starting-version', '1', '--to-version', '3'])
    expect(ok.code).toBe(0)
  })

  it('refuses a bad endpoint, a bad version and flags of other sources with exit 2', async () => {
    expect((await runCli(['ingest', '--db', db(), '--from-stream', 'grpc.example:443'])).code).toBe(2)
    expect((await runCli(['ingest', '--db', db(), '--from-stream', 'http://127.0.0.1:9', '--to-version', 'x'])).stderr).toMatch(/--to-version must be a u64 version, got 'x'/)
    expect((await runCli(['ingest', '--db', db(), '--from-stream', 'http://127.0.0.1:9', '--input', 'data/chain.jsonl'])).stderr).toMatch(/--input does not apply to --from-stream/)
    expect((await runCli(['ingest', '--db', db(), '--input', 'data/chain.jsonl', '--to-version', '5'])).stderr).toMatch(/--to-version applies only to --from-stream/)
  })

  it('without --to-version follows the stream until stopped, keeping every block it committed', async () => {
    const { server, blocks } = await serve(20)
    const path = db()
    const controller = new AbortController()
    let stdout = ''
    const out = new PassThrough()
    out.on('data', (d) => (stdout += d))
    const err = new PassThrough()
    const lines: string[] = []
    err.on('data', (d: Buffer) => {
      lines.push(String(d))
      // Following: a line per commit; stop once the last block is in.
      if (String(d).includes(`block ${(blocks.at(-1) as BlockJson).block_height},`)) controller.abort()
    })
    const code = await main(['ingest', '--db', path, '--from-stream', server.url, '--starting-version', '1'], { stdin: Readable.from(['']), stdout: out, stderr: err, signal: controller.signal })
    expect(code).toBe(0)
    expect(lines.join('')).toMatch(/versions\/s, \d+ blocks\/s, [\d.]+ h behind the chain/)
    expect(stdout).toMatch(/^ingest: 20 blocks/)
    expect((await tip(path))?.block_height).toBe(Number((blocks.at(-1) as BlockJson).block_height))
  })
})

/** `main(args)` as a server, and the base URL it reports listening on. */
function serveCli(args: string[], signal: AbortSignal): { run: Promise<number>; listening: Promise<string> } {
  let stderr = ''
  const err = new PassThrough()
  const out = new PassThrough()
  out.resume()
  const listening = new Promise<string>((resolve) =>
    err.on('data', (d: Buffer) => {
      stderr += String(d)
      const m = /listening on (http:\/\/\S+)\/v1/.exec(stderr)
      if (m !== null) resolve(m[1] as string)
    }),
  )
  return { run: main(args, { stdin: Readable.from(['']), stdout: out, stderr: err, signal }), listening }
}

/** The server's `/v1`, asked until its `block_height` is `want` (the stream's newest block) or 2000 tries pass. */
async function servedTip(base: string, want: string): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {}
  for (let i = 0; i < 2000 && body.block_height !== want; i++) {
    body = (await (await fetch(`${base}/v1`)).json()) as Record<string, unknown>
    if (body.block_height !== want) await new Promise((r) => setTimeout(r, 10))
  }
  return body
}

describe('ledger-gas serve --follow-stream', () => {
  it('refuses --follow beside it', async () => {
    expect((await runCli(['serve', '--follow-stream', 'http://127.0.0.1:9', '--follow', 'http://127.0.0.1:9/v1', '--db', db()])).code).toBe(2)
  })

  it('serves the blocks it appends from the stream', async () => {
    const { server, blocks } = await serve(10)
    const path = db()
    // The ledger starts at block 1, so the stream continues it from there.
    const { store } = await openLedger(path, { readonly: false, chainId: 4 })
    await store.appendBlocks(blocks.slice(0, 1))
    await store.close()
    const controller = new AbortController()
    let stderr = ''
    const err = new PassThrough()
    const out = new PassThrough()
    out.resume()
    const listening = new Promise<string>((resolve) =>
      err.on('data', (d: Buffer) => {
        stderr += String(d)
        const m = /listening on (http:\/\/\S+)\/v1/.exec(stderr)
        if (m !== null) resolve(m[1] as string)
      }),
    )
    const run = main(['serve', '--db', path, '--follow-stream', server.url, '--port', '0', '--log-level', 'silent'], { stdin: Readable.from(['']), stdout: out, stderr: err, signal: controller.signal })
    const base = await listening
    const want = (blocks.at(-1) as BlockJson).block_height
    expect((await servedTip(base, want)).block_height).toBe(want)
    controller.abort()
    expect(await run).toBe(0)
  })

  it('without --db follows into memory (--data or empty) under the chain id the stream serves', async () => {
    const { server, blocks } = await serve(10, 7)
    const data = join(dir, 'first.jsonl')
    writeFileSync(data, `${blocks.slice(0, 2).map((b) => JSON.stringify(b)).join('\n')}\n`)
    const want = (blocks.at(-1) as BlockJson).block_height
    for (const extra of [['--data', data], []]) {
      const controller = new AbortController()
      const { run, listening } = serveCli(['serve', ...extra, '--follow-stream', server.url, '--port', '0', '--log-level', 'silent'], controller.signal)
      const base = await listening
      const info = await servedTip(base, want)
      expect(info).toMatchObject({ block_height: want, chain_id: 7 })
      // From --data the ledger keeps its first blocks; empty, it starts at the stream's newest block.
      expect(info.oldest_block_height).toBe(extra.length > 0 ? String(blocks[0]?.block_height) : want)
      controller.abort()
      expect(await run).toBe(0)
    }
  })
})
