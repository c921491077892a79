import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { chainLines } from '../../src/sim/index.js'
import { runCli } from '../helpers/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-generate-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('ledger-gas generate', () => {
  it('--help prints usage and exits 0', async () => {
    const r = await runCli(['generate', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^usage: ledger-gas generate --blocks N --seed S --output FILE\|-/)
    expect(r.stdout).toContain('calm | surge | sustained | mixed')
    expect(r.stdout).toContain('switching')
    expect(r.stdout).toContain('congested-10 | congested-20 | … | congested-90')
  })

  it('takes the new scenarios by name: --scenario congested-70 writes the bytes of chainLines', async () => {
    const r = await runCli(['generate', '--blocks', '30', '--seed', '4', '--scenario', 'congested-70', '--output', '-'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe([...chainLines({ blocks: 30, seed: 4, scenario: 'congested-70' })].join(''))
  })

  it('writes to a file exactly the bytes of chainLines, and a summary to stderr', async () => {
    const out = join(dir, 'chain.jsonl')
    const r = await runCli(['generate', '--blocks', '40', '--seed', '9', '--scenario', 'sustained', '--epoch-blocks', '10', '--checkpoint-epochs', '1', '--output', out])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^generate: 40 blocks, \d+ user transactions, scenario sustained, seed 9/)
    const expected = [...chainLines({ blocks: 40, seed: 9, scenario: 'sustained', epoch_blocks: 10, checkpoint_epochs: 1 })].join('')
    expect(readFileSync(out, 'utf8')).toBe(expected)
  })

  it('--output - writes to standard output; the default scenario is mixed', async () => {
    const r = await runCli(['generate', '-n', '5', '-s', '3', '-o', '-'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe([...chainLines({ blocks: 5, seed: 3, scenario: 'mixed' })].join(''))
  })

  it('writes more than one chunk in order (streaming)', async () => {
    const out = join(dir, 'big.jsonl')
    const r = await runCli(['generate', '--blocks', '120', '--seed', '1', '--scenario', 'sustained', '--output', out])
    expect(r.code).toBe(0)
    const text = readFileSync(out, 'utf8')
    expect(text.length).toBeGreaterThan(2 << 20)
    expect(text).toBe([...chainLines({ blocks: 120, seed: 1, scenario: 'sustained' })].join(''))
  })

  it.each([
    [['--seed', '1', '--output', '-'], /missing required option --blocks/],
    [['--blocks', '1', '--output', '-'], /missing required option --seed/],
    [['--blocks', '1', '--seed', '1'], /missing required option --output/],
    [['--blocks', 'ten', '--seed', '1', '--output', '-'], /--blocks must be an integer, got 'ten'/],
    [['--blocks', '1', '--seed', '-1', '--output', '-'], /seed/],
    [['--blocks', '1', '--seed', '1', '--scenario', 'storm', '--output', '-'], /--scenario must be one of calm, surge, sustained, mixed, switching, congested-10, .*, congested-90, bursts, drift, iid-10, iid-50, iid-90, got 'storm'/],
    [['--blocks', '1', '--seed', '1', '--scenario', 'congested-55', '--output', '-'], /--scenario must be one of .*got 'congested-55'/],
    [['--blocks', '1', '--seed', '1', '--epoch-blocks', '0', '--output', '-'], /--epoch-blocks must be between 1/],
    [['--blocks', '1', '--seed', '1', '--output', '-', '--colour'], /Unknown option '--colour'/],
    [['--blocks', '1', '--seed', '1', '--output', join(dir, 'missing', 'x.jsonl')], /cannot write --output/],
  ])('%j is a usage error (exit 2) naming the problem', async (args, message) => {
    const r = await runCli(['generate', ...args])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
  })
})
