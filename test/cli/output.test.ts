import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/errors.js'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli/main.js'
import { openOutput } from '../../src/cli/output.js'
import { runCli, watchedStdin } from '../helpers/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-output-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const compact = (h: number, prices: number[]) => JSON.stringify({ block_height: String(h), epoch: '1', gas_unit_prices: prices })
const chain = Array.from({ length: 30 }, (_, i) => compact(i + 1, [100 + i, 200])).join('\n') + '\n'
const input = join(dir, 'chain.jsonl')
writeFileSync(input, chain)
const aFile = join(dir, 'a-file.txt')
writeFileSync(aFile, 'not a directory\n')

/** Paths no output can go to, whoever runs the tests (root too), and what the message says of each. */
const unwritable: [string, string, RegExp][] = [
  ['a directory', dir, /it is a directory/],
  ['a file in a missing directory', join(dir, 'missing', 'out.json'), /directory .*missing does not exist/],
  ['a file under a regular file', join(aFile, 'out.json'), /a-file\.txt is not a directory/],
]

/** A usage error: exit 2, one line naming the flag and the path, no stack trace, nothing on stdout. */
function expectRefused(r: { code: number; stdout: string; stderr: string }, command: string, flag: string, path: string, why: RegExp) {
  expect(r.code).toBe(2)
  expect(r.stderr.startsWith(`ledger-gas ${command}: cannot write --${flag} ${path}: `)).toBe(true)
  expect(r.stderr).toMatch(why)
  expect(r.stderr.split('\n')).toHaveLength(2)
  expect(r.stderr).not.toMatch(/\n\s+at /)
  expect(r.stdout).toBe('')
}

describe('output paths', () => {
  for (const [what, path, why] of unwritable) {
    it(`replay --output to ${what}: exit 2 naming the path, before the input is read`, async () => {
      const stdin = watchedStdin(chain)
      expectRefused(await runCli(['replay', '--input', '-', '--output', path], stdin.stream), 'replay', 'output', path, why)
      expect(stdin.read()).toBe(false)
    })

    it(`backtest --json and --report to ${what}: exit 2 naming the path, before the input is read`, async () => {
      for (const flag of ['json', 'report']) {
        const stdin = watchedStdin(chain)
        expectRefused(await runCli(['backtest', '--input', '-', `--${flag}`, path], stdin.stream), 'backtest', flag, path, why)
        expect(stdin.read()).toBe(false)
      }
    })

    it(`generate --output to ${what}: exit 2 naming the path`, async () => {
      expectRefused(await runCli(['generate', '--blocks', '3', '--seed', '1', '--output', path]), 'generate', 'output', path, why)
    })
  }

  it('a missing --json directory fails before a bad --input is even opened, and creates nothing', async () => {
    const out = join(dir, 'nowhere', 'r.json')
    const r = await runCli(['backtest', '--input', '-', '--json', out], watchedStdin('{not json\n').stream)
    expect(r.code).toBe(2)
    expect(existsSync(join(dir, 'nowhere'))).toBe(false)
  })

  it('replay --output FILE and --output - write the same lines', async () => {
    const file = join(dir, 'replay.jsonl')
    const toFile = await runCli(['replay', '--input', input, '--output', file])
    const toStdout = await runCli(['replay', '--input', input, '--output', '-'])
    expect(toFile).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(toStdout).toMatchObject({ code: 0, stderr: '' })
    expect(toStdout.stdout.split('\n')).toHaveLength(31)
    expect(readFileSync(file, 'utf8')).toBe(toStdout.stdout)
  })

  it('replay, generate, backtest and estimate ask for standard input only to read -, and for standard output only to write there (the bin opens each on first use)', async () => {
    const asked: string[] = []
    const file = join(dir, 'replay-untouched.jsonl')
    expect(await main(['replay', '--input', input, '--output', file], guardedIo(asked))).toBe(0)
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(31)
    expect(await main(['generate', '--blocks', '3', '--seed', '1', '--output', join(dir, 'generated.jsonl')], guardedIo(asked))).toBe(0)
    // The last two print their table or estimate on standard output.
    expect(await main(['backtest', '--input', input, '--json', join(dir, 'untouched.json')], guardedIo(asked, sink()))).toBe(0)
    expect(await main(['estimate', '--input', input], guardedIo(asked, sink()))).toBe(0)
    expect(asked).toEqual([])
  })

  it('backtest --json - writes the metrics to stdout (the table goes to stderr), the same bytes as --json FILE', async () => {
    const file = join(dir, 'metrics.json')
    const toFile = await runCli(['backtest', '--input', input, '--json', file])
    const toStdout = await runCli(['backtest', '--input', input, '--json', '-'])
    expect(toFile.code).toBe(0)
    expect(toStdout.code).toBe(0)
    expect(existsSync(join(process.cwd(), '-'))).toBe(false)
    expect(toStdout.stdout).toBe(readFileSync(file, 'utf8'))
    expect(JSON.parse(toStdout.stdout).blocks).toBe(30)
    expect(toStdout.stderr).toBe(toFile.stdout)
  })

  it('backtest --report - writes the HTML to stdout; --json - with --report - is a usage error', async () => {
    const r = await runCli(['backtest', '--input', input, '--report', '-'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^<!doctype html>/i)
    expect(r.stderr).toMatch(/^30 blocks/)
    const both = await runCli(['backtest', '--input', input, '--json', '-', '--report', '-'])
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--json and --report cannot both be -/)
  })
})

/** A stream that takes every write and keeps nothing. */
function sink(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() })
}

/** A command's io whose standard input, and standard output unless given, record in `asked` that they were asked for, and throw. */
function guardedIo(asked: string[], stdout?: NodeJS.WritableStream): CliIo {
  return {
    get stdin(): NodeJS.ReadableStream {
      asked.push('stdin')
      throw new Error('standard input asked for')
    },
    get stdout(): NodeJS.WritableStream {
      if (stdout !== undefined) return stdout
      asked.push('stdout')
      throw new Error('standard output asked for')
    },
    stderr: sink(),
    signal: new AbortController().signal,
  }
}

/** A stream whose writes fail with `code` after `okWrites` good ones, as a full disk or a closed pipe does. */
function failingStream(code: string, okWrites = 1): Writable {
  let writes = 0
  return new Writable({
    highWaterMark: 4,
    write(_chunk, _encoding, done) {
      writes++
      if (writes > okWrites) done(Object.assign(new Error(`${code}: write failed`), { code }))
      else setImmediate(done)
    },
  })
}

describe('openOutput', () => {
  it('a write error that comes between writes is thrown by the next write as a usage error naming the flag, never as an unhandled event', async () => {
    const out = await openOutput('-', 'output', { stdout: failingStream('ENOSPC') })
    const error = await (async () => {
      for (let i = 0; i < 10; i++) await out.write('some text\n')
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as Error).message).toBe('cannot write --output -: no space left on device')
  })

  it('standard output whose reader went away (EPIPE) ends the output quietly', async () => {
    const out = await openOutput('-', 'output', { stdout: failingStream('EPIPE') })
    for (let i = 0; i < 10 && !out.gone; i++) await out.write('some text\n')
    expect(out.gone).toBe(true)
    await expect(out.end()).resolves.toBeUndefined()
  })
})
