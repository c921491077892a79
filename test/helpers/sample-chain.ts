import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createCalibratedEstimator, createEstimator, gasEstimateToJson, type CalibratedConfigInput, type EstimatorConfigInput } from '../../src/core/index.js'
import { parseBlockJson } from '../../src/ledger/store/parse-block.js'
import type { BlockJson } from '../../src/ledger/store/types.js'

const CHAIN = fileURLToPath(new URL('../../data/chain.jsonl', import.meta.url))
let lines: string[] | undefined

/**
 * Blocks `from..to` (inclusive) of the sample chain (heights 1–2000, epochs of 400 blocks;
 * congested stretches at 609–642, 1421–1448, 1527–1626 and 1863–1884 and a sustained one at
 * 564–575 move the estimate, a surge at 981 brings 300-txn blocks). Each call parses fresh
 * objects, so a test may not change another's.
 */
export function sampleBlocks(from: number, to: number): BlockJson[] {
  lines ??= readFileSync(CHAIN, 'utf8').split('\n')
  return lines.slice(from - 1, to).map((l) => JSON.parse(l) as BlockJson)
}

/**
 * The engine's estimate after each block of `blocks`, fed in order from the first: the plain
 * reference a follower's updates are checked against (by height, as the wire JSON).
 */
export function estimatesByHeight(blocks: readonly BlockJson[], config: EstimatorConfigInput = {}): Map<string, string> {
  const e = createEstimator(config)
  const out = new Map<string, string>()
  for (const b of blocks) {
    e.ingest(parseBlockJson(b))
    out.set(b.block_height, gasEstimateToJson(e.estimate()))
  }
  return out
}

/** `estimatesByHeight` for the calibrated estimator: its estimate after each block, fed in order from the first. */
export function calibratedByHeight(blocks: readonly BlockJson[], config: EstimatorConfigInput = {}, calibrated: CalibratedConfigInput = {}): Map<string, string> {
  const e = createCalibratedEstimator(config, calibrated)
  const out = new Map<string, string>()
  for (const b of blocks) {
    e.ingest(parseBlockJson(b))
    out.set(b.block_height, gasEstimateToJson(e.estimate()))
  }
  return out
}
