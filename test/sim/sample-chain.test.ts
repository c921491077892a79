import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/run.js'

const DATA = fileURLToPath(new URL('../../data/', import.meta.url))
const readme = readFileSync(`${DATA}README.md`, 'utf8')
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** The generate command as data/README.md states it, split into arguments after `generate`. */
function readmeCommand(): string[] {
  const line = /```sh\n(npx tsx src\/cli\/main\.ts generate [^\n]+)\n```/.exec(readme)?.[1]
  if (line === undefined) throw new Error('data/README.md has no generate command in a sh block')
  return line.split(/\s+/).slice(4)
}

describe('data/chain.jsonl', () => {
  it('is what the command in data/README.md writes, and its SHA-256 is the one stated there', async () => {
    const args = readmeCommand()
    const at = args.indexOf('--output')
    expect(args[at + 1]).toBe('data/chain.jsonl')
    args[at + 1] = '-'
    // How fast it generates is the benchmarks' business; this checks what it writes.
    const r = await runCli(['generate', ...args])
    expect(r.code).toBe(0)
    const stated = /SHA-256 \| `([0-9a-f]{64})`/.exec(readme)?.[1]
    const committed = sha256(readFileSync(`${DATA}chain.jsonl`))
    expect(sha256(r.stdout)).toBe(committed)
    expect(committed).toBe(stated)
  }, 60_000)

  it('states its size and stays within the size budget (25 MB)', () => {
    const size = statSync(`${DATA}chain.jsonl`).size
    expect(size).toBeLessThanOrEqual(25_000_000)
    expect(readme).toContain(`| Size | ${size.toLocaleString('en-US')} bytes |`)
  })
})
