import { describe, expect, it } from 'vitest'
import * as core from '../src/core/index.js'
import * as root from '../src/index.js'

// The public surface changes only on purpose: update these lists in the same commit as the API.
describe('public exports', () => {
  it('ledger-gas/core', () => {
    expect(Object.keys(core).sort()).toEqual([
      'DEFAULT_BUCKETS',
      'DEFAULT_CONFIG',
      'Estimator',
      'FULLNESS_REASONS',
      'InvalidBlockError',
      'InvalidConfigError',
      'LedgerGasError',
      'MAX_BLOCK_HISTORY',
      'SORTED_WINDOW_MAX',
      'SlidingWindow',
      'U64_MAX',
      'addU64',
      'createEstimator',
      'createWindow',
      'gasEstimateToJson',
      'maxU64',
      'nextBucket',
      'parseU64',
      'priceBlock',
      'resolveConfig',
      'stringifyExact',
      'toU64',
      'u64ToBigInt',
    ])
  })
  it('ledger-gas (core plus the ledger parsing)', () => {
    expect(Object.keys(root).sort()).toEqual(
      [...Object.keys(core), 'InvalidDataError', 'LedgerContinuityError', 'isSpecialAddress', 'parseAddress', 'parseBlockJson', 'readBlocks', 'readLines', 'toBlockInput', 'toShortAddress'].sort(),
    )
  })
})
