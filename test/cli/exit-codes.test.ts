import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { InterruptedError, UsageError } from '../../src/cli/errors.js'
import { LedgerUnavailableError } from '../../src/ledger/store/database-error.js'
import { EXIT, EXIT_BY_CODE, exitCodeOf } from '../../src/cli/exit-codes.js'
import { InvalidBlockError, InvalidConfigError, LedgerGasError } from '../../src/core/errors.js'
import { NodeResponseError, NodeUnavailableError } from '../../src/follow/errors.js'
import { InvalidDataError, LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { LedgerDatabaseError } from '../../src/ledger/sqlite/sqlite-store.js'
import { MissingDependencyError } from '../../src/ledger/optional-peer.js'
import { InvalidStrategyError } from '../../src/replay/errors.js'

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8')

interface Row {
  code: string
  className: string
  exit: number
}

/** The rows of the README's "Error codes" table: code, class and CLI exit, backticks dropped. */
function errorTable(): Row[] {
  const section = README.split(/^## /m).find((s) => s.startsWith('Error codes\n'))
  if (section === undefined) throw new Error('README.md has no "## Error codes" section')
  const rows = section.split('\n').filter((l) => l.startsWith('|'))
  const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, ''))
  const header = cells(rows[0] as string)
  const col = (name: string) => {
    const i = header.indexOf(name)
    if (i === -1) throw new Error(`the error table has no '${name}' column: ${header.join(', ')}`)
    return i
  }
  const [code, cls, exit] = [col('code'), col('class'), col('CLI exit')]
  return rows.slice(2).map((line) => {
    const c = cells(line)
    return { code: c[code] as string, className: c[cls] as string, exit: Number(c[exit]) }
  })
}

/** One instance of each error class the CLI can end with, by class name. */
const SAMPLES: Record<string, LedgerGasError> = {
  InvalidConfigError: new InvalidConfigError('low_block_history', 'must be positive'),
  InvalidBlockError: new InvalidBlockError('7', 'block_height', 'must be a u64'),
  InvalidDataError: new InvalidDataError('chain.jsonl', 3, 'epoch', 'must be a u64'),
  LedgerContinuityError: new LedgerContinuityError('gap'),
  LedgerDatabaseError: new LedgerDatabaseError('x.db is not a ledger database'),
  LedgerUnavailableError: new LedgerUnavailableError('postgres://127.0.0.1:1/x: ECONNREFUSED'),
  MissingDependencyError: new MissingDependencyError('better-sqlite3', 'a SQLite ledger'),
  InvalidStrategyError: new InvalidStrategyError('bogus', 'unknown strategy'),
  NodeResponseError: new NodeResponseError('http://node/v1', 200, 'not JSON'),
  NodeUnavailableError: new NodeUnavailableError('http://node/v1', 5, 'ECONNREFUSED'),
  UsageError: new UsageError('missing required option --input'),
  InterruptedError: new InterruptedError('interrupted'),
}

describe('exit codes: the README error table is the code', () => {
  const table = errorTable()

  it('the table lists every error code the CLI maps, once, and no other', () => {
    const codes = table.map((r) => r.code)
    expect(new Set(codes).size).toBe(codes.length)
    expect([...codes].sort()).toEqual(Object.keys(EXIT_BY_CODE).sort())
    expect(table.map((r) => r.className).sort()).toEqual(Object.keys(SAMPLES).sort())
  })

  for (const row of errorTable()) {
    it(`${row.code}: ${row.className} carries that code and exits ${row.exit}`, () => {
      const error = SAMPLES[row.className]
      expect(error, `no sample of ${row.className}`).toBeDefined()
      expect(error?.name).toBe(row.className)
      expect(error?.code).toBe(row.code)
      expect([EXIT.badData, EXIT.usage]).toContain(row.exit)
      expect(EXIT_BY_CODE[row.code]).toBe(row.exit)
      expect(exitCodeOf(error)).toBe(row.exit)
    })
  }

  it('anything not in the table (an unforeseen error) exits 1', () => {
    expect(exitCodeOf(new Error('boom'))).toBe(EXIT.badData)
    expect(exitCodeOf(new LedgerGasError('something_new', 'x'))).toBe(EXIT.badData)
  })

  it('the CLI section states the same codes', () => {
    expect(README).toContain(`Exit codes: \`${EXIT.ok}\` ok, \`${EXIT.usage}\` usage or configuration error, \`${EXIT.badData}\` bad data.`)
  })
})
