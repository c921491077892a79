import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../../..')
const GEN = join(ROOT, 'src/follow/stream/gen')
const scratch = mkdtempSync(join(tmpdir(), 'ledger-gas-proto-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}

it('the committed generated code is what `npm run proto:gen` makes of proto/', () => {
  execFileSync(join(ROOT, 'node_modules/.bin/buf'), ['generate', '--output', scratch], { cwd: ROOT, stdio: 'pipe' })
  const fresh = join(scratch, 'src/follow/stream/gen')
  expect(files(fresh)).toEqual(files(GEN))
  for (const f of files(GEN)) expect(readFileSync(join(fresh, f), 'utf8'), f).toBe(readFileSync(join(GEN, f), 'utf8'))
})
