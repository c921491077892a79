import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
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
