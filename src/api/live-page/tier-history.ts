import { u64ToBigInt } from '../../core/u64.js'
import { gasEstimateToJson } from '../../core/wire.js'
import type { EstimateFeed, PublishedEstimates } from '../../service/estimate-feed.js'

/** Blocks of tier prices the live page charts: the estimates the feed publishes per block (its `depth`). */
export const TIER_HISTORY_BLOCKS = 256

/**
 * Both estimators' tier prices as of each of the newest blocks, for the live page's tier chart
 * (`GET /gas-page/tiers`): kept from what the feed publishes (one entry per block, heights
 * ascending), at most `capacity`. Each entry is kept as the JSON it is sent as (u64 exact), so
 * an answer is a join. A feed that starts over (a gap, a restart) may publish a height at or
 * below the newest held: entries from that height on are dropped first, so heights stay
 * ascending and unique.
 */
export class TierHistory {
  private readonly entries: [bigint, string][] = []

  constructor(
    feed: EstimateFeed,
    private readonly capacity = TIER_HISTORY_BLOCKS,
  ) {
    feed.subscribe((published) => this.add(published))
  }

  private add(published: readonly PublishedEstimates[]): void {
    for (const e of published) {
      if (e.height === null) continue
      const height = u64ToBigInt(e.height)
      while (this.entries.length > 0 && (this.entries[this.entries.length - 1] as [bigint, string])[0] >= height) this.entries.pop()
      this.entries.push([height, `{"block_height":"${String(e.height)}","aptos":${gasEstimateToJson(e.aptos)},"calibrated":${gasEstimateToJson(e.calibrated)}}`])
    }
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity)
  }

  /** The held entries as a JSON array, oldest first. */
  json(): string {
    return `[${this.entries.map((e) => e[1]).join(',')}]`
  }
}
