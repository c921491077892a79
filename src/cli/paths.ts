import { accessSync, constants, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { UsageError } from './errors.js'

/** Why a file system call failed, in words a command line user can act on. */
export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  switch (e.code) {
    case 'ENOENT':
      return 'no such file'
    case 'EISDIR':
      return 'it is a directory'
    case 'ENOTDIR':
      return 'a parent of it is not a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOSPC':
      return 'no space left on device'
    default:
      return e.code ?? (error instanceof Error ? error.message : String(error))
  }
}

/**
 * Checks that `--flag PATH` names a readable file (`-`, standard input, always passes), so a
 * wrong path is a usage error naming the flag and the path before any work starts. The checks
 * here are synchronous: a few calls before any work, each without a round trip through the
 * thread pool, which a one-shot command on a small file would wait for.
 *
 * @throws UsageError `cannot read --input PATH: it is a directory` and the like.
 */
export async function checkInput(path: string, flag: string): Promise<void> {
  if (path === '-') return
  try {
    if (statSync(path).isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' })
    accessSync(path, constants.R_OK)
  } catch (error) {
    throw new UsageError(`cannot read --${flag} ${path}: ${describeFsError(error)}`)
  }
}

/**
 * Checks that `--flag PATH` can be written, without creating or truncating anything, so a
 * command fails at once rather than after a long run. `-` (standard output) always passes.
 * Writing can still fail later (a full disk); `openOutput` reports that the same way.
 *
 * @throws UsageError `cannot write --json PATH: directory /x does not exist` and the like.
 */
export async function checkOutput(path: string, flag: string): Promise<void> {
  if (path === '-') return
  const why = unwritable(path)
  if (why !== undefined) throw new UsageError(`cannot write --${flag} ${path}: ${why}`)
}

function unwritable(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return 'it is a directory'
    accessSync(path, constants.W_OK)
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return describeFsError(error)
  }
  // A new file: its directory must exist and take it.
  const dir = dirname(resolve(path))
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a directory`
    accessSync(dir, constants.W_OK)
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? `directory ${dir} does not exist` : describeFsError(error)
  }
}
