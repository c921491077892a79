import { resolveCalibratedConfig, type CalibratedConfig, type CalibratedConfigInput } from '../core/calibrated/calibrated-config.js'
import { resolveConfig, type EstimatorConfig, type EstimatorConfigInput } from '../core/config.js'
import { InvalidConfigError } from '../core/errors.js'
import { resolveRetryPolicy, type RetryPolicy } from './backoff.js'
import type { EstimateUpdate, FollowEvent } from './events.js'
import { DEFAULT_HEADER_PREFIXES } from './ledger-info.js'
import { NodeClient, type RetryEvent } from './node-client.js'
import { sleep, type Sleep } from './sleep.js'

/**
 * Which estimator a follower runs: `aptos`, the node's own algorithm, or `calibrated`, whose
 * tiers each promise inclusion within k blocks with probability q (`CalibratedEstimator`).
 */
export type FollowMode = 'aptos' | 'calibrated'

const MODES: readonly FollowMode[] = ['aptos', 'calibrated']

/** Options of `followNode`. Only `url` is required. `M` is the mode, so the follower's `explain()` and `history()` have its types. */
export interface FollowOptions<M extends FollowMode = 'aptos'> {
  /** The node's API base, `/v1` included: `https://fullnode.mainnet.aptoslabs.com/v1`. */
  url: string
  /**
   * Estimator configuration (Aptos key names); use the node's to get the node's numbers. In
   * `calibrated` mode it sets block pricing and the floor (`full_block_txns`, `min_gas_unit_price`, …).
   */
  config?: EstimatorConfigInput | EstimatorConfig
  /** The estimator to run. Default `aptos`. */
  mode?: M | undefined
  /** Promises, window and learning rate of the `calibrated` mode (ignored in `aptos` mode); defaults as `DEFAULT_CALIBRATED_CONFIG`. */
  calibrated?: CalibratedConfigInput | CalibratedConfig | undefined
  /** Aborting it stops the follower: requests and waits end, `done` resolves. */
  signal?: AbortSignal
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Wait between polls of `GET {url}/` once caught up. Default 1000. */
  intervalMs?: number
  /** Called with each new estimate: once when the backfill is done, then once per new block. */
  onEstimate?: (update: EstimateUpdate) => void
  /** Called for retries, skipped blocks, epoch changes and the like (see `formatFollowEvent`). */
  onEvent?: (event: FollowEvent) => void
  /** Retry bounds and backoff; see `DEFAULT_RETRY_POLICY`. */
  retry?: Partial<RetryPolicy>
  /** Per-request timeout, body included. Default 10000. */
  timeoutMs?: number
  /** Blocks requested at once while catching up (ingested in order regardless). Default 4. */
  concurrency?: number
  /**
   * Blocks read before the first estimate, and the most the follower catches up block by block.
   * Default `aggressive_block_history + 1` (`aptos`), the calibrated `window` (`calibrated`). A
   * smaller value bounds the startup; the calibrated windows then fill as the chain grows.
   */
  backfillBlocks?: number | undefined
  /** `limit` of each `/transactions` page when a block comes short. Default 100 (the Aptos maximum). */
  pageSize?: number
  /** Complete short blocks through `GET /transactions`; `false` makes a short block an error. Default `true`. */
  pageTransactions?: boolean
  /** Ledger header prefixes to read, case-insensitive. Default `['X-APTOS-', 'X-NODE-']`. */
  headerPrefixes?: readonly string[] | undefined
  /** Test seams: the wait between retries and polls, jitter, and the clock for HTTP-date `Retry-After`. */
  sleep?: Sleep
  random?: () => number
  now?: () => number
}

/** `FollowOptions` with every default applied and every value checked. */
export interface ResolvedFollowOptions {
  url: string
  config: EstimatorConfig
  mode: FollowMode
  calibrated: CalibratedConfig
  fetch: typeof fetch
  intervalMs: number
  onEstimate: (update: EstimateUpdate) => void
  onEvent: (event: FollowEvent) => void
  retry: RetryPolicy
  timeoutMs: number
  concurrency: number
  backfillBlocks: number
  pageSize: number
  pageTransactions: boolean
  headerPrefixes: readonly string[]
  sleep: Sleep
  random: () => number
  now: () => number
}

function count(key: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback
  if (!Number.isInteger(v) || v < min || v > max) throw new InvalidConfigError(key, `must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`)
  return v
}

function checkUrl(url: unknown): string {
  let parsed: URL | undefined
  try {
    parsed = new URL(String(url))
  } catch {
    parsed = undefined
  }
  if (typeof url !== 'string' || parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new InvalidConfigError('url', `must be an http(s) URL of the node's API, e.g. http://127.0.0.1:8080/v1, got ${JSON.stringify(url)}`)
  }
  return url
}

/**
 * Applies the defaults of `followNode`'s options and checks them.
 *
 * @throws InvalidConfigError naming the option (or estimator config key) at fault.
 * @example resolveFollowOptions({ url: 'http://127.0.0.1:8080/v1' }).backfillBlocks // 121
 */
export function resolveFollowOptions(o: FollowOptions<FollowMode>): ResolvedFollowOptions {
  const url = checkUrl(o.url)
  const config = resolveConfig((o.config ?? {}) as EstimatorConfigInput)
  const mode = o.mode ?? 'aptos'
  if (!MODES.includes(mode)) throw new InvalidConfigError('mode', `must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`)
  const calibrated = resolveCalibratedConfig((o.calibrated ?? {}) as CalibratedConfigInput)
  const span = mode === 'calibrated' ? calibrated.window : config.aggressive_block_history + 1
  return {
    url,
    config,
    mode,
    calibrated,
    fetch: o.fetch ?? globalThis.fetch,
    intervalMs: count('intervalMs', o.intervalMs, 1000, 0, 86_400_000),
    onEstimate: o.onEstimate ?? (() => {}),
    onEvent: o.onEvent ?? (() => {}),
    retry: resolveRetryPolicy(o.retry),
    timeoutMs: count('timeoutMs', o.timeoutMs, 10_000, 1, 3_600_000),
    concurrency: count('concurrency', o.concurrency, 4, 1, 64),
    backfillBlocks: count('backfillBlocks', o.backfillBlocks, span, 1, 10_000_000),
    pageSize: count('pageSize', o.pageSize, 100, 1, 10_000),
    pageTransactions: o.pageTransactions ?? true,
    headerPrefixes: o.headerPrefixes ?? DEFAULT_HEADER_PREFIXES,
    sleep: o.sleep ?? sleep,
    random: o.random ?? Math.random,
    now: o.now ?? Date.now,
  }
}

/** The HTTP client a follower or a node ingest uses, made from its resolved options. */
export function nodeClientOf(o: ResolvedFollowOptions, signal: AbortSignal, onRetry: (event: RetryEvent) => void): NodeClient {
  return new NodeClient({
    baseUrl: o.url,
    fetch: o.fetch,
    signal,
    retry: o.retry,
    timeoutMs: o.timeoutMs,
    headerPrefixes: o.headerPrefixes,
    sleep: o.sleep,
    random: o.random,
    now: o.now,
    onRetry,
  })
}
