import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { MemoryStore } from '../ledger/memory-store.js'
import { generateChain } from '../sim/generate-chain.js'
import { SAMPLE_CHAIN } from '../sim/sample-chain.js'

/** A ledger and a description of where it came from, for the line `serve` prints. */
export interface SampleLedger {
  store: MemoryStore
  source: string
}

/**
 * The ledger `serve` answers from when given neither `--data` nor `--db`: the sample chain,
 * loaded from `<root>/data/chain.jsonl` in a clone, else regenerated in memory from its seed
 * (`SAMPLE_CHAIN`, ~1 s), since the published package leaves out the 15 MB file. The two give
 * the same blocks: the file was written from the same options.
 */
export async function openSampleLedger(root: string | undefined): Promise<SampleLedger> {
  const file = root === undefined ? undefined : join(root, 'data', 'chain.jsonl')
  if (file !== undefined && existsSync(file)) return { store: await MemoryStore.fromJsonLines(file), source: file }
  const store = new MemoryStore()
  for (const { block } of generateChain(SAMPLE_CHAIN)) store.appendBlock(block)
  const { seed, blocks, scenario } = SAMPLE_CHAIN
  return { store, source: `the sample chain regenerated in memory from seed ${seed} (${blocks} blocks, scenario ${scenario}; no data/chain.jsonl here)` }
}
