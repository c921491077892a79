import { describe, expect, it } from 'vitest'
import { LedgerGasError } from '../../src/core/errors.js'
import { MissingDependencyError, missingPackage, requirePeer } from '../../src/ledger/optional-peer.js'

describe('optional peers, loaded on use', () => {
  it('requirePeer returns an installed package', () => {
    const pg = requirePeer<{ Client: unknown }>('pg', 'a PostgreSQL ledger')
    expect(typeof pg.Client).toBe('function')
  })

  it('a package that is not installed is MissingDependencyError, naming it and how to install it', () => {
    let error: unknown
    try {
      requirePeer('ledger-gas-no-such-package', 'a test feature')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(MissingDependencyError)
    expect(error).toBeInstanceOf(LedgerGasError)
    expect(error).toMatchObject({ code: 'missing_dependency', package: 'ledger-gas-no-such-package', message: 'a test feature needs the package ledger-gas-no-such-package, which is not installed (npm install ledger-gas-no-such-package)' })
    expect((error as Error).cause).toBeDefined()
  })

  it('missingPackage reads the package from require and import failures, scoped names included, and nothing else', async () => {
    expect(missingPackage(await import('ledger-gas-no-such-package' as string).catch((e: unknown) => e))).toBe('ledger-gas-no-such-package')
    expect(missingPackage(Object.assign(new Error("Cannot find package '@scope/pkg' imported from /x.js"), { code: 'ERR_MODULE_NOT_FOUND' }))).toBe('@scope/pkg')
    expect(missingPackage(Object.assign(new Error("Cannot find module 'pg/lib/x'"), { code: 'MODULE_NOT_FOUND' }))).toBe('pg')
    expect(missingPackage(Object.assign(new Error("Cannot find module './local.js'"), { code: 'MODULE_NOT_FOUND' }))).toBeNull()
    expect(missingPackage(new Error('boom'))).toBeNull()
    expect(missingPackage(undefined)).toBeNull()
  })
})
