import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSampleLedger } from '../../src/cli/sample-ledger.js'
import { SAMPLE_CHAIN } from '../../src/sim/sample-chain.js'

const root = join(import.meta.dirname, '../..')
const empty = mkdtempSync(join(tmpdir(), 'ledger-gas-no-data-'))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

const REGENERATED = new RegExp(`^the sample chain regenerated in memory from seed ${SAMPLE_CHAIN.seed} \\(${SAMPLE_CHAIN.blocks} blocks, scenario ${SAMPLE_CHAIN.scenario}`)

describe('the sample ledger serve falls back to', () => {
  it('in a clone, it is data/chain.jsonl; without the file, the chain regenerated from its seed answers byte for byte as the file does', { timeout: 60_000 }, async () => {
    const fromFile = await openSampleLedger(root)
    expect(fromFile.source).toBe(join(root, 'data', 'chain.jsonl'))
    const regenerated = await openSampleLedger(empty)
    expect(regenerated.source).toMatch(REGENERATED)
    expect(fromFile.store.ledgerInfo()).toMatchObject({ oldest_block_height: 1, block_height: 2000 })
    expect(regenerated.store.ledgerInfo()).toEqual(fromFile.store.ledgerInfo())
    // As the server writes them: every block with its transactions.
    for (let h = 1; h <= 2000; h++) {
      expect(JSON.stringify(regenerated.store.blockByHeight(h, true))).toBe(JSON.stringify(fromFile.store.blockByHeight(h, true)))
    }
  })

  it('with no package root at all, the chain is regenerated too', { timeout: 60_000 }, async () => {
    const { source, store } = await openSampleLedger(undefined)
    expect(source).toMatch(REGENERATED)
    expect(store.ledgerInfo()).toMatchObject({ oldest_block_height: 1, block_height: 2000 })
  })
})
