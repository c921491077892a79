/** Buckets kept per series by default: at most twice as many points are drawn. */
export const DEFAULT_SERIES_BUCKETS = 1000

/** A point of a drawn series: x is the block height, y the value. */
export interface SeriesPoint {
  x: number
  y: number
}

/**
 * Several aligned series over a stream of unknown length, downsampled into at most `buckets`
 * buckets of equal width in blocks (the width doubles, merging bucket pairs, whenever the stream
 * outgrows them). Each bucket keeps, per series, its minimum and maximum and where they occurred,
 * and is drawn as those two points in time order (min/max decimation): the drawn line keeps
 * every spike and dip of the full series. Memory O(buckets · series); push O(series) amortised.
 */
export class DownsampledSeries {
  readonly names: readonly string[]
  readonly buckets: number
  private width = 1
  private used = 0
  private n = 0
  private readonly min: Float64Array
  private readonly max: Float64Array
  private readonly minX: Float64Array
  private readonly maxX: Float64Array

  constructor(names: readonly string[], buckets = DEFAULT_SERIES_BUCKETS) {
    if (!Number.isInteger(buckets) || buckets < 2 || buckets % 2 !== 0) throw new RangeError(`buckets must be an even integer >= 2, got ${buckets}`)
    this.names = Object.freeze([...names])
    this.buckets = buckets
    const size = buckets * names.length
    this.min = new Float64Array(size)
    this.max = new Float64Array(size)
    this.minX = new Float64Array(size)
    this.maxX = new Float64Array(size)
  }

  /** Blocks per bucket. */
  get blocksPerBucket(): number {
    return this.width
  }

  /** Values pushed so far. */
  get length(): number {
    return this.n
  }

  /** Adds the next block's values (one per series, in `names` order) at height `x`. */
  push(x: number, values: ArrayLike<number>): void {
    const S = this.names.length
    let b = Math.floor(this.n / this.width)
    if (b >= this.buckets) {
      this.halve()
      b = Math.floor(this.n / this.width)
    }
    const fresh = b >= this.used
    if (fresh) this.used = b + 1
    for (let s = 0; s < S; s++) {
      const v = values[s] as number
      const at = b * S + s
      if (fresh || v < (this.min[at] as number)) {
        this.min[at] = v
        this.minX[at] = x
      }
      if (fresh || v > (this.max[at] as number)) {
        this.max[at] = v
        this.maxX[at] = x
      }
    }
    this.n++
  }

  /** The points of series `s` to draw, in x order: at most 2 per bucket. */
  points(s: number): SeriesPoint[] {
    const S = this.names.length
    const out: SeriesPoint[] = []
    for (let b = 0; b < this.used; b++) {
      const at = b * S + s
      const a = { x: this.minX[at] as number, y: this.min[at] as number }
      const z = { x: this.maxX[at] as number, y: this.max[at] as number }
      if (a.x === z.x) out.push(a)
      else if (a.x < z.x) out.push(a, z)
      else out.push(z, a)
    }
    return out
  }

  /** Merges bucket pairs (2j, 2j+1) into j and doubles the width. */
  private halve(): void {
    const S = this.names.length
    const half = this.buckets / 2
    for (let j = 0; j < half; j++) {
      for (let s = 0; s < S; s++) {
        const to = j * S + s
        const a = 2 * j * S + s
        const z = (2 * j + 1) * S + s
        this.min[to] = this.min[a] as number
        this.minX[to] = this.minX[a] as number
        this.max[to] = this.max[a] as number
        this.maxX[to] = this.maxX[a] as number
        if ((this.min[z] as number) < (this.min[to] as number)) {
          this.min[to] = this.min[z] as number
          this.minX[to] = this.minX[z] as number
        }
        if ((this.max[z] as number) > (this.max[to] as number)) {
          this.max[to] = this.max[z] as number
          this.maxX[to] = this.maxX[z] as number
        }
      }
    }
    this.used = half
    this.width *= 2
  }
}
