import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-threads-'))

describe('--threads: the same output as a scan on the main thread', () => {
  it('replay writes the same lines with --threads 2 as without', async () => {
    const one = await runCli(['replay', '--input', SAMPLE])
    const two = await runCli(['replay', '--input', SAMPLE, '--threads', '2'])
    expect(one).toMatchObject({ code: 0, stderr: '' })
    expect(two).toEqual(one)
    expect(one.stdout.trim().split('\n')).toHaveLength(2000)
  })

  it('backtest writes the same metrics with --threads 2 as without', async () => {
    const args = ['backtest', '--input', SAMPLE, '--k', '1,3', '--json', '-']
    const one = await runCli(args)
    const two = await runCli([...args, '--threads', '2'])
    expect(one.code).toBe(0)
    expect(two).toEqual(one)
  })

  it('a bad line: exit 1 with the same file:line:field message, and the lines before it', async () => {
    const lines = readFileSync(SAMPLE, 'utf8').split('\n')
    lines[1500] = '{"block_height":"1501","oops"}'
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, lines.join('\n'))
    const one = await runCli(['replay', '--input', file])
    const two = await runCli(['replay', '--input', file, '--threads', '2'])
    expect(one.code).toBe(1)
    expect(one.stderr).toContain(`${file}:1501: (json): not valid JSON`)
    expect(two).toEqual(one)
    expect(one.stdout.trim().split('\n')).toHaveLength(1500)
    const bt = await runCli(['backtest', '--input', file, '--threads', '2'])
    expect(bt.code).toBe(1)
    expect(bt.stderr).toContain(`${file}:1501: (json): not valid JSON`)
  })

  it('--threads must be an integer from 0 to 64 (exit 2); ingest has no --threads (an unknown flag, exit 2)', async () => {
    expect((await runCli(['replay', '--input', SAMPLE, '--threads', 'x'])).code).toBe(2)
    expect((await runCli(['backtest', '--input', SAMPLE, '--threads', '65'])).code).toBe(2)
    for (const source of [['--input', SAMPLE], ['--from-node', 'http://127.0.0.1:9/v1']]) {
      const ingest = await runCli(['ingest', '--db', join(dir, 'never.db'), ...source, '--threads', '1'])
      expect(ingest.code).toBe(2)
      expect(ingest.stderr).toContain("Unknown option '--threads'")
    }
  })
})
