import { describe, it } from 'vitest'
import { REQUESTS } from './hostile/harness.js'
import { runHostile } from './hostile/run.js'

const LAW = 'each answered 200/400/404/410/414 as the oracle says, with the spec error object, a clean message and the ledger headers; a valid request after each is unchanged; Object.prototype untouched'

describe('hostile input (inject): transactions', () => {
  it(`${REQUESTS} hostile GET /v1/transactions/by_version/{v} targets: ${LAW}`, { timeout: 120_000 }, async () => {
    await runHostile('by_version')
  })

  it(`${REQUESTS} hostile GET /v1/accounts/{a}/transactions targets: ${LAW}`, { timeout: 120_000 }, async () => {
    await runHostile('accounts')
  })
})
