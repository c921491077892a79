import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SqliteStore } from '../../src/ledger/sqlite-store.js'
import { describeStoreContract } from './store-contract.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-sqlite-'))
let n = 0
const dbPath = () => join(dir, `ledger-${n++}.db`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describeStoreContract('SqliteStore', (options) => SqliteStore.open(dbPath(), options))
