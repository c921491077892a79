import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { run } from '../../src/cli/commands/follow.js'
import type { CliIo } from '../../src/cli/io.js'
import { runCli } from '../helpers/run-cli.js'
import { calibratedByHeight, estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'
import { until } from '../helpers/wait.js'
import { startServer } from '../helpers/follow-server.js'

const INITIAL = sampleBlocks(750, 800)
const GROWTH = sampleBlocks(801, 806)
const REFERENCE = estimatesByHeight([...INITIAL, ...GROWTH])

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-follow-'))
const servers: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
  rmSync(dir, { recursive: true, force: true })
})

function io() {
  const controller = new AbortController()
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (c: Buffer) => (out += c.toString()))
  stderr.on('data', (c: Buffer) => (err += c.toString()))
  const cli: CliIo = { stdin: new PassThrough(), stdout, stderr, signal: controller.signal }
  return { cli, controller, out: () => out, err: () => err }
}

const lines = (text: string) => text.split('\n').filter((l) => l.length > 0)

describe('ledger-gas follow', () => {
  it('prints one exact JSON line per new estimate and exits 0 when the signal aborts', async () => {
    const s = await startServer(INITIAL)
    servers.push(s)
    const t = io()
    const exit = run(['--node', s.url, '--interval', '20'], t.cli)
    await until(() => lines(t.out()).length === 1, 'the first line')
    for (const b of GROWTH) await s.server.appendBlock(b)
    await until(() => lines(t.out()).length === 7, 'a line per new block')
    t.controller.abort()
    expect(await exit).toBe(0)
    const printed = lines(t.out())
    expect(printed[0]).toBe(`{"block_height":"800","epoch":"2",${(REFERENCE.get('800') as string).slice(1)}`)
    expect(printed.map((l) => (JSON.parse(l) as { block_height: string }).block_height)).toEqual(['800', '801', '802', '803', '804', '805', '806'])
    for (const l of printed) {
      const { block_height, epoch, ...estimate } = JSON.parse(l) as Record<string, unknown>
      expect(JSON.stringify(estimate), l).toBe(REFERENCE.get(block_height as string))
      expect(epoch).toBe(Number(block_height) >= 801 ? '3' : '2')
    }
    expect(t.err()).toContain(`ledger-gas follow: backfilling blocks 750..800 from ${s.url}`)
    expect(t.err()).toContain('ledger-gas follow: epoch 2 -> 3 at block 801')
    expect(t.err()).toContain('ledger-gas follow: stopped at block 806')
  })
  it('reads --config: the follower uses the given windows', async () => {
    const s = await startServer(INITIAL)
    servers.push(s)
    const file = join(dir, 'config.json')
    writeFileSync(file, JSON.stringify({ low_block_history: 2, market_block_history: 3, aggressive_block_history: 4 }))
    const t = io()
    const exit = run(['--node', s.url, '--config', file, '--interval', '20'], t.cli)
    await until(() => lines(t.out()).length === 1, 'the first line')
    t.controller.abort()
    expect(await exit).toBe(0)
    expect(t.err()).toContain('backfilling blocks 796..800')
  })
  it('--estimator calibrated prints the calibrated estimate lines, with --calibrated-config’s promises and --backfill’s span', async () => {
    const s = await startServer(INITIAL)
    servers.push(s)
    const file = join(dir, 'calibrated.json')
    const calibrated = { prioritized: { k: 2, q: 0.9 }, window: 30 }
    writeFileSync(file, JSON.stringify(calibrated))
    const t = io()
    const exit = run(['--node', s.url, '--estimator', 'calibrated', '--calibrated-config', file, '--backfill', '40', '--interval', '20'], t.cli)
    await until(() => lines(t.out()).length === 1, 'the first line')
    for (const b of GROWTH) await s.server.appendBlock(b)
    await until(() => lines(t.out()).length === 7, 'a line per new block')
    t.controller.abort()
    expect(await exit).toBe(0)
    // --backfill 40 read blocks 761..800: the reference is fed the same ones.
    const reference = calibratedByHeight(sampleBlocks(761, 806), {}, calibrated)
    const printed = lines(t.out())
    expect(printed.map((l) => (JSON.parse(l) as { block_height: string }).block_height)).toEqual(['800', '801', '802', '803', '804', '805', '806'])
    let differsFromAptos = false
    for (const l of printed) {
      const { block_height, epoch, ...estimate } = JSON.parse(l) as Record<string, unknown>
      expect(JSON.stringify(estimate), l).toBe(reference.get(block_height as string))
      expect(epoch).toBe(Number(block_height) >= 801 ? '3' : '2')
      if (JSON.stringify(estimate) !== REFERENCE.get(block_height as string)) differsFromAptos = true
    }
    expect(differsFromAptos).toBe(true)
    expect(t.err()).toContain(`ledger-gas follow: backfilling blocks 761..800 from ${s.url}`)
    expect(t.err()).toContain('ledger-gas follow: epoch 2 -> 3 at block 801: earlier blocks still count')
  })
  it.each([
    [[], /missing required option --node/],
    [['--node', 'http://127.0.0.1:1/v1', '--estimator', 'geth'], /--estimator must be one of aptos, calibrated, got 'geth'/],
    [['--node', 'http://127.0.0.1:1/v1', '--backfill', '0'], /--backfill must be between 1 and 10000000, got 0/],
    [['--node', 'http://127.0.0.1:1/v1', '--calibrated-config', 'missing-calibrated.json'], /cannot read calibrated config file missing-calibrated\.json: ENOENT/],
    [['--node', 'localhost:8080'], /--node must be an http\(s\) URL of the node's API, \/v1 included, got 'localhost:8080'/],
    [['--node', 'http://127.0.0.1:1/v1', '--interval', 'soon'], /--interval must be an integer, got 'soon'/],
    [['--node', 'http://127.0.0.1:1/v1', '--nodes', 'x'], /Unknown option '--nodes'/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const r = await runCli(['follow', ...args])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
  })
  it('a URL that is not the API root exits 1 naming what it got', async () => {
    const s = await startServer(INITIAL)
    servers.push(s)
    const r = await runCli(['follow', '--node', `${s.origin}/v2`])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^ledger-gas follow: GET http:\/\/127\.0\.0\.1:\d+\/v2\/: HTTP 404: no ledger info here; the URL should be the API root, \/v1 included\n$/)
  })
  it('--help prints the usage', async () => {
    const r = await runCli(['follow', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('usage: ledger-gas follow --node URL [--config FILE.json] [--interval MS]')
  })
})
