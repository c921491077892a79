import type pg from 'pg'
import { parseU64, type U64 } from '../../core/u64.js'

/** Options of `PgStore.watch`. */
export interface WatchOptions {
  /** Polling period (ms), the fallback when a notification is lost; also the reconnect delay of the listener. Default 1000. */
  pollMs?: number | undefined
  /** Listen for notifications (default true); false leaves polling alone. */
  listen?: boolean | undefined
}

/** Default polling period: a replica is at most this far behind when notifications are lost. */
export const DEFAULT_POLL_MS = 1000

/**
 * The NOTIFY channel of the ledger in `schema`: one per schema, since notifications are per
 * database. PostgreSQL cuts channel names at 63 bytes; both sides cut the same way.
 */
export function notifyChannel(schema: string): string {
  return `ledger_gas_blocks:${schema}`.slice(0, 63)
}

/**
 * Reports rising block heights of a ledger: from notifications on a dedicated connection, and
 * from polling `readHeight`. When the listening connection drops it is reopened after `pollMs`,
 * and each (re)connection polls once, so a block committed while nobody listened is still seen.
 * Errors are swallowed: an unreachable database is retried, and `onHeight` stays silent.
 *
 * Invariant: `onHeight` is called with strictly increasing heights.
 */
export class PgWatcher {
  readonly #makeClient: () => pg.Client
  readonly #channel: string
  readonly #readHeight: () => Promise<U64 | null>
  readonly #onHeight: (height: U64) => void
  readonly #pollMs: number
  #last: U64 | null = null
  #client: pg.Client | null = null
  #poll: NodeJS.Timeout
  #retry: NodeJS.Timeout | undefined
  #closed = false

  constructor(makeClient: () => pg.Client, channel: string, readHeight: () => Promise<U64 | null>, onHeight: (height: U64) => void, options: WatchOptions = {}) {
    this.#makeClient = makeClient
    this.#channel = channel
    this.#readHeight = readHeight
    this.#onHeight = onHeight
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS
    this.#poll = setInterval(() => this.#check(), this.#pollMs)
    this.#poll.unref()
    if (options.listen ?? true) void this.#listen()
    else this.#check()
  }

  async close(): Promise<void> {
    this.#closed = true
    clearInterval(this.#poll)
    clearTimeout(this.#retry)
    const client = this.#client
    this.#client = null
    await client?.end().catch(() => {})
  }

  #saw(height: U64 | undefined): void {
    if (this.#closed || height === undefined || (this.#last !== null && height <= this.#last)) return
    this.#last = height
    this.#onHeight(height)
  }

  #check(): void {
    this.#readHeight().then(
      (h) => this.#saw(h ?? undefined),
      () => {},
    )
  }

  async #listen(): Promise<void> {
    if (this.#closed) return
    const client = this.#makeClient()
    this.#client = client
    let dropped = false
    const drop = () => {
      if (dropped) return
      dropped = true
      if (this.#client === client) this.#client = null
      void client.end().catch(() => {})
      if (this.#closed) return
      this.#retry = setTimeout(() => void this.#listen(), this.#pollMs)
      this.#retry.unref()
    }
    client.on('error', drop)
    client.on('end', drop)
    client.on('notification', (m) => {
      if (m.channel === this.#channel) this.#saw(parseU64(m.payload))
    })
    try {
      await client.connect()
      await client.query(`LISTEN "${this.#channel}"`)
    } catch {
      drop()
      return
    }
    // Blocks committed before LISTEN took effect were not notified to this connection.
    this.#check()
  }
}
