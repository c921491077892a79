import { fileURLToPath } from 'node:url'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

const SAMPLE = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-threads-'))

// Every threaded read (replay/backtest's scan threads, ingest's read worker, serve's load
// threads) measured slower than, or not 1.2x faster than, its main-thread twin on 2 cores
// (docs/architecture.md): the flags went with the code, so they fail as unknown options.
describe('no worker threads: the old thread flags are unknown options (exit 2)', () => {
  it('replay and backtest have no --threads', async () => {
    for (const command of ['replay', 'backtest']) {
      const r = await runCli([command, '--input', SAMPLE, '--threads', '2'])
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("Unknown option '--threads'")
    }
  })

  it('ingest has no --threads, from a file or from a node', async () => {
    for (const source of [['--input', SAMPLE], ['--from-node', 'http://127.0.0.1:9/v1']]) {
      const ingest = await runCli(['ingest', '--db', join(dir, 'never.db'), ...source, '--threads', '1'])
      expect(ingest.code).toBe(2)
      expect(ingest.stderr).toContain("Unknown option '--threads'")
    }
  })

  it('serve has no --load-threads', async () => {
    const r = await runCli(['serve', '--data', SAMPLE, '--load-threads', '2'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("Unknown option '--load-threads'")
  })
})
