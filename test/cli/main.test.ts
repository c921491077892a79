import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, spawnCli } from '../helpers/cli-child.js'
import { runCli } from '../helpers/run-cli.js'

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }

describe('ledger-gas (no command)', () => {
  it.each(['--version', '-v'])('%s prints the version of package.json and exits 0', async (flag) => {
    expect(await runCli([flag])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' })
  })
  it('--help lists the commands and the version flag on stdout, exit 0', async () => {
    const r = await runCli(['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^usage: ledger-gas <command>/)
    expect(r.stdout).toContain('  serve ')
    expect(r.stdout).toContain('-v, --version')
  })
  it('no arguments: the usage on stderr, exit 2', async () => {
    const r = await runCli([])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^usage: ledger-gas/)
  })
})

describe('ledger-gas: SIGINT on a command that does not stop on signals', () => {
  it('replay --input - waiting on its input ends by SIGINT instead of swallowing it', { timeout: 30_000 }, async () => {
    const c = spawnCli(['replay', '--input', '-', '--output', '/dev/null'], { stdin: 'pipe' })
    // More whole lines than a pipe holds: 'drain' then means the child is running replay and
    // reading its input (the signal handlers are installed before any command runs).
    const lines = readFileSync(join(ROOT, 'data/chain.jsonl'), 'utf8').split('\n').slice(0, 100).join('\n') + '\n'
    const stdin = c.child.stdin as NonNullable<typeof c.child.stdin>
    if (stdin.write(lines)) await new Promise((r) => setImmediate(r))
    else await new Promise((r) => stdin.once('drain', r))
    c.child.kill('SIGINT')
    expect(await c.exited).toEqual({ code: null, signal: 'SIGINT' })
    stdin.destroy()
  })
})
