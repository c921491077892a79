/**
 * The "before" of the store benchmarks: the `src` tree of the commit issue 12's store work
 * started from, extracted once with `git archive` into bench/.baseline/ (git-ignored), so that a
 * benchmark runs the old stores beside the new ones in the same run.
 */
import { execSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BASELINE_COMMIT = '1661a35'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The baseline's `src` directory, or null when git cannot give it (not a clone, commit missing). */
export function baselineSrc(): string | null {
  const dir = join(ROOT, 'bench', '.baseline', BASELINE_COMMIT)
  if (existsSync(join(dir, 'src', 'ledger', 'sqlite-store.ts'))) return join(dir, 'src')
  try {
    mkdirSync(dir, { recursive: true })
    execSync(`git archive ${BASELINE_COMMIT} src | tar -x -C ${JSON.stringify(dir)}`, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    return join(dir, 'src')
  } catch (error) {
    console.error(`no baseline ${BASELINE_COMMIT} (${(error as Error).message.split('\n')[0]}); measuring this checkout only`)
    return null
  }
}
