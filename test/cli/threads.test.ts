import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-threads-'))

describe('--threads: the same output as a read on the main thread', () => {
  it('ingest --threads 2 writes a ledger byte for byte like the in-place read, and prints the same counts', async () => {
    const slice = join(dir, 'slice.jsonl')
    writeFileSync(slice, `${readFileSync(SAMPLE, 'utf8').split('\n').slice(0, 600).join('\n')}\n`)
    const runs = []
    for (const threads of ['0', '2']) {
      const db = join(dir, `ingest-${threads}.db`)
      const run = await runCli(['ingest', '--db', db, '--input', slice, '--threads', threads])
      const dump = new Database(db, { readonly: true })
      const rows = dump.prepare('SELECT version, sender, sequence_number, CAST(json AS TEXT) AS json FROM transactions ORDER BY version').all()
      const blocks = dump.prepare('SELECT * FROM blocks ORDER BY block_height').all()
      const accounts = dump.prepare('SELECT * FROM accounts ORDER BY address').all()
      dump.close()
      const digest = createHash('sha256').update(JSON.stringify({ rows, blocks, accounts }, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).digest('hex')
      runs.push({ code: run.code, stderr: run.stderr, summary: run.stdout.replace(db, 'DB').replace(/; [0-9.]+ s, [0-9]+ blocks\/s/, ''), rows: rows.length, digest })
    }
    expect(runs[0]?.summary).toMatch(/^ingest: 600 blocks appended, 0 skipped/)
    expect(runs[0]?.rows).toBeGreaterThan(600)
    expect(runs[1]).toEqual(runs[0])
  })

  it('--threads must be an integer from 0 to 64 (exit 2), and is refused with ingest --from-node', async () => {
    expect((await runCli(['ingest', '--db', join(dir, 'never.db'), '--input', SAMPLE, '--threads', 'x'])).code).toBe(2)
    expect((await runCli(['ingest', '--db', join(dir, 'never.db'), '--input', SAMPLE, '--threads', '65'])).code).toBe(2)
    const fromNode = await runCli(['ingest', '--db', join(dir, 'never.db'), '--from-node', 'http://127.0.0.1:9/v1', '--threads', '1'])
    expect(fromNode.code).toBe(2)
    expect(fromNode.stderr).toContain('--threads')
  })

  // Scan threads measured slower than the main thread on 2 cores (the big chain and the sample): gone from replay and backtest.
  it('replay and backtest have no --threads: an unknown option, exit 2', async () => {
    for (const command of ['replay', 'backtest']) {
      const r = await runCli([command, '--input', SAMPLE, '--threads', '2'])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("Unknown option '--threads'")
    }
  })
})
