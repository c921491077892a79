import { DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING } from '../../api/plumbing/connection-gate.js'
import { DEFAULT_STREAM_BUFFER_BYTES, DEFAULT_STREAM_KEEPALIVE_MS, DEFAULT_STREAM_POLL_MS } from '../../api/gas-stream.js'
import { DEFAULT_MAX_URL_LENGTH, DEFAULT_REQUEST_TIMEOUT_MS } from '../../api/plumbing/http-limits.js'
import { ESTIMATOR_MODES, estimateSpan } from '../../service/estimate-feed.js'
import { Readiness } from '../../api/plumbing/readiness.js'
import { createServer, DEFAULT_STALE_AFTER_SECS } from '../../api/server.js'
import { DEFAULT_STORE_TIMEOUT_MS } from '../../api/plumbing/store-guard.js'
import { MemoryStore } from '../../ledger/memory-store.js'
import { resolvePeer } from '../../ledger/optional-peer.js'
import type { LedgerStore } from '../../ledger/store/store.js'
import { choiceFlag, envName, intFlag, parseFlags, withEnv } from '../args.js'
import { loadCalibratedConfigFile, loadConfigFile } from '../config-file.js'
import { coalesced } from '../coalesced.js'
import type { OpenedLedger } from '../open-store.js'
import { UsageError } from '../errors.js'
import type { Command } from '../io.js'
import { checkInput } from '../paths.js'
import { gitHash, packageRoot, packageVersion } from '../package-info.js'
export { reportFailure } from '../run-command.js'

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000

/** Most blocks a `--data` load keeps parsed for the estimators' first catch-up (`MemoryStoreOptions.parsedBlocks`): a few MB. */
const MAX_PARSED_BLOCKS = 10_000

/** Levels of `--log-level` (pino's); `silent` turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** The flags of `serve` (each also settable as `LEDGER_GAS_<FLAG>`, see `envName`). */
export const FLAGS = {
  data: { type: 'string' },
  db: { type: 'string' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  'header-prefix': { type: 'string' },
  config: { type: 'string', short: 'c' },
  estimator: { type: 'string' },
  'calibrated-config': { type: 'string' },
  'store-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'max-url-length': { type: 'string' },
  'log-level': { type: 'string' },
  'max-in-flight': { type: 'string' },
  'max-waiting': { type: 'string' },
  'stream-keepalive': { type: 'string' },
  'stream-buffer': { type: 'string' },
  'stream-poll': { type: 'string' },
  poll: { type: 'string' },
  follow: { type: 'string' },
  'follow-stream': { type: 'string' },
  'stream-api-key': { type: 'string' },
  stream: { type: 'string' },
  'stale-after': { type: 'string' },
} as const

/** Values of `--stream`. */
export const STREAM_SWITCH = ['on', 'off'] as const

const HELP = `usage: ledger-gas serve [--data FILE.jsonl | --db FILE|URL] [--follow URL | --follow-stream URL] [--port 8080] [--host 127.0.0.1]
                        [--header-prefix X-NODE-] [--config FILE.json]
                        [--estimator aptos|calibrated] [--calibrated-config FILE.json]
                        [--store-timeout MS] [--request-timeout MS] [--max-url-length N]
                        [--log-level info] [--max-in-flight N] [--max-waiting N]
                        [--stream-keepalive MS] [--stream-buffer BYTES] [--stream-poll MS]
                        [--stream on|off]

Serves the Chain Ledger Read API under /v1: account transactions, transactions by version,
the gas price estimate, ledger info, blocks by height, the calibrated estimate and fee history
(/v1/gas/estimate, /inclusion, /price, /history, /explain), the estimates as Server-Sent
Events (/v1/gas/stream), the health check (/v1/-/healthy) and the OpenAPI document
(/v1/spec.json); Prometheus metrics at /metrics and a live gas page at /.

  --data FILE.jsonl     chain file loaded into memory (default: the sample chain, data/chain.jsonl
                        in a clone, else regenerated in memory from its seed)
  --db FILE             SQLite ledger written by 'ledger-gas ingest' (opened read-only)
  --db postgres://USER@HOST:PORT/DB[?schema=NAME]
                        PostgreSQL ledger (read-only replica; any number of them may serve
                        one database while 'ledger-gas ingest' writes it; password from the
                        URL or PGPASSWORD)
  --poll MS             PostgreSQL: how often a replica checks for new blocks when a
                        notification is lost (default 1000)
  --follow URL          append an Aptos-compatible node's new blocks (its API root, /v1
                        included) to --db (this process is its writer) or to memory (empty,
                        or --data), continuing from the ledger's newest block
  --follow-stream URL   append an Aptos Transaction Stream's new blocks (https://host:443 or
                        http://host:port) to --db (this process is its writer) or to memory
                        (empty, or --data, taking the stream's chain id), continuing from the
                        ledger's newest block; the key from --stream-api-key (${envName('stream-api-key')})
  --port N              TCP port, 0 for any free one (default 8080)
  --host ADDR           interface to listen on (default 127.0.0.1)
  --header-prefix P     prefix of the ledger headers, e.g. X-APTOS- (default X-NODE-)
  --config FILE.json    estimator configuration (Aptos key names); block pricing and floor of both estimators
  --estimator MODE      what /v1/estimate_gas_price answers: aptos (the node's algorithm) or
                        calibrated (tiers that promise inclusion within k blocks with probability q)
                        (default aptos)
  --calibrated-config FILE.json
                        promises, window and learning rate of the calibrated estimator, e.g.
                        {"regular": {"k": 3, "q": 0.9}, "window": 1000}
  --store-timeout MS    deadline of an asynchronous store read; past it → 503 (default ${DEFAULT_STORE_TIMEOUT_MS})
  --request-timeout MS  time a client has to send its request; past it → 408 (default ${DEFAULT_REQUEST_TIMEOUT_MS})
  --max-url-length N    longest URL answered; longer → 414 (default ${DEFAULT_MAX_URL_LENGTH})
  --log-level L         ${LOG_LEVELS.join(', ')}: JSON log lines on stdout (default info)
  --max-in-flight N     requests of one connection run at once when it pipelines (default ${DEFAULT_MAX_IN_FLIGHT})
  --max-waiting N       pipelined requests of one connection waiting; more closes it (default ${DEFAULT_MAX_WAITING})
  --stream-keepalive MS keep-alive comment interval of /v1/gas/stream (default ${DEFAULT_STREAM_KEEPALIVE_MS})
  --stream-buffer BYTES unread bytes a stream client may hold before it is dropped (default ${DEFAULT_STREAM_BUFFER_BYTES})
  --stream-poll MS      store poll interval while stream clients listen, and the live page's
                        poll interval when the stream is off (default ${DEFAULT_STREAM_POLL_MS})
  --stream on|off       serve /v1/gas/stream (default on); off: the route answers 404 like any
                        unknown one, is left out of /v1/spec.json, and the live page polls
  --stale-after SECS    age of the newest block past which the live page at / shows the ledger
                        as stale: set it to the duration_secs your load balancer passes to
                        /v1/-/healthy (default ${DEFAULT_STALE_AFTER_SECS})

Every flag can also be set by an environment variable, ${envName('flag-name')} (e.g.
${envName('port')}=9000, ${envName('log-level')}=warn); a flag on the command line wins.

Stops on SIGINT/SIGTERM: stops accepting connections, lets in-flight requests finish (at
most ${SHUTDOWN_GRACE_MS / 1000} s, then closes what is left) and exits 0.
`


export const run: Command = async (args, io) => {
  const parsed = parseFlags('serve', args, FLAGS)
  if (parsed.help) {
    io.stdout.write(HELP)
    return 0
  }
  // The server loads prom-client on its first scrape: a missing one is still refused before the ledger is loaded, as the other peers are.
  resolvePeer('prom-client', 'the serve command')
  const { flags, origin } = withEnv(parsed, Object.keys(FLAGS) as (keyof typeof FLAGS)[], process.env)
  /** A flag's check, its message naming the environment variable when the value came from there. */
  const checked = <T>(flag: keyof typeof FLAGS, read: () => T): T => {
    try {
      return read()
    } catch (error) {
      if (error instanceof UsageError && origin(flag) !== `--${flag}`) throw new UsageError(`${error.message.replace(`--${flag}`, origin(flag))}`)
      throw error
    }
  }
  const int = (flag: keyof typeof FLAGS, fallback: number, min: number, max: number) => checked(flag, () => intFlag(flags[flag], flag, fallback, min, max))
  if (flags.data !== undefined && flags.db !== undefined) throw new UsageError(`${origin('data')} and ${origin('db')} cannot be used together`)
  const port = int('port', 8080, 0, 65535)
  const host = flags.host ?? '127.0.0.1'
  const MAX = 2 ** 31 - 1
  const limits = {
    storeTimeoutMs: int('store-timeout', DEFAULT_STORE_TIMEOUT_MS, 1, MAX),
    requestTimeoutMs: int('request-timeout', DEFAULT_REQUEST_TIMEOUT_MS, 1, MAX),
    maxUrlLength: int('max-url-length', DEFAULT_MAX_URL_LENGTH, 1, 16 * 1024),
    maxInFlightPerConnection: int('max-in-flight', DEFAULT_MAX_IN_FLIGHT, 1, MAX),
    maxWaitingPerConnection: int('max-waiting', DEFAULT_MAX_WAITING, 1, MAX),
    streamKeepAliveMs: int('stream-keepalive', DEFAULT_STREAM_KEEPALIVE_MS, 1, MAX),
    streamBufferBytes: int('stream-buffer', DEFAULT_STREAM_BUFFER_BYTES, 1, MAX),
    streamPollMs: int('stream-poll', DEFAULT_STREAM_POLL_MS, 1, MAX),
    staleAfterSecs: int('stale-after', DEFAULT_STALE_AFTER_SECS, 1, MAX),
  }
  const estimatorMode = checked('estimator', () => choiceFlag(flags.estimator, 'estimator', ESTIMATOR_MODES, 'aptos'))
  const logLevel = checked('log-level', () => choiceFlag(flags['log-level'], 'log-level', LOG_LEVELS, 'info'))
  const stream = checked('stream', () => choiceFlag(flags.stream, 'stream', STREAM_SWITCH, 'on')) === 'on'
  const config = await loadConfigFile(flags.config)
  const calibrated = await loadCalibratedConfigFile(flags['calibrated-config'])
  const root = packageRoot()
  // A --data load keeps its newest blocks parsed as far back as the estimators read at startup
  // (at most MAX_PARSED_BLOCKS: older ones of a longer span are parsed from their JSON).
  const load = { parsedBlocks: Math.min(estimateSpan(config, calibrated), MAX_PARSED_BLOCKS) }

  // Each source's opener is imported in its branch, as gRPC's is: the database stores, the node
  // follower and the sample chain's generator are modules that a `--data` start would otherwise
  // load and compile for nothing.
  let store: LedgerStore
  let source: string
  let watch: OpenedLedger['watch']
  let readiness: Readiness | undefined
  if (flags.follow !== undefined && flags['follow-stream'] !== undefined) throw new UsageError(`${origin('follow')} and ${origin('follow-stream')} cannot be used together`)
  if (flags['follow-stream'] !== undefined) {
    const log = (line: string) => void io.stderr.write(`ledger-gas serve: ${line}\n`)
    // Loaded only here: gRPC is a heavy import that other serve modes need not pay for at startup.
    const { openStreamFollowing } = await import('../stream-ingest.js')
    if (flags.data !== undefined) await checkInput(flags.data, 'data')
    ;({ store, source, watch } = await openStreamFollowing(flags['follow-stream'], flags.db, flags['stream-api-key'], log, flags.data, load))
  } else if (flags.follow !== undefined) {
    const log = (line: string) => void io.stderr.write(`ledger-gas serve: ${line}\n`)
    readiness = new Readiness()
    const { openFollowing } = await import('../serve-follow.js')
    ;({ store, source, watch } = await openFollowing(flags.follow, flags.db, flags.data, intFlag(flags.poll, 'poll', 1000, 1, 2 ** 31 - 1), log, load, readiness))
  } else if (flags.db !== undefined) {
    const { openLedger } = await import('../open-store.js')
    ;({ store, source, watch } = await openLedger(flags.db, { readonly: true, pollMs: intFlag(flags.poll, 'poll', 1000, 1, 2 ** 31 - 1), readTimeoutMs: limits.storeTimeoutMs }))
  } else if (flags.data !== undefined) {
    await checkInput(flags.data, 'data')
    store = await MemoryStore.fromJsonLines(flags.data, load)
    source = flags.data
  } else {
    const { openSampleLedger } = await import('../sample-ledger.js')
    const sample = await openSampleLedger(root)
    store = sample.store
    source = sample.source
  }
  try {
    const version = packageVersion(root)
    const logger = logLevel === 'silent' ? false : { level: logLevel, stream: io.stdout }
    const server = await createServer({ store, estimator: config, estimatorMode, calibrated, headerPrefix: flags['header-prefix'], gitHash: gitHash(root), version, logger, stream, readiness, ...limits })
    // The estimate follows blocks another process (or the follower) appends without waiting for a request.
    const stopWatch = watch?.(coalesced(() => server.sync(), () => {}))
    const address = await server.listen({ port, host })
    const info = await Promise.resolve(store.ledgerInfo()).catch(() => null)
    const extent = info === null ? 'empty ledger' : `blocks ${info.oldest_block_height}..${info.block_height}`
    io.stderr.write(`ledger-gas serve: listening on ${address}/v1 (${extent} from ${source}; ${estimatorMode} estimate)\n`)
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve()
      else io.signal.addEventListener('abort', () => resolve(), { once: true })
    })
    io.stderr.write('ledger-gas serve: shutting down\n')
    // A request stuck past the grace period (a client that stops reading) loses its connection.
    const grace = setTimeout(() => server.fastify.server.closeAllConnections(), SHUTDOWN_GRACE_MS)
    try {
      await stopWatch?.()
      await server.close()
    } finally {
      clearTimeout(grace)
    }
  } finally {
    await store.close()
  }
  return 0
}
