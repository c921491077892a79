import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { codeBlocks, docFiles, readDoc, replaceBlock, ROOT } from './doc-blocks.js'

// The command summaries of the README and docs/ are each command's own help text: the README's
// list of commands is `ledger-gas --help`'s, and every usage a doc shows (a block starting with
// `usage: ledger-gas <command>`) is that command's `--help` usage, line for line.
// `UPDATE_DOCS=1 npx vitest run test/docs/command-help.test.ts` rewrites them from the help.

const UPDATE = process.env.UPDATE_DOCS === '1'

/** What `ledger-gas …args` prints on standard output. */
async function help(args: string[]): Promise<string> {
  let out = ''
  const stdout = new PassThrough()
  stdout.on('data', (c: Buffer) => (out += c.toString()))
  const code = await main(args, { stdin: new PassThrough(), stdout, stderr: new PassThrough().resume(), signal: new AbortController().signal })
  expect(code, `ledger-gas ${args.join(' ')} exits 0`).toBe(0)
  return out
}

/** The command list of `ledger-gas --help`: the indented lines under `commands:`. */
function commandList(text: string): string[] {
  const lines = text.split('\n')
  const start = lines.indexOf('commands:')
  const end = lines.indexOf('', start)
  return lines.slice(start + 1, end).map((l) => l.trim())
}

/** A command's usage: its help's first paragraph, from `usage:` to the first blank line. */
function usageOf(text: string): string {
  return text.slice(0, text.indexOf('\n\n')).trimEnd()
}

/** A block of usages split per command: a paragraph starts at each `usage: ledger-gas <command>` line. */
function usages(text: string): { command: string; usage: string }[] {
  return text
    .split(/\n(?=usage: ledger-gas )/)
    .map((u) => u.replace(/\n+$/, ''))
    .map((usage) => ({ command: /^usage: ledger-gas (\S+)/.exec(usage)?.[1] ?? '', usage }))
}

describe('command summaries in the docs are the commands\' own help', async () => {
  const top = await help(['--help'])
  const commands = commandList(top).map((l) => l.split(/\s+/)[0] as string)
  const helps = Object.fromEntries(await Promise.all(commands.map(async (c) => [c, usageOf(await help([c, '--help']))] as const)))

  it('ledger-gas --help lists the commands', () => {
    expect(commands).toEqual(['estimate', 'replay', 'generate', 'backtest', 'ingest', 'serve', 'follow'])
  })

  it("the README's command list is ledger-gas --help's, and its usages cover every command", () => {
    const blocks = codeBlocks('README.md', readDoc('README.md'))
    const list = blocks.find((b) => b.meta.includes('commands'))
    expect(list?.text.split('\n').map((l) => l.trim()), 'README: a block listing the commands as `ledger-gas --help` does').toEqual(commandList(top))
    const shown = blocks.filter((b) => b.text.startsWith('usage: ledger-gas ')).flatMap((b) => usages(b.text).map((u) => u.command))
    expect(new Set(shown)).toEqual(new Set(commands))
  })

  for (const file of docFiles()) {
    it(`${file}: every usage it shows is the command's --help usage`, () => {
      const text = readDoc(file)
      const blocks = codeBlocks(file, text).filter((b) => b.text.startsWith('usage: ledger-gas '))
      const fixes: { block: (typeof blocks)[number]; content: string }[] = []
      for (const block of blocks) {
        const fresh = usages(block.text).map((u) => helps[u.command] ?? `(no command ${u.command})`).join('\n')
        if (UPDATE && fresh !== block.text) fixes.push({ block, content: fresh })
        else expect(block.text, `${file}:${block.line} (UPDATE_DOCS=1 rewrites it)`).toBe(fresh)
      }
      if (fixes.length > 0) writeFileSync(join(ROOT, file), fixes.sort((a, b) => b.block.from - a.block.from).reduce((t, f) => replaceBlock(t, f.block, f.content), text))
    })
  }
})
