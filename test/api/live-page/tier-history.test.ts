import { describe, expect, it } from 'vitest'
import { resolveCalibratedConfig } from '../../../src/core/calibrated/calibrated-config.js'
import { resolveConfig } from '../../../src/core/config.js'
import { TierHistory } from '../../../src/api/live-page/tier-history.js'
import { MemoryStore } from '../../../src/ledger/memory-store.js'
import { EstimateFeed } from '../../../src/service/estimate-feed.js'
import { ChainBuilder } from '../../helpers/chain-builder.js'

describe('TierHistory (the live page’s tier chart data)', () => {
  it('holds one entry per published block, heights ascending and unique, at most its capacity, u64 exact', async () => {
    const store = new MemoryStore()
    const chain = new ChainBuilder()
    const feed = new EstimateFeed(store, resolveConfig({}), { mode: 'aptos', calibrated: resolveCalibratedConfig({}), depth: 8 })
    const tiers = new TierHistory(feed, 5)
    expect(tiers.json()).toBe('[]')
    for (const b of chain.blocks(12, (i) => [{ sender: 1, gas_unit_price: 100 + i }])) store.appendBlock(b)
    await feed.syncTo((await store.ledgerInfo())!)
    const first = JSON.parse(tiers.json()) as { block_height: string; aptos: Record<string, number>; calibrated: Record<string, number> }[]
    expect(first.map((e) => e.block_height)).toEqual(['7', '8', '9', '10', '11'])
    expect(Object.keys(first[4]!.calibrated)).toEqual(['deprioritized_gas_estimate', 'gas_estimate', 'prioritized_gas_estimate'])
    expect(first[4]!.aptos).toEqual(JSON.parse(JSON.stringify(feed.both.aptos)))
    await feed.append(chain.block({ users: [{ sender: 2, gas_unit_price: 150 }] }))
    expect((JSON.parse(tiers.json()) as { block_height: string }[]).map((e) => e.block_height)).toEqual(['8', '9', '10', '11', '12'])
  })
})
