import type { Metric, Registry } from 'prom-client'

/** A value line of the export, as prom-client's registry formats it. */
interface ExportValue {
  metricName: string
  labels: Record<string, string | number>
  value: number
}

/**
 * One labelled series of a `CountingHistogram`: bucket counts (not cumulative; the export sums
 * them), the sum and the count. `observe` allocates nothing.
 */
export class HistogramSeries {
  /** `counts[i]` = observations in (bounds[i-1], bounds[i]]; the last slot is +Inf. */
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  /** The slot of `value`. O(log buckets). */
  slotOf(value: number): number {
    let lo = 0
    let hi = this.bounds.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (value <= (this.bounds[mid] as number)) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  observe(value: number): void {
    this.observeAt(this.slotOf(value), value)
  }

  /** Counts `value` into a slot found before (`slotOf`), for a value observed again and again. */
  observeAt(slot: number, value: number): void {
    this.counts[slot]! += 1
    this.sum += value
    this.count += 1
  }
}

/**
 * A Prometheus histogram for the request path: prom-client's `Histogram` hashes its label object
 * and allocates on every `observe`; here a caller finds its series once (`series(...)`) and
 * keeps it, so an observation is a bucket search and three additions. Registered in a prom-client
 * `Registry` with `registerIn` (it implements the `get()` the registry formats).
 *
 * @example
 * const h = new CountingHistogram('aptos_api_requests', 'latency', ['method', 'operation_id', 'status'], [0.001, 0.01])
 * h.registerIn(registry)
 * const s = h.series(['GET', 'estimate_gas_price', '200']) // once
 * s.observe(0.0004)                                        // per request
 */
export class CountingHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly all = new Map<string, HistogramSeries>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {}

  /** The series of these label values (in `labelNames` order), created on first use. */
  series(values: readonly string[]): HistogramSeries {
    const key = values.join('\u0000')
    let s = this.all.get(key)
    if (s === undefined) {
      const labels: Record<string, string> = {}
      this.labelNames.forEach((n, i) => (labels[n] = values[i] as string))
      s = new HistogramSeries(labels, this.bounds)
      this.all.set(key, s)
    }
    return s
  }

  /** Registers this histogram in `registry` (prom-client's types list only its own metric classes). */
  registerIn(registry: Registry): void {
    registry.registerMetric(this as unknown as Metric)
  }

  /** The export prom-client's registry formats: cumulative `_bucket` lines, `_sum`, `_count`. */
  get(): Promise<{ name: string; help: string; type: string; values: ExportValue[]; aggregator: string }> {
    const values: ExportValue[] = []
    for (const s of this.all.values()) {
      let cumulative = 0
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += s.counts[i] as number
        const le = i < this.bounds.length ? (this.bounds[i] as number) : '+Inf'
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative })
      }
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum })
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count })
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator })
  }

  reset(): void {
    this.all.clear()
  }
}
