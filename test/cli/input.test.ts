import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { runCli } from '../helpers/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-input-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const blocks = new ChainBuilder().blocks(12, (i) => [{ sender: 1 }, { sender: 2, gas_unit_price: 100 + i }])
const body = blocks.map((b) => JSON.stringify(b)).join('\n') + '\n'
const plain = file('plain.jsonl', body)
const bom = file('bom.jsonl', `\uFEFF${body}`)
const empty = file('empty.jsonl', '')
const blank = file('blank.jsonl', '\n\r\n\n')

describe('input paths', () => {
  const commands: [string, string[]][] = [
    ['estimate', []],
    ['replay', []],
    ['backtest', []],
    ['ingest', ['--db', join(dir, 'never.db')]],
  ]
  for (const [command, extra] of commands) {
    it(`${command} --input of a directory or a missing file: exit 2 naming the path`, async () => {
      for (const [path, why] of [
        [dir, 'it is a directory'],
        [join(dir, 'nope.jsonl'), 'no such file'],
      ] as const) {
        const r = await runCli([command, '--input', path, ...extra])
        expect(r.code).toBe(2)
        expect(r.stderr).toBe(`ledger-gas ${command}: cannot read --input ${path}: ${why}\n`)
      }
    })
  }

  it('serve --data and --db of a missing file: exit 2 naming the path', async () => {
    for (const flag of ['data', 'db']) {
      const r = await runCli(['serve', `--${flag}`, join(dir, 'nope'), '--port', '0'])
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(`ledger-gas serve: cannot read --${flag} ${join(dir, 'nope')}: no such file\n`)
    }
  })
})

describe('a JSON Lines file with a UTF-8 byte order mark', () => {
  it('is read like the same file without one by estimate, replay, backtest and ingest', async () => {
    for (const args of [['estimate'], ['replay'], ['backtest', '--k', '1']]) {
      const a = await runCli([...args, '--input', plain])
      const b = await runCli([...args, '--input', bom])
      expect(a).toMatchObject({ code: 0, stderr: '' })
      expect(b).toEqual(a)
    }
    const a = await runCli(['ingest', '--db', join(dir, 'plain.db'), '--input', plain])
    const b = await runCli(['ingest', '--db', join(dir, 'bom.db'), '--input', bom])
    expect(a.code).toBe(0)
    expect(b.code).toBe(0)
    expect(b.stdout).toMatch(/^ingest: 12 blocks appended, 0 skipped/)
  })
})

describe('empty input', () => {
  let dbs = 0
  const runs: [string, (input: string) => string[]][] = [
    ['estimate', (input) => ['estimate', '--input', input]],
    ['replay', (input) => ['replay', '--input', input]],
    ['backtest', (input) => ['backtest', '--input', input]],
    ['ingest', (input) => ['ingest', '--db', join(dir, `empty-${dbs++}.db`), '--input', input]],
  ]
  for (const [command, args] of runs) {
    it(`${command}: zero blocks succeed with a warning on stderr naming the input`, async () => {
      for (const [input, name] of [
        [empty, empty],
        [blank, blank],
        ['-', '<stdin>'],
      ] as const) {
        const r = await runCli(args(input), '')
        expect(r.code).toBe(0)
        expect(r.stderr).toBe(`ledger-gas ${command}: warning: no blocks in ${name}\n`)
      }
    })
  }

  it('no warning when there are blocks', async () => {
    expect((await runCli(['estimate', '--input', plain])).stderr).toBe('')
  })
})
