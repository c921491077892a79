import type { ServerResponse } from 'node:http'
import { u64ToBigInt } from '../core/u64.js'
import { gasEstimateToJson } from '../core/wire.js'
import type { EstimateFeed, PublishedEstimates } from '../service/estimate-feed.js'

/** Interval (ms) of the keep-alive comment, well under common proxy idle timeouts (60 s). */
export const DEFAULT_STREAM_KEEPALIVE_MS = 15_000
/** Bytes a client may leave unread before it is dropped: a few hundred events. */
export const DEFAULT_STREAM_BUFFER_BYTES = 64 * 1024
/** How often (ms) the store is checked for blocks others appended, while clients are connected. */
export const DEFAULT_STREAM_POLL_MS = 1000
/** Events kept for `Last-Event-ID` resumption. */
export const STREAM_HISTORY = 256

/** Options of a `GasStream`. */
export interface GasStreamOptions {
  keepAliveMs: number
  bufferBytes: number
  pollMs: number
  /** Brings the feed to the store's height (the server's `sync`); failures are the hub's to swallow. */
  sync: () => Promise<void>
  onDrop?: () => void
  /** Called with the number of `estimate` events each write carried to one client. */
  onEvent?: (events: number) => void
}

interface Client {
  res: ServerResponse
}

/**
 * Server-Sent Events of the gas estimates (`GET /v1/gas/stream`): one `estimate` event per
 * block, in height order, with `id` the block height and data both estimators' estimates as of
 * that block. A catch-up over several blocks (blocks appended by another process, a follower's
 * batch) sends one event for each of them (for its newest `STREAM_HISTORY` blocks: the feed
 * builds no estimates for older ones, which no client could ask for anyway).
 *
 * A new client gets the newest event. A client resuming with `Last-Event-ID` gets every held
 * event after that id (the last `STREAM_HISTORY`); when its id is older than the oldest held,
 * a comment names the heights no longer held and the held events follow from the oldest; an id
 * past the newest (another chain) gets the newest. Every `keepAliveMs` a comment line keeps
 * proxies from closing idle streams.
 *
 * Bounded per client: a client found with more than `bufferBytes` unread when new data is due
 * is dropped, so one client holds at most `bufferBytes` plus one write (one update's events, at
 * most `STREAM_HISTORY`). While clients are connected the store is polled every `pollMs`, so
 * blocks others append (an ingest, a follower) reach the stream without a request.
 */
export class GasStream {
  private readonly clients = new Set<Client>()
  /** The last events, oldest first: [height, text]. */
  private readonly history: [bigint, string][] = []
  private keepAlive: NodeJS.Timeout | undefined
  private poll: NodeJS.Timeout | undefined
  private polling = false

  constructor(
    private readonly feed: EstimateFeed,
    private readonly options: GasStreamOptions,
  ) {
    feed.subscribe((events) => this.publish(events))
  }

  /** Connected clients. */
  get size(): number {
    return this.clients.size
  }

  /** The event of a published state, as sent. */
  private eventOf(e: PublishedEstimates): [bigint, string] | null {
    if (e.height === null) return null
    const data = `{"block_height":"${String(e.height)}","serves":"${this.feed.mode}","aptos":${gasEstimateToJson(e.aptos)},"calibrated":${gasEstimateToJson(e.calibrated)}}`
    return [u64ToBigInt(e.height), `id: ${String(e.height)}\nevent: estimate\ndata: ${data}\n\n`]
  }

  /** Holds one update's events (one per block, heights ascending) and sends them to every client in one write. */
  private publish(events: readonly PublishedEstimates[]): void {
    let text = ''
    let count = 0
    for (let i = Math.max(0, events.length - STREAM_HISTORY); i < events.length; i++) {
      const event = this.eventOf(events[i] as PublishedEstimates)
      if (event === null) continue
      const newest = this.history[this.history.length - 1]
      // A height not above the newest held: the store was replaced, the held ids mean another chain.
      if (newest !== undefined && event[0] <= newest[0]) this.history.length = 0
      // Heights skipped (a catch-up longer than the history): said, as on resuming past the history.
      else if (newest !== undefined && event[0] > newest[0] + 1n) text += gapComment(newest[0] + 1n, event[0])
      this.history.push(event)
      text += event[1]
      count++
    }
    if (this.history.length > STREAM_HISTORY) this.history.splice(0, this.history.length - STREAM_HISTORY)
    if (count === 0) return
    for (const client of this.clients) this.write(client, text, count)
  }

  /**
   * Writes to one client, unless it still holds more than the budget unread from earlier
   * writes: then it is dropped (it may reconnect with its `Last-Event-ID`). Checked before the
   * write, so that one update's burst of events reaches a client that keeps up whatever its size.
   */
  private write(client: Client, text: string, events: number): void {
    const res = client.res
    if (res.destroyed) return
    if (res.writableLength > this.options.bufferBytes) {
      this.options.onDrop?.()
      res.destroy()
      return
    }
    res.write(text)
    if (events > 0) this.options.onEvent?.(events)
  }

  /** What a client sends on connecting with `since` as its `Last-Event-ID` (`undefined`: none usable). */
  private resumption(since: bigint | undefined): { text: string; events: number } {
    const held = this.history
    const oldest = held[0]
    const newest = held[held.length - 1]
    if (oldest === undefined || newest === undefined) {
      const now = this.eventOf(this.feed.both)
      return now === null ? { text: '', events: 0 } : { text: now[1], events: 1 }
    }
    if (since === undefined || since > newest[0]) return { text: newest[1], events: 1 }
    let text = ''
    if (since < oldest[0] - 1n) text = gapComment(since + 1n, oldest[0])
    let events = 0
    for (const [h, event] of held) {
      if (h <= since) continue
      text += event
      events++
    }
    return { text, events }
  }

  /**
   * Starts streaming to `res` (whose head is not yet written): `headers` go out with the
   * event-stream ones. `lastEventId` is the client's `Last-Event-ID`, if any.
   */
  attach(res: ServerResponse, headers: Record<string, string | number | string[]>, lastEventId: string | undefined): void {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    })
    const client: Client = { res }
    this.clients.add(client)
    res.once('close', () => {
      this.clients.delete(client)
      if (this.clients.size === 0) this.stopTimers()
    })
    this.startTimers()
    const since = lastEventId !== undefined && /^[0-9]{1,20}$/.test(lastEventId) ? BigInt(lastEventId) : undefined
    const { text, events } = this.resumption(since)
    // `retry`: the reconnection delay the browser uses after a drop.
    this.write(client, `retry: 2000\n\n${text}`, events)
  }

  private startTimers(): void {
    if (this.keepAlive !== undefined) return
    this.keepAlive = setInterval(() => {
      for (const client of this.clients) this.write(client, ': keep-alive\n\n', 0)
    }, this.options.keepAliveMs)
    this.poll = setInterval(() => {
      if (this.polling) return
      this.polling = true
      this.options.sync().then(
        () => (this.polling = false),
        () => (this.polling = false),
      )
    }, this.options.pollMs)
  }

  private stopTimers(): void {
    clearInterval(this.keepAlive)
    clearInterval(this.poll)
    this.keepAlive = undefined
    this.poll = undefined
  }

  /** Ends every stream (server shutdown: they would otherwise hold it open forever). */
  close(): void {
    for (const client of this.clients) client.res.end()
    this.clients.clear()
    this.stopTimers()
  }
}

/** The comment that tells a client the events `from` to `to - 1` will not come (not held, or never built). */
function gapComment(from: bigint, to: bigint): string {
  return `: events ${String(from)} to ${String(to - 1n)} are no longer held; resuming at ${String(to)}\n\n`
}
