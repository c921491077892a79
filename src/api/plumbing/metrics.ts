import type { Counter, Gauge, Registry } from 'prom-client'
import { requirePeer, resolvePeer } from '../../ledger/optional-peer.js'
import type { GasEstimate } from '../../core/wire.js'
import type { LedgerInfo } from '../../ledger/store/store.js'
import type { EstimateFeed } from '../../service/estimate-feed.js'
import { CountingHistogram, type HistogramSeries } from './histogram.js'
import type { ReadinessSource } from './readiness.js'

/** Latency buckets (s): the Aptos node's `SUB_MS_BUCKETS` (api/src/metrics.rs). */
export const LATENCY_BUCKETS: readonly number[] = Object.freeze([0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.125, 0.15, 0.2, 0.25, 0.5, 1, 2.5, 5, 10])

/** Gas price buckets (octas per gas unit): 1-2-5 steps from the usual floor (100) to 10^8. */
export const GAS_PRICE_BUCKETS: readonly number[] = Object.freeze(
  Array.from({ length: 7 }, (_, e) => [1, 2, 5].map((m) => m * 100 * 10 ** e)).flat().concat([1e9]),
)

/** The Aptos node's `level` label values of `aptos_api_gas_estimate`, in tier order. */
export const GAS_LEVELS = ['deprioritized', 'current', 'prioritized'] as const

/** Operation id label of requests no route matched. */
export const NOT_FOUND_OPERATION = 'route_not_found'

const TIER_KEYS = ['deprioritized_gas_estimate', 'gas_estimate', 'prioritized_gas_estimate'] as const

/** What prom-client is needed for, in `MissingDependencyError`'s message. */
const PROM_FEATURE = "the server's metrics (GET /metrics)"

/** Records one route's requests: its series are found once per (method, status) and kept. */
export class RouteRecorder {
  private readonly byMethod = new Map<string, Map<number, [HistogramSeries, HistogramSeries]>>()
  /** The last (method, status) recorded and its series: a polled route answers the same again and again. */
  private lastMethod = ''
  private lastStatus = 0
  private lastPair: [HistogramSeries, HistogramSeries] | undefined

  constructor(
    private readonly metrics: ServerMetrics,
    readonly operationId: string,
  ) {}

  /** Counts a request answered with `status` after `seconds`. O(log buckets), no allocation once its series exist. */
  record(method: string, status: number, seconds: number): void {
    let pair = this.lastPair
    if (pair === undefined || method !== this.lastMethod || status !== this.lastStatus) {
      let byStatus = this.byMethod.get(method)
      if (byStatus === undefined) this.byMethod.set(method, (byStatus = new Map()))
      pair = byStatus.get(status)
      if (pair === undefined) byStatus.set(status, (pair = [this.metrics.requests.series([method, this.operationId, String(status)]), this.metrics.statusSeries(status)]))
      this.lastMethod = method
      this.lastStatus = status
      this.lastPair = pair
    }
    const slot = pair[0].slotOf(seconds)
    pair[0].observeAt(slot, seconds)
    pair[1].observeAt(slot, seconds)
  }
}

/**
 * Counts the estimates served by `GET /v1/estimate_gas_price` into `aptos_api_gas_estimate`, as
 * the node does on each call. The buckets of the current estimate are found once per new
 * estimate (`json` changes once per block), so a request costs three additions per level.
 */
export class GasEstimateRecorder {
  private readonly series: HistogramSeries[]
  private json = ''
  private readonly slots = [0, 0, 0]
  private readonly values = [0, 0, 0]

  constructor(histogram: CountingHistogram) {
    this.series = GAS_LEVELS.map((level) => histogram.series([level]))
  }

  /** Counts one served estimate; `json` is its wire form, `estimate` its value. */
  record(json: string, estimate: GasEstimate): void {
    if (json !== this.json) {
      this.json = json
      for (let i = 0; i < 3; i++) {
        const v = Number(estimate[TIER_KEYS[i] as (typeof TIER_KEYS)[number]])
        this.values[i] = v
        this.slots[i] = (this.series[i] as HistogramSeries).slotOf(v)
      }
    }
    for (let i = 0; i < 3; i++) (this.series[i] as HistogramSeries).observeAt(this.slots[i] as number, this.values[i] as number)
  }
}

/** Where the gauges read from at scrape time. */
export interface MetricSources {
  feed: EstimateFeed
  /** The follower's readiness, when a follower feeds the ledger: its errors are counted. */
  readiness?: ReadinessSource | undefined
}

/** prom-client's module. */
type PromClient = typeof import('prom-client')

/** What needs prom-client: made on first use (`ServerMetrics.registry`), so a server starts without loading it. */
interface PromMetrics {
  registry: Registry
  ledger: Record<'version' | 'height' | 'oldest' | 'timestamp', Gauge>
  estimates: Gauge<'estimator' | 'level'>
  estimateHeight: Gauge
  skipped: Gauge
  streamDropped: Counter
  streamEvents: Counter
  connectionsClosed: Counter<'reason'>
}

/** What `ServerMetrics` counts before prom-client is loaded, then hands to its counters. */
interface EarlyCounts {
  streamDropped: number
  streamEvents: number
  connectionsClosed: number
}

/**
 * The server's Prometheus metrics, in a `Registry` of its own (two servers in one process do
 * not share counts). Names follow the Aptos node's where it has one (`aptos_api_requests`,
 * `aptos_api_response_status`, `aptos_api_gas_estimate`, `aptos_storage_ledger_version`);
 * the rest are `ledger_gas_*`. Labels are bounded: operation ids, HTTP methods, status codes,
 * levels, estimator names; never a raw path.
 *
 * prom-client (with the OpenTelemetry API its default metrics load: a hundred-odd modules, a
 * tenth of a cold server's module loading) is loaded on first use: the first scrape, or the
 * first read of `registry` or a counter. The request path records into histograms of its own
 * (`CountingHistogram`), and the server counts its events (`countStreamDrop`, …) in numbers
 * until the counters exist, so no request waits for it. The default metrics (`process_*`,
 * `nodejs_*`) are collected from then on: event-loop lag and GC durations cover the time since
 * the first scrape.
 */
export class ServerMetrics {
  /** `aptos_api_requests{method, operation_id, status}`: latency (s) of every answered request. */
  readonly requests = new CountingHistogram('aptos_api_requests', 'API requests latency grouped by method, operation_id and status', ['method', 'operation_id', 'status'], LATENCY_BUCKETS)
  /** `aptos_api_response_status{status}`: latency (s) by status alone. */
  readonly statuses = new CountingHistogram('aptos_api_response_status', 'API requests latency grouped by status code only', ['status'], LATENCY_BUCKETS)
  /** `aptos_api_gas_estimate{level}`: the estimates served by `GET /v1/estimate_gas_price`. */
  readonly gasServed = new CountingHistogram('aptos_api_gas_estimate', 'API gas estimate returned as part of API calls', ['level'], GAS_PRICE_BUCKETS)
  readonly gasRecorder: GasEstimateRecorder
  private readonly statusByCode = new Map<number, HistogramSeries>()
  #prom: PromMetrics | undefined
  /** Counts made before `#prom` exists; `undefined` once they are in its counters. */
  #early: EarlyCounts | undefined = { streamDropped: 0, streamEvents: 0, connectionsClosed: 0 }

  /**
   * @throws MissingDependencyError when prom-client is not installed: the server is refused at
   *   start rather than at its first scrape.
   */
  constructor(
    private readonly sources: MetricSources,
    private readonly gauges: { streamClients: () => number; waitingRequests: () => number; pausedConnections: () => number },
  ) {
    resolvePeer('prom-client', PROM_FEATURE)
    this.gasRecorder = new GasEstimateRecorder(this.gasServed)
  }

  /** The registry every metric is in (loads prom-client on first use). */
  get registry(): Registry {
    return this.#metrics().registry
  }

  /** SSE clients dropped because they did not keep up (loads prom-client on first use; the server counts with `countStreamDrop`). */
  get streamDropped(): Counter {
    return this.#metrics().streamDropped
  }

  /** SSE `estimate` events written (loads prom-client on first use; the server counts with `countStreamEvents`). */
  get streamEvents(): Counter {
    return this.#metrics().streamEvents
  }

  /** Connections closed because a client pipelined past the per-connection budget (loads prom-client on first use; the server counts with `countConnectionClosed`). */
  get connectionsClosed(): Counter<'reason'> {
    return this.#metrics().connectionsClosed
  }

  /** Counts an SSE client dropped because it did not keep up. */
  countStreamDrop(): void {
    if (this.#early !== undefined) this.#early.streamDropped++
    else this.streamDropped.inc()
  }

  /** Counts `events` SSE `estimate` events written. */
  countStreamEvents(events: number): void {
    if (this.#early !== undefined) this.#early.streamEvents += events
    else this.streamEvents.inc(events)
  }

  /** Counts a connection closed because its client pipelined past the per-connection budget. */
  countConnectionClosed(): void {
    if (this.#early !== undefined) this.#early.connectionsClosed++
    else this.connectionsClosed.inc({ reason: 'pipelining' })
  }

  /** The prom-client metrics, registered (in the order the export lists them) on first call. */
  #metrics(): PromMetrics {
    if (this.#prom !== undefined) return this.#prom
    const { collectDefaultMetrics, Counter, Gauge, Registry } = requirePeer<PromClient>('prom-client', PROM_FEATURE)
    const registry = new Registry()
    const registers = [registry]
    const { gauges, sources } = this
    this.requests.registerIn(registry)
    this.statuses.registerIn(registry)
    this.gasServed.registerIn(registry)
    const ledger = {
      version: new Gauge({ name: 'aptos_storage_ledger_version', help: 'Version in the latest saved ledger info.', registers }),
      height: new Gauge({ name: 'ledger_gas_block_height', help: 'Height of the newest block of the ledger.', registers }),
      oldest: new Gauge({ name: 'ledger_gas_oldest_block_height', help: 'Height of the oldest retained block.', registers }),
      timestamp: new Gauge({ name: 'ledger_gas_ledger_timestamp_seconds', help: 'Chain timestamp of the newest block (Unix seconds).', registers }),
    }
    const estimates = new Gauge({ name: 'ledger_gas_estimate', help: 'Current gas unit price estimate of each estimator and level.', labelNames: ['estimator', 'level'], registers })
    const estimateHeight = new Gauge({ name: 'ledger_gas_estimate_block_height', help: 'Height of the newest block the estimators have ingested (ingest progress; compare with ledger_gas_block_height).', registers })
    const skipped = new Gauge({ name: 'ledger_gas_blocks_skipped', help: 'Blocks left out of the estimates because the engine could not read them.', registers })
    new Gauge({ name: 'ledger_gas_stream_clients', help: 'Connected /v1/gas/stream clients.', registers, collect() { this.set(gauges.streamClients()) } })
    const streamDropped = new Counter({ name: 'ledger_gas_stream_dropped_total', help: '/v1/gas/stream clients dropped because their buffer was full.', registers })
    const streamEvents = new Counter({ name: 'ledger_gas_stream_events_total', help: '/v1/gas/stream estimate events written (summed over clients).', registers })
    new Gauge({ name: 'ledger_gas_http_waiting_requests', help: 'Pipelined requests parsed but not yet started, over all connections.', registers, collect() { this.set(gauges.waitingRequests()) } })
    new Gauge({ name: 'ledger_gas_http_paused_connections', help: 'Connections the server stopped reading because requests were waiting.', registers, collect() { this.set(gauges.pausedConnections()) } })
    const connectionsClosed = new Counter({ name: 'ledger_gas_http_connections_closed_total', help: 'Connections closed by the server to bound one client\u2019s work.', labelNames: ['reason'], registers })
    const readiness = sources.readiness
    if (readiness !== undefined) {
      new Counter({
        name: 'ledger_gas_follow_errors_total',
        help: 'Errors of the follower that feeds the ledger (each retry of a request to the node, each time following stopped).',
        registers,
        collect() {
          this.reset()
          this.inc(readiness.errors)
        },
      })
    }
    collectDefaultMetrics({ register: registry })
    const early = this.#early as EarlyCounts
    // A counter with a label shows no series until counted, so only counts made are handed over.
    if (early.streamDropped > 0) streamDropped.inc(early.streamDropped)
    if (early.streamEvents > 0) streamEvents.inc(early.streamEvents)
    if (early.connectionsClosed > 0) connectionsClosed.inc({ reason: 'pipelining' }, early.connectionsClosed)
    this.#early = undefined
    this.#prom = { registry, ledger, estimates, estimateHeight, skipped, streamDropped, streamEvents, connectionsClosed }
    return this.#prom
  }

  /** The recorder of one route (or of `NOT_FOUND_OPERATION`). */
  route(operationId: string): RouteRecorder {
    return new RouteRecorder(this, operationId)
  }

  /** The shared `aptos_api_response_status` series of a status. */
  statusSeries(status: number): HistogramSeries {
    let s = this.statusByCode.get(status)
    if (s === undefined) this.statusByCode.set(status, (s = this.statuses.series([String(status)])))
    return s
  }

  /** The Prometheus text of every metric, gauges read now; `info` is the ledger as just read (`null` when unreadable). */
  async text(info: LedgerInfo | null): Promise<string> {
    const m = this.#metrics()
    if (info !== null) {
      m.ledger.version.set(Number(info.ledger_version))
      m.ledger.height.set(Number(info.block_height))
      m.ledger.oldest.set(Number(info.oldest_block_height))
      m.ledger.timestamp.set(Number(info.ledger_timestamp_usec) / 1e6)
    }
    const both = this.sources.feed.both
    for (const [estimator, e] of [['aptos', both.aptos], ['calibrated', both.calibrated]] as const) {
      GAS_LEVELS.forEach((level, i) => m.estimates.set({ estimator, level }, Number(e[TIER_KEYS[i] as (typeof TIER_KEYS)[number]])))
    }
    if (both.height !== null) m.estimateHeight.set(Number(both.height))
    m.skipped.set(this.sources.feed.skipped)
    return m.registry.metrics()
  }
}
