import { describe, it } from 'vitest'
import { REQUESTS } from './hostile/harness.js'
import { runHostile } from './hostile/run.js'

const LAW = 'each answered 200/400/404/410/414 as the oracle says, with the spec error object, a clean message and the ledger headers; a valid request after each is unchanged; Object.prototype untouched'

describe('hostile input (inject): estimate, blocks, ledger info', () => {
  it(`${REQUESTS} hostile GET /v1/estimate_gas_price targets: ${LAW}`, { timeout: 120_000 }, async () => {
    await runHostile('estimate')
  })

  it(`${REQUESTS} hostile GET /v1/blocks/by_height/{h} targets: ${LAW}`, { timeout: 120_000 }, async () => {
    await runHostile('blocks')
  })

  it(`${REQUESTS} hostile GET /v1 targets: ${LAW}`, { timeout: 120_000 }, async () => {
    await runHostile('ledger')
  })
})
