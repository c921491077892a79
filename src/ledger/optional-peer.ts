import { createRequire } from 'node:module'
import { LedgerGasError } from '../core/errors.js'

/**
 * A package that one feature needs, and that ledger-gas lists as an optional peer dependency,
 * is not installed: the engine installs without the database drivers and the server, so each
 * is loaded when first used. `package` names it; the message says how to install it.
 */
export class MissingDependencyError extends LedgerGasError {
  /** The npm package to install. */
  readonly package: string
  constructor(pkg: string, feature: string, options?: { cause?: unknown }) {
    super('missing_dependency', `${feature} needs the package ${pkg}, which is not installed (npm install ${pkg})`, options)
    this.package = pkg
  }
}

const requireFromHere = createRequire(import.meta.url)

/**
 * Loads the CommonJS optional peer `pkg` on first use, so importing the module that uses it does
 * not require it to be installed.
 *
 * @example const Database = requirePeer<typeof import('better-sqlite3')>('better-sqlite3', 'a SQLite ledger')
 * @throws MissingDependencyError when `pkg` is not installed (any other load failure is rethrown).
 */
export function requirePeer<T>(pkg: string, feature: string): T {
  try {
    return requireFromHere(pkg) as T
  } catch (error) {
    const name = missingPackage(error)
    if (name === pkg) throw new MissingDependencyError(pkg, feature, { cause: error })
    throw error
  }
}

/**
 * Checks that the CommonJS optional peer `pkg` is installed without loading it (a resolution:
 * a few file lookups), for a feature that loads it later, on first use (`requirePeer`).
 *
 * @throws MissingDependencyError when `pkg` is not installed (any other failure is rethrown).
 */
export function resolvePeer(pkg: string, feature: string): void {
  try {
    requireFromHere.resolve(pkg)
  } catch (error) {
    const name = missingPackage(error)
    if (name === pkg) throw new MissingDependencyError(pkg, feature, { cause: error })
    throw error
  }
}

/**
 * The package a failed `require` or `import` could not find, or null when it failed otherwise
 * (a package that is installed but broken is not reported as missing).
 *
 * @example missingPackage(await import('fastify').catch((e) => e)) // 'fastify' when it is not installed
 */
export function missingPackage(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return null
  const match = /^Cannot find (?:module|package) '((?:@[^/']+\/)?[^/'.][^/']*)/.exec((error as Error).message)
  return match?.[1] ?? null
}
