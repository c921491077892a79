import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { DEFAULT_MAX_URL_LENGTH, DEFAULT_REQUEST_TIMEOUT_MS, MAX_HEADER_BYTES } from '../../src/api/plumbing/http-limits.js'
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/api/plumbing/store-guard.js'
import { InvalidBlockError } from '../../src/core/errors.js'
import { main } from '../../src/cli/main.js'
import { InvalidDataError } from '../../src/ledger/store/errors.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS, DEFAULT_MAX_LINE_BYTES } from '../../src/ledger/store/limits.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { expectError } from '../helpers/api-schemas.js'
import { storeOf } from '../helpers/api-server.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-limits-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const blocks = new ChainBuilder().blocks(4, () => [{ sender: 1 }])

/**
 * Writes `bytes` on a fresh connection and resolves with everything the server sends until the
 * connection closes, and who closed it: `server` when its end of the stream arrived first,
 * `client` when this side gave up after `giveUpAfterMs` (a safety net, never expected to fire).
 */
function exchange(port: number, bytes: string | Buffer, options: { giveUpAfterMs?: number } = {}): Promise<{ text: string; closedBy: 'server' | 'client' }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    let text = ''
    let closedBy: 'server' | 'client' | undefined
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')))
    socket.on('end', () => (closedBy ??= 'server'))
    socket.on('error', reject)
    const giveUp = options.giveUpAfterMs === undefined ? undefined : setTimeout(() => ((closedBy ??= 'client'), socket.destroy()), options.giveUpAfterMs)
    socket.on('close', () => {
      clearTimeout(giveUp)
      resolve({ text, closedBy: closedBy ?? 'server' })
    })
  })
}

/** Splits a raw HTTP/1.1 response into status, headers (lower-cased) and body, as `expectError` wants it. */
function parse(text: string) {
  const end = text.indexOf('\r\n\r\n')
  const [line, ...fields] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const f of fields) headers[f.slice(0, f.indexOf(':')).toLowerCase()] = f.slice(f.indexOf(':') + 1).trim()
  return { statusCode: Number(/^HTTP\/1\.1 (\d{3})/.exec(line as string)?.[1]), headers, body: Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') }
}

async function listening(options: object = {}): Promise<{ server: ReadApiServer; port: number }> {
  const server = await createServer({ store: storeOf(blocks), ...options })
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  return { server, port: Number(new URL(url).port) }
}

describe('HTTP limits', () => {
  it(`URL length: up to maxUrlLength (default ${DEFAULT_MAX_URL_LENGTH}) served, one more → 414 web_framework_error with the ledger headers, over a real socket`, async () => {
    const { server, port } = await listening()
    try {
      const at = (n: number) => `/v1/transactions/by_version/1?pad=${'x'.repeat(n - '/v1/transactions/by_version/1?pad='.length)}`
      const ok = parse((await exchange(port, `GET ${at(DEFAULT_MAX_URL_LENGTH)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)).text)
      expect(ok.statusCode).toBe(200)
      const over = parse((await exchange(port, `GET ${at(DEFAULT_MAX_URL_LENGTH + 1)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)).text)
      expect(expectError(over, 414, 'web_framework_error').message).toBe(`URI is ${DEFAULT_MAX_URL_LENGTH + 1} characters long, more than the limit of ${DEFAULT_MAX_URL_LENGTH}`)
      expect(over.headers['x-node-block-height']).toBe('3')
    } finally {
      await server.close()
    }
  })

  it(`request line + headers over ${MAX_HEADER_BYTES} bytes → 431 web_framework_error (the spec's error object, not Node's bare answer), connection closed`, async () => {
    const { server, port } = await listening()
    try {
      for (const request of [`GET /v1 HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`, `GET /v1/transactions/by_version/${'1'.repeat(MAX_HEADER_BYTES + 10)} HTTP/1.1\r\nhost: x\r\n\r\n`]) {
        const res = parse((await exchange(port, request)).text)
        expectError(res, 431, 'web_framework_error')
        expect(res.headers.connection).toBe('close')
      }
    } finally {
      await server.close()
    }
  })

  it(`a request not received within requestTimeoutMs (default ${DEFAULT_REQUEST_TIMEOUT_MS}) → 408 web_framework_error and the connection is closed; bytes that are not HTTP → 400`, async () => {
    const { server, port } = await listening({ requestTimeoutMs: 300 })
    try {
      // Slowloris: the headers never end. The server, not the client, ends it, after sending a 408.
      const slow = await exchange(port, 'GET /v1 HTTP/1.1\r\nhost: x\r\n', { giveUpAfterMs: 20_000 })
      expect(slow.closedBy).toBe('server')
      expectError(parse(slow.text), 408, 'web_framework_error')
      const garbage = parse((await exchange(port, 'NOT HTTP AT ALL\r\n\r\n')).text)
      expectError(garbage, 400, 'web_framework_error')
      expect(garbage.headers['x-request-id']).toBeDefined()
      // The server still serves.
      expect((await fetch(`http://127.0.0.1:${port}/v1`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it("Node's bare answers are the spec's error object: no Host → 400, an Expect other than 100-continue → 417, CONNECT → 405; each with x-request-id, connection closed", async () => {
    const { server, port } = await listening()
    try {
      const noHost = await exchange(port, 'GET /v1 HTTP/1.1\r\n\r\n')
      expect(noHost.closedBy).toBe('server')
      const a = parse(noHost.text)
      expect(expectError(a, 400, 'web_framework_error').message).toBe('an HTTP/1.1 request must have a Host header')
      expect(a.headers['x-request-id']).toBeDefined()
      expect(a.headers.connection).toBe('close')
      // HTTP/1.0 has no Host requirement.
      expect(parse((await exchange(port, 'GET /v1 HTTP/1.0\r\n\r\n')).text).statusCode).toBe(200)

      const expect417 = parse((await exchange(port, 'GET /v1 HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\n\r\n')).text)
      expect(expectError(expect417, 417, 'web_framework_error').message).toBe('Expect: "200-ok" is not supported; only 100-continue is')
      expect(expect417.headers['x-request-id']).toBeDefined()
      expect(expect417.headers['x-node-block-height']).toBe('3')

      const tunnel = await exchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\nx-request-id: tunnel-1\r\n\r\n')
      expect(tunnel.closedBy).toBe('server')
      const c = parse(tunnel.text)
      expect(expectError(c, 405, 'web_framework_error').message).toMatch(/^CONNECT is not supported/)
      expect(c.headers['x-request-id']).toBe('tunnel-1')
      expect((await fetch(`http://127.0.0.1:${port}/v1`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it(`store deadline: storeTimeoutMs defaults to ${DEFAULT_STORE_TIMEOUT_MS} ms and must be a positive integer`, async () => {
    expect(DEFAULT_STORE_TIMEOUT_MS).toBe(3000)
    await expect(createServer({ store: storeOf(blocks), storeTimeoutMs: -1 })).rejects.toThrow(/storeTimeoutMs/)
  })

  it('page size: limit above maxPageSize (default 100) is clamped, 0 is 400 invalid_input, above u16 is 400 web_framework_error', async () => {
    const many = new ChainBuilder().blocks(130, () => [{ sender: 1 }])
    const server = await createServer({ store: storeOf(many) })
    const page = async (q: string) => server.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions${q}` })
    expect((await page('?start=0&limit=1000')).json()).toHaveLength(100)
    expect((await page('?start=0&limit=65535')).json()).toHaveLength(100)
    expect((await page('?start=0')).json()).toHaveLength(25)
    expectError(await page('?limit=0'), 400, 'invalid_input')
    expectError(await page('?limit=65536'), 400, 'web_framework_error')
    const small = await createServer({ store: storeOf(many), maxPageSize: 10, defaultPageSize: 5 })
    expect((await small.fastify.inject({ method: 'GET', url: `/v1/accounts/${addr(1)}/transactions?start=0&limit=11` })).json()).toHaveLength(10)
  })
})

describe('ingest limits', () => {
  const builder = () => new ChainBuilder({ height: 10, version: 100 })
  /** A chain whose block 12 carries 7 transactions (5 users), the others 3. */
  const chainWithBigBlock = () => {
    const c = builder()
    return [c.block({ users: [{ sender: 1 }] }), c.block({ users: [{ sender: 1 }] }), c.block({ users: [1, 2, 3, 4, 5].map((s) => ({ sender: s })) }), c.block({ users: [{ sender: 1 }] })]
  }

  it(`transactions per block (default ${DEFAULT_MAX_BLOCK_TRANSACTIONS}): both stores refuse a larger block naming the block and field, and keep the ledger as it was`, () => {
    for (const make of [(o: { maxBlockTransactions?: number }) => new MemoryStore(o), (o: { maxBlockTransactions?: number }) => SqliteStore.open(join(dir, `txns-${Math.random()}.db`), o)]) {
      const store: LedgerStore & { close(): unknown } = make({ maxBlockTransactions: 6 })
      const [a, b, big] = chainWithBigBlock() as [BlockJson, BlockJson, BlockJson]
      store.appendBlock(a)
      store.appendBlock(b)
      const before = JSON.stringify(store.ledgerInfo())
      let error: unknown
      try {
        store.appendBlock(big)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(InvalidBlockError)
      expect((error as InvalidBlockError).field).toBe('transactions')
      expect((error as Error).message).toBe('block 12: transactions: has 7 transactions, more than the limit of 6 per block (max block transactions)')
      expect(JSON.stringify(store.ledgerInfo())).toBe(before)
      store.close()
      // The default, checked before any transaction is read (so a huge block costs nothing to refuse).
      const fresh = make({})
      expect(() => fresh.appendBlock({ ...a, transactions: Array(DEFAULT_MAX_BLOCK_TRANSACTIONS + 1).fill({}) })).toThrow(`has ${DEFAULT_MAX_BLOCK_TRANSACTIONS + 1} transactions, more than the limit of ${DEFAULT_MAX_BLOCK_TRANSACTIONS}`)
      fresh.close()
    }
    expect(() => new MemoryStore({ maxBlockTransactions: 0 })).toThrow(/maxBlockTransactions/)
  })

  async function ingest(args: string[], stdin: Readable = Readable.from([])) {
    let out = ''
    let err = ''
    const io = {
      stdin,
      stdout: new Writable({ write: (c, _e, cb) => ((out += String(c)), cb()) }),
      stderr: new Writable({ write: (c, _e, cb) => ((err += String(c)), cb()) }),
      signal: new AbortController().signal,
    }
    return { code: await main(['ingest', ...args], io), out, err }
  }

  it('ingest --max-block-txns: a larger block stops the ingest with file:line: transactions, exit 1; the blocks before it are committed', async () => {
    const input = join(dir, 'big-block.jsonl')
    writeFileSync(input, chainWithBigBlock().map((b) => JSON.stringify(b)).join('\n') + '\n')
    const db = join(dir, 'big-block.db')
    const r = await ingest(['--db', db, '--input', input, '--max-block-txns', '6'])
    expect(r.code).toBe(1)
    expect(r.err).toBe(`ledger-gas ingest: ${input}:3: transactions: block 12: has 7 transactions, more than the limit of 6 per block (max block transactions)\n`)
    const store = SqliteStore.open(db, { mustExist: true })
    expect(store.ledgerInfo()?.block_height).toBe(11)
    store.close()
    expect((await ingest(['--db', db, '--input', input])).code).toBe(0)
  })

  it(`ingest --max-line-bytes (default ${DEFAULT_MAX_LINE_BYTES}): a longer line stops the ingest with file:line: (line); a line without end on stdin is refused once past the limit, not buffered`, async () => {
    const lines = chainWithBigBlock().map((b) => JSON.stringify(b))
    const input = join(dir, 'long-line.jsonl')
    writeFileSync(input, lines.join('\n') + '\n')
    const limit = Math.max(Buffer.byteLength(lines[0] as string), Buffer.byteLength(lines[1] as string)) + 10
    expect(Buffer.byteLength(lines[2] as string)).toBeGreaterThan(limit)
    const db = join(dir, 'long-line.db')
    const r = await ingest(['--db', db, '--input', input, '--max-line-bytes', String(limit)])
    expect(r.code).toBe(1)
    expect(r.err).toBe(`ledger-gas ingest: ${input}:3: (line): longer than the limit of ${limit} bytes per line (max line bytes); one block must fit in one line\n`)
    const store = SqliteStore.open(db, { mustExist: true })
    expect(store.ledgerInfo()?.block_height).toBe(11)
    store.close()

    // An endless line: without the limit this would buffer until the heap gives out.
    let sent = 0
    const endless = new Readable({
      read() {
        sent += 65536
        this.push(Buffer.alloc(65536, 0x61))
      },
    })
    const s = await ingest(['--db', join(dir, 'endless.db'), '--input', '-', '--max-line-bytes', String(1 << 20)], endless)
    expect(s.err).toBe(`ledger-gas ingest: <stdin>:1: (line): longer than the limit of ${1 << 20} bytes per line (max line bytes); one block must fit in one line\n`)
    expect(sent).toBeLessThan(8 << 20)
  })

  it('the JSON Lines loader (serve --data) applies the line limit too', async () => {
    const input = join(dir, 'load.jsonl')
    writeFileSync(input, chainWithBigBlock().map((b) => JSON.stringify(b)).join('\n') + '\n')
    const error = await MemoryStore.fromJsonLines(input, { maxLineBytes: 100 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidDataError)
    expect((error as InvalidDataError).line).toBe(1)
    expect((error as InvalidDataError).field).toBe('(line)')
    expect((await MemoryStore.fromJsonLines(input)).ledgerInfo()?.block_height).toBe(13)
  })
})
