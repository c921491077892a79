import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import { addr, ChainBuilder } from '../helpers/chain-builder.js'
import { CRASH_BLOCKS, CRASH_KILLS } from '../budget.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-crash-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Budgets from test/budget.ts: 1,500 blocks and 2 kills by default, more under `npm run test:deep`.
const BLOCKS = CRASH_BLOCKS
/** Kill points spread evenly over 20%..85% of the input (one kill: halfway). */
const FRACTIONS = CRASH_KILLS === 1 ? [0.5] : Array.from({ length: CRASH_KILLS }, (_, i) => 0.2 + (0.65 * i) / (CRASH_KILLS - 1))

/**
 * One statement, so one snapshot: the ledger holds exactly the transactions of its blocks (no
 * block without all its transactions, no transaction without its block) and ends at the newest
 * block's last version. Keys are biased by 2^63, which differences and max() do not mind.
 */
const WHOLE_BLOCKS = `SELECT
  (SELECT count(*) FROM transactions) AS txns,
  (SELECT coalesce(sum(last_version - first_version + 1), 0) FROM blocks) AS spanned,
  (SELECT max(version) FROM transactions) IS (SELECT max(last_version) FROM blocks) AS tip_ok,
  (SELECT count(*) FROM blocks) AS blocks`

interface Census {
  txns: number
  spanned: number
  tip_ok: number
  blocks: number
}

/** Runs the real CLI in a child and SIGKILLs it once a reader sees `killAt` blocks committed. */
async function ingestUntilKilled(db: string, input: string, killAt: number): Promise<{ census: Census[]; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest', '--db', db, '--input', input, '--batch', '8'], {
    cwd: join(import.meta.dirname, '../..'),
    stdio: 'ignore',
  })
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  let done = false
  void exited.then(() => (done = true))
  const census: Census[] = []
  let reader: Database.Database | undefined
  try {
    while (!done) {
      await new Promise((r) => setTimeout(r, 2))
      if (reader === undefined) {
        if (!existsSync(db)) continue
        try {
          reader = new Database(db, { readonly: true, fileMustExist: true })
        } catch {
          continue
        }
      }
      let row: Census
      try {
        row = reader.prepare(WHOLE_BLOCKS).get() as Census
      } catch {
        continue // schema not created yet
      }
      census.push(row)
      if (row.blocks >= killAt) {
        child.kill('SIGKILL')
        break
      }
    }
  } finally {
    reader?.close()
  }
  return { census, signal: await exited }
}

describe('ingest crash safety', () => {
  it(`SIGKILLed at ${FRACTIONS.length} points of a ${BLOCKS}-block ingest, then resumed: the ledger equals the input, and no reader ever saw part of a block`, { timeout: 30_000 + FRACTIONS.length * 10_000 + BLOCKS * 5 }, async () => {
    const chain = new ChainBuilder({ height: 100, version: 5000 })
    const blocks = chain.blocks(BLOCKS, (i) => Array.from({ length: 1 + (i % 5) }, (_, k) => (k === 2 ? { sender: 50 + (i % 3), nonce: i } : { sender: 1 + ((i + k) % 6) })))
    const input = join(dir, 'chain.jsonl')
    writeFileSync(input, blocks.map((b) => JSON.stringify(b)).join('\n'))
    const db = join(dir, 'ledger.db')

    let last = 0
    for (const fraction of FRACTIONS) {
      const { census, signal } = await ingestUntilKilled(db, input, Math.floor(BLOCKS * fraction))
      expect(census.length).toBeGreaterThan(0)
      for (const c of census) {
        expect(c.txns).toBe(c.spanned)
        if (c.blocks > 0) expect(c.tip_ok).toBe(1)
      }
      const seen = census[census.length - 1] as Census
      // Killed mid-ingest (not after it finished), and never lost committed blocks.
      expect(signal).toBe('SIGKILL')
      expect(seen.blocks).toBeGreaterThanOrEqual(last)
      last = seen.blocks
    }

    const { code, stdout: out } = await runCli(['ingest', '--db', db, '--input', input])
    expect(code).toBe(0)
    const [, appended, skipped] = /(\d+) blocks appended, (\d+) skipped/.exec(out) ?? []
    expect(Number(appended) + Number(skipped)).toBe(BLOCKS)
    expect(Number(skipped)).toBeGreaterThanOrEqual(last)

    const memory = await MemoryStore.fromJsonLines(input)
    const store = SqliteStore.open(db, { mustExist: true })
    try {
      expect(store.ledgerInfo()).toEqual(memory.ledgerInfo())
      for (let v = 5000; v <= Number(memory.ledgerInfo()?.ledger_version); v += 7) expect(store.transactionByVersion(v)).toEqual(memory.transactionByVersion(v))
      for (let h = 100; h < 100 + BLOCKS; h += 13) expect(store.blockByHeight(h, true)).toEqual(memory.blockByHeight(h, true))
      for (const who of [1, 2, 3, 4, 5, 6, 50].map(addr)) {
        expect(store.accountSequenceNumber(who)).toEqual(memory.accountSequenceNumber(who))
        expect(store.accountTransactions(who, 0, 5000)).toEqual(memory.accountTransactions(who, 0, 5000))
      }
    } finally {
      store.close()
    }
  })
})
