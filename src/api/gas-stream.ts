import type { ServerResponse } from 'node:http'
import { u64ToBigInt } from '../core/u64.js'
import { gasEstimateToJson } from '../core/wire.js'
import type { EstimateFeed, PublishedEstimates } from './estimate-feed.js'

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
  onEvent?: () => void
}

interface Client {
  res: ServerResponse
}

/**
 * Server-Sent Events of the gas estimates (`GET /v1/gas/stream`): one `estimate` event each
 * time the estimates move to a newer block (per appended block; a catch-up over several blocks
 * is one event at its newest), with `id` the block height and data both estimators' estimates.
 * A client resuming with `Last-Event-ID` gets the events after that id still held (the last
 * 256), else the current one. Every `keepAliveMs` a comment line keeps proxies from closing
 * idle streams. A client that leaves more than `bufferBytes` unread is dropped, never buffered
 * without bound. While clients are connected the store is polled every `pollMs`, so blocks
 * others append (an ingest, a follower) reach the stream without a request.
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
    feed.subscribe((e) => this.publish(e))
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

  private publish(e: PublishedEstimates): void {
    const event = this.eventOf(e)
    if (event === null) return
    this.history.push(event)
    if (this.history.length > STREAM_HISTORY) this.history.shift()
    for (const client of this.clients) this.write(client, event[1])
  }

  /** Writes to one client; drops it once its unread bytes pass the budget. */
  private write(client: Client, text: string): void {
    const res = client.res
    if (res.destroyed) return
    res.write(text)
    if (text.startsWith('id:')) this.options.onEvent?.()
    if (res.writableLength > this.options.bufferBytes) {
      this.options.onDrop?.()
      res.destroy()
    }
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
    // Reconnection delay the browser uses after a drop.
    this.write(client, 'retry: 2000\n\n')
    const since = lastEventId !== undefined && /^[0-9]{1,20}$/.test(lastEventId) ? BigInt(lastEventId) : undefined
    const held = since === undefined ? [] : this.history.filter(([h]) => h > since)
    const oldest = this.history[0]?.[0]
    if (since !== undefined && oldest !== undefined && since >= oldest - 1n) {
      for (const [, text] of held) this.write(client, text)
      return
    }
    // No usable resume point: the current estimate, so the client has data at once.
    const now = this.eventOf(this.feed.both)
    if (now !== null && (since === undefined || now[0] > since)) this.write(client, now[1])
  }

  private startTimers(): void {
    if (this.keepAlive !== undefined) return
    this.keepAlive = setInterval(() => {
      for (const client of this.clients) this.write(client, ': keep-alive\n\n')
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
