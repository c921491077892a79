import { describe, expect, it } from 'vitest'
import * as core from '../src/core/index.js'
import * as follow from '../src/follow/index.js'
import * as root from '../src/index.js'
import * as replay from '../src/replay/index.js'
import * as server from '../src/server.js'
import * as sim from '../src/sim/index.js'

// The public surface changes only on purpose: update these lists in the same commit as the API.
describe('public exports', () => {
  it('ledger-gas/core', () => {
    expect(Object.keys(core).sort()).toMatchInlineSnapshot(`
      [
        "APTOS_PERCENTILES",
        "CalibratedEstimator",
        "ConformalQuotes",
        "DEFAULT_BUCKETS",
        "DEFAULT_CALIBRATED_CONFIG",
        "DEFAULT_CONFIG",
        "Estimator",
        "FULLNESS_REASONS",
        "InvalidBlockError",
        "InvalidConfigError",
        "LedgerGasError",
        "MAX_BLOCK_HISTORY",
        "MAX_PROMISE_K",
        "PROMISE_LEARNER_DEFAULTS",
        "PromiseLearner",
        "SORTED_WINDOW_MAX",
        "SlidingWindow",
        "SuffixMin",
        "TXN_KINDS",
        "U64_MAX",
        "UNREACHABLE",
        "addU64",
        "blockRequirement",
        "createCalibratedEstimator",
        "createEstimator",
        "createWindow",
        "cutoffPrice",
        "estimateForKind",
        "expectedWait",
        "gasEstimateToJson",
        "inclusionProbability",
        "kBlockMinima",
        "kindFloor",
        "maxU64",
        "nextBucket",
        "parseU64",
        "percentileRank",
        "priceBlock",
        "priceForInclusion",
        "resolveCalibratedConfig",
        "resolveConfig",
        "stringifyExact",
        "toU64",
        "u64Distance",
        "u64ToBigInt",
      ]
    `)
  })
  it('ledger-gas (core plus the ledger parsing)', () => {
    expect(Object.keys(root).filter((k) => !(k in core)).sort()).toMatchInlineSnapshot(`
      [
        "InvalidDataError",
        "LedgerContinuityError",
        "isSpecialAddress",
        "parseAddress",
        "parseBlockJson",
        "readBlocks",
        "readLines",
        "toBlockInput",
        "toShortAddress",
      ]
    `)
    for (const k of Object.keys(core)) expect(root).toHaveProperty(k)
  })
  it('ledger-gas/server', () => {
    expect(Object.keys(server).sort()).toMatchInlineSnapshot(`
      [
        "ApiError",
        "COMPONENT_SCHEMAS",
        "DEFAULT_CHAIN_ID",
        "ENDPOINTS",
        "ERROR_CODES",
        "ERROR_MAP",
        "LEDGER_HEADER_SUFFIXES",
        "LedgerDatabaseError",
        "LedgerUnavailableError",
        "MemoryStore",
        "PgStore",
        "SqliteStore",
        "createServer",
        "ingestJsonLines",
        "loadJsonLines",
        "toErrorReply",
      ]
    `)
  })
  it('ledger-gas/replay', () => {
    expect(Object.keys(replay).sort()).toMatchInlineSnapshot(`
      [
        "ACI_DEFAULTS",
        "Backtest",
        "DEFAULT_STRATEGIES",
        "DownsampledSeries",
        "GETH_DEFAULTS",
        "InvalidStrategyError",
        "MAX_HEIGHT_GAP",
        "MAX_K",
        "QuantileSketch",
        "STRATEGY_SYNTAX",
        "SWEEP_Q",
        "Scorer",
        "TARGET_DEFAULT_PROMISES",
        "TIERS",
        "createAciStrategy",
        "createAptosStrategy",
        "createGethStrategy",
        "createTargetStrategy",
        "detectFormat",
        "formatTable",
        "openInput",
        "parseStrategies",
        "readCsvBlocks",
        "renderReport",
        "runBacktest",
        "toBacktestJson",
      ]
    `)
  })
  it('ledger-gas/sim', () => {
    expect(Object.keys(sim).sort()).toMatchInlineSnapshot(`
      [
        "CHAIN_DEFAULTS",
        "CONGESTED_SCENARIOS",
        "DEFAULT_LIMITS",
        "EMPTY_EVENT_ROOT_HASH",
        "ORDERLESS_SEQUENCE_NUMBER",
        "REGIMES",
        "REGIME_PROFILES",
        "SAMPLE_CHAIN",
        "SCENARIOS",
        "chainLines",
        "createRng",
        "demandAt",
        "generateChain",
        "resolveChainOptions",
        "targetFullShare",
      ]
    `)
  })
  it('ledger-gas/follow', () => {
    expect(Object.keys(follow).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_HEADER_PREFIXES",
        "DEFAULT_RETRY_POLICY",
        "NodeResponseError",
        "NodeUnavailableError",
        "StreamChainError",
        "StreamResponseError",
        "StreamUnavailableError",
        "backoffDelay",
        "followNode",
        "formatFollowEvent",
        "ingestFromNode",
        "ingestFromStream",
        "parseRetryAfter",
      ]
    `)
  })
})
