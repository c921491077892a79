import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'

describe('pgDriver', () => {
  it("loads pg without Node's fetch implementation and leaves no navigator global behind", () => {
    // A fresh process: in this one, pg may already be loaded by another test file's imports.
    const script = [
      "import { pgDriver } from './src/ledger/postgres/pg-connection.ts'",
      'const before = "navigator" in globalThis',
      'const driver = pgDriver()',
      'const again = pgDriver()',
      'console.log(JSON.stringify({ before, after: "navigator" in globalThis, client: typeof driver.Client, same: driver === again, undici: process.moduleLoadList.filter((m) => m.includes("undici")) }))',
    ].join('\n')
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' })
    const seen = JSON.parse(out) as { before: boolean; after: boolean; client: string; same: boolean; undici: string[] }
    expect(seen).toEqual({ before: seen.before, after: seen.before, client: 'function', same: true, undici: [] })
  })
})
