import { statSync } from 'node:fs'
import { StreamUnavailableError } from '../follow/stream/errors.js'
import { ingestFromStream, type StreamAppend } from '../follow/stream/ingest-stream.js'
import { probeChainId } from '../follow/stream/probe-chain-id.js'
import { startStream, type StreamStart } from '../follow/stream/stream-start.js'
import { sleep } from '../follow/sleep.js'
import { isPostgresUrl } from '../ledger/postgres/pg-connection.js'
import { LedgerUnavailableError } from '../ledger/store/database-error.js'
import { MemoryStore, type MemoryStoreOptions } from '../ledger/memory-store.js'
import { intFlag } from './args.js'
import { UsageError } from './errors.js'
import { EXIT } from './exit-codes.js'
import type { CliIo } from './io.js'
import { openFollowerStore, openLedger, type OpenedLedger } from './open-store.js'
import type { OutageOptions } from '../ledger/ingest/outage.js'
import type { BatchAppendStore } from '../ledger/store/store.js'

/** Whether `db` names a SQLite file that already holds something (a ledger, or a file that `openLedger` refuses untouched). */
function holdsSqliteFile(db: string): boolean {
  return !isPostgresUrl(db) && (statSync(db, { throwIfNoEntry: false })?.size ?? 0) > 0
}

/** The environment variable that holds the stream's API key when `--stream-api-key` is not given. */
export const STREAM_API_KEY_ENV = 'LEDGER_GAS_STREAM_API_KEY'

/** How long `serve --follow-stream` waits before following again after the stream or the database was unreachable. */
const REFOLLOW_MS = 5000

/** The flags `ingest --from-stream` reads. */
export interface StreamIngestFlags {
  'chain-id'?: string | undefined
  batch?: string | undefined
  'max-block-txns'?: string | undefined
  'starting-version'?: string | undefined
  'to-version'?: string | undefined
  'stream-api-key'?: string | undefined
}

function u64Flag(value: string | undefined, flag: string): bigint | undefined {
  if (value === undefined) return undefined
  if (!/^(0|[1-9][0-9]{0,19})$/.test(value) || BigInt(value) > 18446744073709551615n) throw new UsageError(`--${flag} must be a u64 version, got '${value}'`)
  return BigInt(value)
}

/** The key from `--stream-api-key`, else `LEDGER_GAS_STREAM_API_KEY`; never printed. */
export function streamApiKey(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return flag ?? (env[STREAM_API_KEY_ENV] === '' ? undefined : env[STREAM_API_KEY_ENV])
}

/**
 * Progress of a stream ingest: on a terminal one status line rewritten in place (versions/s and
 * blocks/s over the run, how far the newest block's chain time lags the wall clock), else one
 * line per commit while following.
 */
function progress(io: CliIo, following: boolean): { onAppend: (p: StreamAppend) => void; done: () => void } {
  const started = performance.now()
  let versions = 0
  let blocks = 0
  let shown = 0
  const tty = io.stderr.isTTY === true
  return {
    onAppend: (p) => {
      versions += p.transactions
      blocks += p.blocks
      const now = performance.now()
      const seconds = (now - started) / 1000
      const lag = Math.max(0, Date.now() / 1000 - Number(p.block_timestamp) / 1e6)
      const line = `block ${p.block_height}, version ${p.ledger_version}: ${Math.round(versions / seconds)} versions/s, ${Math.round(blocks / seconds)} blocks/s, ${lag < 120 ? `${lag.toFixed(1)} s` : `${(lag / 3600).toFixed(1)} h`} behind the chain`
      if (tty) {
        if (now - shown < 250) return
        shown = now
        io.stderr.write(`\r\x1b[2Kledger-gas ingest: ${line}`)
      } else if (following) io.stderr.write(`ledger-gas ingest: ${line}\n`)
    },
    done: () => {
      if (tty && shown > 0) io.stderr.write('\n')
    },
  }
}

/**
 * `ingest --from-stream URL`: append the Transaction Stream's blocks to a ledger, up to the block
 * holding `--to-version`, or following it until SIGINT/SIGTERM. A new ledger takes the stream's
 * chain id unless `--chain-id` says otherwise; a ledger of another chain is refused before
 * anything is written.
 */
export async function ingestStreamCommand(url: string, db: string, flags: StreamIngestFlags, io: CliIo): Promise<number> {
  const startingVersion = u64Flag(flags['starting-version'], 'starting-version')
  const toVersion = u64Flag(flags['to-version'], 'to-version')
  const chainIdFlag = flags['chain-id']
  const batchBlocks = intFlag(flags.batch, 'batch', 4096, 1, 1_000_000)
  const maxBlockTransactions = flags['max-block-txns'] === undefined ? undefined : intFlag(flags['max-block-txns'], 'max-block-txns', 1, 1)
  const apiKey = streamApiKey(flags['stream-api-key'])
  // The ledger's chain id: --chain-id; else an existing SQLite ledger's own, which the ingest
  // checks against the stream's first response; else the stream's, from the first response of
  // the ingest's own first call (`startStream`), since a new ledger is created with it. One
  // connection and, but for a PostgreSQL ledger that already holds blocks, one call.
  let start: StreamStart | undefined
  let chainId: number | undefined
  if (chainIdFlag !== undefined) chainId = intFlag(chainIdFlag, 'chain-id', 0, 0, 255)
  else if (!holdsSqliteFile(db)) {
    start = await startStream(url, { apiKey, startingVersion })
    chainId = start.chainId ?? undefined
  }
  let opened: OpenedLedger & { store: BatchAppendStore }
  try {
    opened = await openLedger(db, { readonly: false, chainId, maxBlockTransactions })
  } catch (error) {
    start?.close()
    throw error
  }
  const log = (line: string) => io.stderr.write(`ledger-gas ingest: ${line}\n`)
  const shown = progress(io, toVersion === undefined)
  try {
    const started = performance.now()
    const summary = await ingestFromStream({
      endpoint: url,
      apiKey,
      start,
      store: opened.store,
      chainId,
      startingVersion,
      toVersion,
      batchBlocks,
      signal: io.signal,
      onAppend: shown.onAppend,
      onRetry: (e) => log(`stream call ${e.attempt} failed (${e.reason}); again from version ${e.from_version ?? 'the start'} in ${e.delay_ms} ms`),
      outage: outageLog(log),
    })
    shown.done()
    const seconds = (performance.now() - started) / 1000
    const rate = summary.appended > 0 ? `, ${Math.round(summary.appended / seconds)} blocks/s` : ''
    const skipped = summary.skipped > 0 ? `; ${summary.skipped} versions before the first block start passed over` : ''
    io.stdout.write(`ingest: ${summary.appended} blocks (${summary.transactions} transactions) appended from ${url} to ${opened.source}; block height ${summary.height ?? '(none)'}, ledger version ${summary.ledger_version ?? '(none)'}${skipped}; ${seconds.toFixed(2)} s${rate}\n`)
    return EXIT.ok
  } finally {
    shown.done()
    await opened.store.close()
  }
}

/**
 * The ledger of `serve --follow-stream URL`: the `--db` ledger opened for writing, else memory
 * (empty, or `--data` loaded as `load` says) with the chain id the stream serves (asked of it
 * first, so the read API names the stream's chain), fed from the stream. Its `watch` starts the
 * ingest and reports each new height; a stream or database that stays unreachable is followed
 * again after a pause, any other failure (a refused key, another chain) stops following with a
 * line on the log while the server goes on serving what it has.
 *
 * @throws StreamUnavailableError, StreamResponseError when the stream cannot name its chain id (memory only).
 */
export async function openStreamFollowing(url: string, db: string | undefined, apiKey: string | undefined, log: (line: string) => void, data?: string | undefined, load: MemoryStoreOptions = {}): Promise<OpenedLedger> {
  const { store, source } = await openFollowerStore(db, async () => {
    const chainId = await probeChainId(url, apiKey)
    const options = chainId === null ? {} : { chainId }
    return data === undefined ? new MemoryStore(options) : await MemoryStore.fromJsonLines(data, { ...load, ...options })
  })
  return {
    store,
    source: `${source}, following the stream ${url}`,
    watch: (onHeight) => {
      const controller = new AbortController()
      const run = (async () => {
        while (!controller.signal.aborted) {
          try {
            await ingestFromStream({ endpoint: url, apiKey, store, signal: controller.signal, onAppend: (p) => onHeight(p.block_height), onRetry: (e) => log(`stream call ${e.attempt} failed (${e.reason}); again in ${e.delay_ms} ms`), outage: outageLog(log) })
          } catch (error) {
            log(`following ${url}: ${(error as Error).message}`)
            if (!(error instanceof StreamUnavailableError || error instanceof LedgerUnavailableError)) return
            await sleep(REFOLLOW_MS, controller.signal).catch(() => {})
          }
        }
      })()
      return async () => {
        controller.abort()
        await run
      }
    },
  }
}

/** A stream writer's database outages on standard error: each retry with its wait, and the recovery (as the other writers report them). */
function outageLog(log: (line: string) => void): OutageOptions {
  return {
    onOutage: (e) => log(`${e.error.message}; retry ${e.attempt} in ${e.delayMs} ms (the blocks read are kept)`),
    onRecovered: (attempts) => log(`ledger reachable again after ${attempts} ${attempts === 1 ? 'retry' : 'retries'}; going on`),
  }
}
