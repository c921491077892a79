import { DEFAULT_CALIBRATED_CONFIG, MAX_PROMISE_K } from '../../core/calibrated/calibrated-config.js'
import { resolveConfig, type EstimatorConfig } from '../../core/config.js'
import { InvalidConfigError } from '../../core/errors.js'
import { APTOS_PERCENTILES, type WindowPercentiles } from '../../core/estimator.js'
import { ACI_DEFAULTS, createAciStrategy } from './aci-strategy.js'
import { createAptosStrategy } from './aptos-strategy.js'
import { InvalidStrategyError } from '../errors.js'
import { GETH_DEFAULTS, createGethStrategy } from './geth-strategy.js'
import type { Strategy, TierPromise } from './strategy.js'
import { TARGET_DEFAULT_PROMISES, createTargetStrategy } from './target-strategy.js'

/** The strategies compared when none are named. */
export const DEFAULT_STRATEGIES = 'aptos,geth,target'

/** Help text for the `--strategies` syntax (shown by `ledger-gas backtest --help`). */
export const STRATEGY_SYNTAX = `Strategies: a comma-separated list of NAME[:KEY=VALUE]...; each entry is reported under the
entry as written, so the same kind may appear several times with different keys.

  aptos     the engine (the --config file, else Aptos defaults). Keys:
              low=N market=N aggressive=N     window sizes in blocks (*_block_history; 10/30/120)
              low_pct=P market_pct=P aggressive_pct=P
                                              window statistic as a percentile 0..100, rank
                                              floor(len*P/100) (Aptos: 0 = min, 50, 90)
              any scalar config key by its name, e.g. full_block_txns=125, min_gas_unit_price=0,
              block_gas_limit=N, skip_newest_block=false, keep_history_across_epochs=true
  geth      go-ethereum-style oracle: the cheapest price of each of the last N blocks, percentile
            P (floor((n-1)*P/100) of the sorted samples). Keys: blocks=N (20), pct=P (60, all
            tiers), low_pct/market_pct/aggressive_pct=P, empty=last|skip (an empty block repeats
            the previous answer, as geth does; or is left out)
  target    the calibrated estimator: each tier promises inclusion within k blocks with
            probability >= q and learns online to keep it (adaptive conformal inference over the
            recent k-block minimum cutoffs; tiers kept ordered). Keys: low=K/Q market=K/Q
            aggressive=K/Q (defaults 10/0.9, 3/0.9, 1/0.95), k=K and q=Q (set every tier),
            window=N (1000 blocks), lr=G (learning rate, 0.05),
            sweep=true|false (calibration sweep, default true)
  aci       the plain adaptive-conformal baseline (Gibbs & Candès 2021): each tier on its own
            quotes the empirical (1 - alpha) quantile of the recent k-block minimum cutoffs, one
            fixed window and learning rate. Keys: low=K/Q market=K/Q aggressive=K/Q, k=K, q=Q
            (as target), window=N (120 blocks), lr=G (0.005)

  Example: --strategies aptos,aptos:low=5:market=20:aggressive=60,geth,target:k=1:q=0.9`

type Pairs = Map<string, string>

/**
 * Parses a `--strategies` list into strategies ready to ingest (see `STRATEGY_SYNTAX`). `base`
 * is the estimator config the `aptos` entries start from and whose `min_gas_unit_price` the
 * others use as the floor.
 *
 * @throws InvalidStrategyError naming the entry and key; InvalidConfigError for a bad aptos value.
 * @example parseStrategies('aptos,geth:blocks=30', resolveConfig()).map((s) => s.name) // ['aptos', 'geth:blocks=30']
 */
export function parseStrategies(list: string, base: EstimatorConfig): Strategy[] {
  const specs = list.split(',').map((s) => s.trim())
  if (specs.some((s) => s === '')) throw new InvalidStrategyError(list, 'empty entry in the list')
  const seen = new Set<string>()
  return specs.map((spec) => {
    if (seen.has(spec)) throw new InvalidStrategyError(spec, 'listed twice')
    seen.add(spec)
    const [kind, ...rest] = spec.split(':')
    const pairs: Pairs = new Map()
    for (const item of rest) {
      const eq = item.indexOf('=')
      if (eq <= 0) throw new InvalidStrategyError(spec, `expected KEY=VALUE, got '${item}'`)
      const key = item.slice(0, eq)
      if (pairs.has(key)) throw new InvalidStrategyError(spec, `key '${key}' given twice`)
      pairs.set(key, item.slice(eq + 1))
    }
    switch (kind) {
      case 'aptos':
        return aptos(spec, pairs, base)
      case 'geth':
        return geth(spec, pairs, base)
      case 'target':
        return target(spec, pairs, base)
      case 'aci':
        return aci(spec, pairs, base)
      default:
        throw new InvalidStrategyError(spec, `unknown strategy '${kind}' (known: aptos, geth, target, aci)`)
    }
  })
}

const WINDOW_KEYS: Record<string, keyof EstimatorConfig> = { low: 'low_block_history', market: 'market_block_history', aggressive: 'aggressive_block_history' }
const SCALAR_KEYS = new Set(['enabled', 'full_block_txns', 'low_block_history', 'market_block_history', 'aggressive_block_history', 'min_gas_unit_price', 'block_gas_limit', 'incorporate_reordering_effects', 'skip_newest_block', 'keep_history_across_epochs', 'apply_block_end_info'])

function aptos(spec: string, pairs: Pairs, base: EstimatorConfig): Strategy {
  const overrides: Record<string, unknown> = {}
  const pct: WindowPercentiles = { ...APTOS_PERCENTILES }
  for (const [key, value] of pairs) {
    if (key === 'low_pct' || key === 'market_pct' || key === 'aggressive_pct') {
      pct[key.slice(0, -4) as keyof WindowPercentiles] = integer(spec, key, value, 0, 100)
      continue
    }
    const name = WINDOW_KEYS[key] ?? key
    if (!SCALAR_KEYS.has(name)) throw new InvalidStrategyError(spec, `unknown key '${key}' for aptos`)
    if (name in overrides) throw new InvalidStrategyError(spec, `'${key}' sets ${name} a second time`)
    overrides[name] = scalar(value)
  }
  let config: EstimatorConfig
  try {
    config = resolveConfig({ ...base, ...overrides } as never)
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new InvalidStrategyError(spec, error.message)
    throw error
  }
  return createAptosStrategy(spec, config, pct)
}

function geth(spec: string, pairs: Pairs, base: EstimatorConfig): Strategy {
  let blocks: number = GETH_DEFAULTS.blocks
  let all: number = GETH_DEFAULTS.percentile
  const per: Partial<Record<'low' | 'market' | 'aggressive', number>> = {}
  let empty: 'last' | 'skip' = GETH_DEFAULTS.empty
  for (const [key, value] of pairs) {
    if (key === 'blocks') blocks = integer(spec, key, value, 1, 1_000_000)
    else if (key === 'pct') all = integer(spec, key, value, 0, 100)
    else if (key === 'low_pct' || key === 'market_pct' || key === 'aggressive_pct') per[key.slice(0, -4) as 'low'] = integer(spec, key, value, 0, 100)
    else if (key === 'empty') {
      if (value !== 'last' && value !== 'skip') throw new InvalidStrategyError(spec, `empty must be 'last' or 'skip', got '${value}'`)
      empty = value
    } else throw new InvalidStrategyError(spec, `unknown key '${key}' for geth`)
  }
  return createGethStrategy(spec, {
    blocks,
    percentiles: { low: per.low ?? all, market: per.market ?? all, aggressive: per.aggressive ?? all },
    empty,
    min_gas_unit_price: base.min_gas_unit_price,
  })
}

/** The keys `target` and `aci` share: the tiers' promises, the window and the learning rate. */
interface ConformalKeys {
  promises: [TierPromise, TierPromise, TierPromise]
  window: number
  learning_rate: number
}

function conformalKeys(spec: string, pairs: Pairs, defaults: { window: number; learning_rate: number }, extra: (key: string, value: string) => boolean): ConformalKeys {
  let window = defaults.window
  let learning_rate = defaults.learning_rate
  let k: number | null = null
  let q: number | null = null
  const per: Partial<Record<'low' | 'market' | 'aggressive', TierPromise>> = {}
  for (const [key, value] of pairs) {
    if (key === 'window') window = integer(spec, key, value, 1, 1_000_000)
    else if (key === 'lr') learning_rate = rate(spec, key, value)
    else if (key === 'k') k = integer(spec, key, value, 1, MAX_PROMISE_K)
    else if (key === 'q') q = probability(spec, key, value)
    else if (key === 'low' || key === 'market' || key === 'aggressive') {
      const m = /^([0-9]+)\/(.+)$/.exec(value)
      if (m === null) throw new InvalidStrategyError(spec, `${key} must be K/Q (e.g. ${key}=3/0.9), got '${value}'`)
      per[key] = { k: integer(spec, `${key} (k)`, m[1] as string, 1, MAX_PROMISE_K), q: probability(spec, `${key} (q)`, m[2] as string) }
    } else if (!extra(key, value)) throw new InvalidStrategyError(spec, `unknown key '${key}' for ${spec.split(':')[0]}`)
  }
  const tier = (name: 'low' | 'market' | 'aggressive', i: number): TierPromise => {
    const d = TARGET_DEFAULT_PROMISES[i] as TierPromise
    return per[name] ?? { k: k ?? d.k, q: q ?? d.q }
  }
  return { promises: [tier('low', 0), tier('market', 1), tier('aggressive', 2)], window, learning_rate }
}

function target(spec: string, pairs: Pairs, base: EstimatorConfig): Strategy {
  let sweep = true
  const c = conformalKeys(spec, pairs, DEFAULT_CALIBRATED_CONFIG, (key, value) => {
    if (key !== 'sweep') return false
    if (value !== 'true' && value !== 'false') throw new InvalidStrategyError(spec, `sweep must be true or false, got '${value}'`)
    sweep = value === 'true'
    return true
  })
  const [deprioritized, regular, prioritized] = c.promises
  return createTargetStrategy(spec, {
    config: base,
    calibrated: { deprioritized, regular, prioritized, window: c.window, learning_rate: c.learning_rate },
    sweep,
  })
}

function aci(spec: string, pairs: Pairs, base: EstimatorConfig): Strategy {
  const c = conformalKeys(spec, pairs, ACI_DEFAULTS, () => false)
  return createAciStrategy(spec, { promises: c.promises, window: c.window, learning_rate: c.learning_rate, min_gas_unit_price: base.min_gas_unit_price })
}

function integer(spec: string, key: string, value: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidStrategyError(spec, `${key} must be an integer from ${min} to ${max}, got '${value}'`)
  }
  return Number(value)
}

function probability(spec: string, key: string, value: string): number {
  const n = Number(value)
  if (!/^(0?\.[0-9]+)$/.test(value) || !(n > 0 && n < 1)) {
    throw new InvalidStrategyError(spec, `${key} must be a probability strictly between 0 and 1, got '${value}'`)
  }
  return n
}

function rate(spec: string, key: string, value: string): number {
  const n = Number(value)
  if (!/^(0?\.[0-9]+|1(\.0+)?)$/.test(value) || !(n > 0 && n <= 1)) {
    throw new InvalidStrategyError(spec, `${key} must be a number in (0, 1], got '${value}'`)
  }
  return n
}

/** A command-line value as the config expects it: booleans, integers (u64 as decimal strings), else the string. */
function scalar(value: string): unknown {
  if (value === 'true') return true
  if (value === 'false') return false
  if (value === 'null') return null
  if (/^[0-9]+$/.test(value)) return Number.isSafeInteger(Number(value)) ? Number(value) : value
  return value
}
