import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as netServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createServer } from '../../src/api/index.js'
import { envName } from '../../src/cli/args.js'
import { FLAGS, run } from '../../src/cli/commands/serve.js'
import { UsageError } from '../../src/cli/errors.js'
import type { CliIo } from '../../src/cli/io.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { runCli } from '../helpers/run-cli.js'
import { storeOf } from '../helpers/api-server.js'
import { startServer } from '../helpers/follow-server.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-serve-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const blocks = new ChainBuilder().blocks(8, (i) => [{ sender: 1 }, { sender: 2 + (i % 2) }])
const dataFile = join(dir, 'chain.jsonl')
writeFileSync(dataFile, blocks.map((b) => JSON.stringify(b)).join('\n') + '\n')

function io() {
  const controller = new AbortController()
  const stderr = new PassThrough()
  const stdout = new PassThrough()
  let err = ''
  let out = ''
  stderr.on('data', (c: Buffer) => (err += c.toString()))
  stdout.on('data', (c: Buffer) => (out += c.toString()))
  const cli: CliIo = { stdin: new PassThrough(), stdout, stderr, signal: controller.signal }
  return { cli, controller, stderr, err: () => err, out: () => out }
}

/** Starts `serve` with `args`, waits for its URL on stderr, returns it with a stop function. */
async function start(args: string[]) {
  const t = io()
  const exit = run(args, t.cli)
  // Checked on each chunk written to stderr (after io()'s own listener has kept it), until serve exits.
  const url = await new Promise<string>((resolve, reject) => {
    const found = () => /listening on (http:\/\/\S+)/.exec(t.err())?.[1]
    const onData = () => {
      const u = found()
      if (u !== undefined) {
        t.stderr.off('data', onData)
        resolve(u)
      }
    }
    t.stderr.on('data', onData)
    onData()
    void exit.then(() => {
      const u = found()
      if (u === undefined) reject(new Error(`serve did not start: ${t.err()}`))
      else resolve(u)
    })
  })
  return {
    url,
    err: t.err,
    out: t.out,
    stop: async () => {
      t.controller.abort()
      return exit
    },
  }
}

describe('ledger-gas serve', () => {
  it('serves a chain file on 127.0.0.1, prints the URL on stderr, and stops on abort with exit 0', async () => {
    const s = await start(['--data', dataFile, '--port', '0'])
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(s.err()).toContain('blocks 0..7')
    const res = await fetch(`${s.url}/transactions/by_version/1`)
    expect(res.status).toBe(200)
    expect(res.headers.get('x-node-block-height')).toBe('7')
    expect((await fetch(`${s.url}/estimate_gas_price`)).status).toBe(200)
    expect(await s.stop()).toBe(0)
    await expect(fetch(`${s.url}/estimate_gas_price`)).rejects.toThrow()
  })

  it('serves a SQLite ledger with --db and honours --header-prefix and --config', async () => {
    const db = join(dir, 'ledger.db')
    const store = SqliteStore.open(db)
    for (const b of blocks) store.appendBlock(b)
    store.close()
    const config = join(dir, 'config.json')
    writeFileSync(config, JSON.stringify({ static_override: { low: 1, market: 2, aggressive: '18446744073709551615' } }))
    const s = await start(['--db', db, '--port', '0', '--header-prefix', 'X-APTOS-', '--config', config])
    const res = await fetch(`${s.url}/estimate_gas_price`)
    expect(await res.text()).toBe('{"deprioritized_gas_estimate":1,"gas_estimate":2,"prioritized_gas_estimate":18446744073709551615}')
    expect(res.headers.get('x-aptos-ledger-version')).toBe(blocks[7]?.last_version)
    expect(((await (await fetch(`${s.url}/accounts/0x1/transactions`)).json()) as unknown[]).length).toBe(8)
    expect(await s.stop()).toBe(0)
  })

  it('serves the bundled data/chain.jsonl by default, wherever the cwd is', async () => {
    const cwd = process.cwd()
    try {
      process.chdir(dir) // not allowed in a worker thread pool; the check still runs from the repo
    } catch {}
    try {
      const s = await start(['--port', '0'])
      expect(s.err()).toMatch(/data\/chain\.jsonl/)
      const body = (await (await fetch(s.url)).json()) as { block_height: string }
      expect(Number(body.block_height)).toBeGreaterThan(0)
      expect(await s.stop()).toBe(0)
    } finally {
      process.chdir(cwd)
    }
  })

  it('applies --max-url-length, --store-timeout and --request-timeout', async () => {
    const s = await start(['--data', dataFile, '--port', '0', '--max-url-length', '100', '--store-timeout', '500', '--request-timeout', '2000'])
    const long = await fetch(`${s.url}/transactions/by_version/1?${'x'.repeat(100)}`)
    expect(long.status).toBe(414)
    expect(((await long.json()) as { error_code: string }).error_code).toBe('web_framework_error')
    expect((await fetch(`${s.url}/transactions/by_version/1?x=1`)).status).toBe(200)
    expect(await s.stop()).toBe(0)
  })

  it('--stale-after sets the live page\'s stale threshold (default 30 s), from the flag or LEDGER_GAS_STALE_AFTER', async () => {
    const threshold = async (url: string) => {
      const html = await (await fetch(url.replace(/\/v1$/, '/'))).text()
      return [/data-stale-after-secs="([^"]*)"/.exec(html)?.[1], /id="stale-threshold">([^<]*)</.exec(html)?.[1]]
    }
    const set = await start(['--data', dataFile, '--port', '0', '--stale-after', '120'])
    expect(await threshold(set.url)).toEqual(['120', '120'])
    expect(await set.stop()).toBe(0)
    process.env.LEDGER_GAS_STALE_AFTER = '45'
    try {
      const env = await start(['--data', dataFile, '--port', '0'])
      expect(await threshold(env.url)).toEqual(['45', '45'])
      expect(await env.stop()).toBe(0)
      process.env.LEDGER_GAS_STALE_AFTER = '0'
      await expect(run(['--data', dataFile, '--port', '0'], io().cli)).rejects.toThrow('LEDGER_GAS_STALE_AFTER must be between 1 and')
    } finally {
      delete process.env.LEDGER_GAS_STALE_AFTER
    }
    const plain = await start(['--data', dataFile, '--port', '0'])
    expect(await threshold(plain.url)).toEqual(['30', '30'])
    expect(await plain.stop()).toBe(0)
  })

  it('--estimator calibrated serves the calibrated prices at /v1/estimate_gas_price, with --calibrated-config’s promises', async () => {
    const file = join(dir, 'calibrated.json')
    writeFileSync(file, JSON.stringify({ regular: { k: 2, q: 0.8 }, window: 20 }))
    const s = await start(['--data', dataFile, '--port', '0', '--estimator', 'calibrated', '--calibrated-config', file])
    expect(s.err()).toContain('calibrated estimate')
    const estimate = (await (await fetch(`${s.url}/estimate_gas_price`)).json()) as Record<string, number>
    const tiers = (await (await fetch(`${s.url}/gas/estimate`)).json()) as Record<string, { price: number; promise: unknown }>
    expect(estimate).toEqual({ deprioritized_gas_estimate: tiers.deprioritized?.price, gas_estimate: tiers.regular?.price, prioritized_gas_estimate: tiers.prioritized?.price })
    expect(tiers.regular?.promise).toEqual({ k: 2, q: 0.8 })
    // No block is full: every calibrated tier is the floor, where the Aptos one bucketed its prioritized tier to 150.
    expect(estimate.prioritized_gas_estimate).toBe(100)
    const explain = (await (await fetch(`${s.url}/gas/explain`)).json()) as { calibrated: { window: number } }
    expect(explain.calibrated.window).toBe(20)
    expect(await s.stop()).toBe(0)
    const aptos = await start(['--data', dataFile, '--port', '0', '--estimator', 'aptos', '--calibrated-config', file])
    expect(aptos.err()).toContain('aptos estimate')
    expect(await (await fetch(`${aptos.url}/estimate_gas_price`)).text()).toBe('{"deprioritized_gas_estimate":100,"gas_estimate":100,"prioritized_gas_estimate":150}')
    expect(await aptos.stop()).toBe(0)
  })

  it('exits 2 with a message for a bad --estimator or --calibrated-config', async () => {
    const bad = join(dir, 'bad-calibrated.json')
    writeFileSync(bad, JSON.stringify({ regular: { k: 3, q: 1.5 } }))
    const unknown = join(dir, 'unknown-calibrated.json')
    writeFileSync(unknown, JSON.stringify({ promises: [] }))
    const broken = join(dir, 'broken-calibrated.json')
    writeFileSync(broken, '{"window": ')
    const cases: [string[], string][] = [
      [['--estimator', 'geth'], "ledger-gas serve: --estimator must be one of aptos, calibrated, got 'geth'\n"],
      [['--estimator'], "Option '--estimator <value>' argument missing"],
      [['--calibrated-config', bad], `config regular.q: must be a probability strictly between 0 and 1, got 1.5 (in ${bad})`],
      [['--calibrated-config', unknown], `config promises: unknown key (in ${unknown})`],
      [['--calibrated-config', broken], `calibrated config file ${broken} is not valid JSON`],
      [['--calibrated-config', join(dir, 'missing.json')], `cannot read calibrated config file ${join(dir, 'missing.json')}: ENOENT`],
    ]
    for (const [args, message] of cases) {
      const r = await runCli(['serve', '--data', dataFile, '--port', '0', ...args])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr).toContain(message)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('every flag can come from LEDGER_GAS_<FLAG>; the command line wins; --log-level sets the JSON request logs on stdout', async () => {
    const saved = { ...process.env }
    try {
      process.env.LEDGER_GAS_HEADER_PREFIX = 'X-APTOS-'
      process.env.LEDGER_GAS_LOG_LEVEL = 'warn'
      process.env.LEDGER_GAS_DATA = dataFile
      process.env.LEDGER_GAS_PORT = '0'
      const quiet = await start([])
      const res = await fetch(`${quiet.url}/blocks/by_height/1`)
      expect(res.headers.get('x-aptos-block-height')).toBe('7')
      expect(await quiet.stop()).toBe(0)
      expect(quiet.out()).not.toContain('incoming request')

      const loud = await start(['--log-level', 'info'])
      await fetch(`${loud.url}/blocks/by_height/1`, { headers: { 'x-request-id': 'serve-log-1' } })
      expect(await loud.stop()).toBe(0)
      const lines = loud
        .out()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string; reqId?: string })
      expect(lines.filter((l) => l.reqId === 'serve-log-1').map((l) => l.msg)).toEqual(['incoming request', 'request completed'])

      process.env.LEDGER_GAS_PORT = 'http'
      const bad = io()
      const error = await run([], bad.cli).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UsageError)
      expect((error as Error).message).toBe("LEDGER_GAS_PORT must be an integer, got 'http'")
    } finally {
      process.env = saved
    }
  })

  it('--stream off (or LEDGER_GAS_STREAM=off) removes /v1/gas/stream: 404 like any unknown route; on by default', async () => {
    const off = await start(['--data', dataFile, '--port', '0', '--stream', 'off'])
    const res = await fetch(`${off.url}/gas/stream`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error_code: string }).error_code).toBe(((await (await fetch(`${off.url}/gas/nothing`)).json()) as { error_code: string }).error_code)
    expect(await (await fetch(off.url.replace(/\/v1$/, '/'))).text()).toContain('data-stream="off"')
    expect(await off.stop()).toBe(0)
    const saved = { ...process.env }
    try {
      process.env.LEDGER_GAS_STREAM = 'off'
      const fromEnv = await start(['--data', dataFile, '--port', '0'])
      expect((await fetch(`${fromEnv.url}/gas/stream`)).status).toBe(404)
      expect(await fromEnv.stop()).toBe(0)
      process.env.LEDGER_GAS_STREAM = 'maybe'
      const error = await run(['--data', dataFile, '--port', '0'], io().cli).catch((e: unknown) => e)
      expect((error as Error).message).toBe("LEDGER_GAS_STREAM must be one of on, off, got 'maybe'")
    } finally {
      process.env = saved
    }
    const on = await start(['--data', dataFile, '--port', '0'])
    const controller = new AbortController()
    const stream = await fetch(`${on.url}/gas/stream`, { signal: controller.signal })
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    controller.abort()
    expect(await on.stop()).toBe(0)
  })

  it('--data keeps as many blocks parsed as the estimators read at startup (the calibrated window, at most 10,000)', async () => {
    const loads = vi.spyOn(MemoryStore, 'fromJsonLines')
    const config = join(dir, 'window.json')
    writeFileSync(config, JSON.stringify({ window: 50_000 }))
    try {
      const d = await start(['--data', dataFile, '--port', '0'])
      expect((await fetch(`${d.url}/estimate_gas_price`)).status).toBe(200)
      expect(await d.stop()).toBe(0)
      const w = await start(['--data', dataFile, '--port', '0', '--calibrated-config', config])
      expect(await w.stop()).toBe(0)
      expect(loads.mock.calls.map((c) => c[1])).toEqual([{ parsedBlocks: 1000 }, { parsedBlocks: 10_000 }])
    } finally {
      loads.mockRestore()
    }
  })

  it("docs/operations.md's flag/environment table lists every serve flag with its variable", () => {
    const readme = readFileSync(join(import.meta.dirname, '../../docs/operations.md'), 'utf8')
    const rows = [...readme.matchAll(/^\| `--([a-z-]+)[^`]*` \| `(LEDGER_GAS_[A-Z_]+)` \|/gm)].map((m) => [m[1], m[2]])
    expect(rows).toEqual(Object.keys(FLAGS).map((f) => [f, envName(f)]))
  })

  it('refuses bad command lines with a usage error', async () => {
    const bad = [
      ['--data', dataFile, '--db', join(dir, 'x.db')],
      ['--db', join(dir, 'missing.db')],
      ['--data', join(dir, 'missing.jsonl')],
      ['--port', '70000'],
      ['--port', 'http'],
      ['--verbose'],
      ['--store-timeout', '0'],
      ['--request-timeout', 'soon'],
      ['--max-url-length', '100000'],
      ['--log-level', 'loud'],
      ['--max-in-flight', '0'],
      ['--stream-buffer', 'big'],
      ['--stream', 'maybe'],
      ['--stale-after', '0'],
      ['--stale-after', 'soon'],
      // The load threads measured slower than the main thread on 2 cores and went: an unknown flag.
      ['--data', dataFile, '--load-threads', '2'],
    ]
    for (const args of bad) await expect(run(args, io().cli)).rejects.toBeInstanceOf(UsageError)
  })

  it('--db of a file that is not a ledger: exit 2 (LedgerDatabaseError), message naming it', async () => {
    const notDb = join(dir, 'not-a-db.txt')
    writeFileSync(notDb, 'plain text, not SQLite\n'.repeat(200))
    const r = await runCli(['serve', '--db', notDb, '--port', '0'])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(`ledger-gas serve: ${notDb} is not a ledger database: file is not a database\n`)
  })

  it('prints its help', async () => {
    const t = io()
    expect(await run(['--help'], t.cli)).toBe(0)
    expect(t.out()).toContain('usage: ledger-gas serve')
  })
})

describe('graceful shutdown', () => {
  it('lets an in-flight request finish when the server closes', async () => {
    const inner = storeOf(blocks)
    let release: () => void = () => {}
    let arrived: () => void = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const reached = new Promise<void>((r) => (arrived = r))
    const slow: LedgerStore = {
      ...inner,
      ledgerInfo: () => inner.ledgerInfo(),
      transactionByVersion: async (v) => {
        arrived()
        await gate
        return inner.transactionByVersion(v)
      },
      accountTransactions: (a, s, l) => inner.accountTransactions(a, s, l),
      accountSequenceNumber: (a) => inner.accountSequenceNumber(a),
      blockByHeight: (h, w) => inner.blockByHeight(h, w),
      appendBlock: (b) => inner.appendBlock(b),
      pruneBelow: (v) => inner.pruneBelow(v),
      close: () => inner.close(),
    }
    const server = await createServer({ store: slow })
    const url = await server.listen({ port: 0, host: '127.0.0.1' })
    const pending = fetch(`${url}/v1/transactions/by_version/2`)
    await reached
    const closing = server.close()
    release()
    const res = await pending
    expect(res.status).toBe(200)
    expect(((await res.json()) as { version: string }).version).toBe('2')
    await closing
  })
})

describe('serve --follow: readiness that tells the truth', () => {
  it('a node that cannot be reached: /v1/-/healthy answers 503 naming the reason, /metrics counts follow errors, the log says each backoff step once', async () => {
    // A port nothing listens on: taken, then let go.
    const probe = netServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const node = `http://127.0.0.1:${port}/v1`
    const s = await start(['--follow', node, '--port', '0', '--log-level', 'silent'])
    try {
      const healthy = async () => {
        const res = await fetch(`${s.url}/-/healthy`)
        return { status: res.status, body: (await res.json()) as { message: string; error_code: string } }
      }
      // Before the first retry the ledger is empty and nothing has come: still 503, with the reason.
      const first = await healthy()
      expect(first.status).toBe(503)
      expect(first.body.error_code).toBe('health_check_failed')
      expect(first.body.message).toMatch(new RegExp(`^Not ready: following ${node}: `))
      await until(() => /retry 2 of GET/.test(s.err()), 'the second retry on the log')
      const failing = await healthy()
      expect(failing.status).toBe(503)
      expect(failing.body).toMatchObject({ error_code: 'health_check_failed' })
      expect(failing.body.message).toMatch(new RegExp(`^Not ready: following ${node}: retry \\d+ of GET ${node}/`))
      const metrics = await (await fetch(`${s.url.replace(/\/v1$/, '')}/metrics`)).text()
      const errors = Number(/^ledger_gas_follow_errors_total (\d+)$/m.exec(metrics)?.[1])
      expect(errors).toBeGreaterThanOrEqual(2)
      // One line per backoff step: attempt numbers are not repeated within a run of retries.
      const attempts = [...s.err().matchAll(/retry (\d+) of GET/g)].map((m) => Number(m[1]))
      expect(attempts.slice(0, 2)).toEqual([1, 2])
      expect(new Set(attempts).size).toBe(attempts.length)
    } finally {
      expect(await s.stop()).toBe(0)
    }
  }, 60_000)

  it('a reachable node: healthy once the first block has arrived; a server without a follower has no follow-error metric', async () => {
    const node = await startServer(new ChainBuilder().blocks(5, () => [{ sender: 1 }]))
    const s = await start(['--follow', node.url, '--port', '0', '--log-level', 'silent'])
    try {
      let status = 0
      await until(() => status === 200, 'a 200 from /v1/-/healthy', 30_000, async () => {
        status = (await fetch(`${s.url}/-/healthy`)).status
      })
      expect(await (await fetch(`${s.url}/-/healthy`)).json()).toEqual({ message: 'aptos-node:ok' })
      expect(await (await fetch(`${s.url.replace(/\/v1$/, '')}/metrics`)).text()).toMatch(/^ledger_gas_follow_errors_total 0$/m)
      expect(await (await fetch(`${node.origin}/metrics`)).text()).not.toContain('ledger_gas_follow_errors_total')
    } finally {
      expect(await s.stop()).toBe(0)
      await node.close()
    }
  }, 60_000)
})

/** Runs `step` (if any) then `check` until `check` holds; `timeoutMs` only turns a wait that never ends into a message naming `what`. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000, step?: () => Promise<void>): Promise<void> {
  const end = Date.now() + timeoutMs
  for (;;) {
    await step?.()
    if (check()) return
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise<void>((r) => setTimeout(r, 20))
  }
}
