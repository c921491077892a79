import { existsSync, readFileSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_MAX_URL_LENGTH, DEFAULT_REQUEST_TIMEOUT_MS } from '../../api/http-limits.js'
import { createServer } from '../../api/server.js'
import { DEFAULT_STORE_TIMEOUT_MS } from '../../api/store-guard.js'
import { MemoryStore } from '../../ledger/memory-store.js'
import type { LedgerStore } from '../../ledger/store.js'
import { intFlag, parseFlags } from '../args.js'
import { loadConfigFile } from '../config-file.js'
import { coalesced, openLedger, type OpenedLedger } from '../open-store.js'
import { openFollowing } from '../serve-follow.js'
import { UsageError } from '../errors.js'
import type { Command } from '../io.js'

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000

const HELP = `usage: ledger-gas serve [--data FILE.jsonl | --db FILE|URL] [--follow URL] [--port 8080] [--host 127.0.0.1]
                        [--header-prefix X-NODE-] [--config FILE.json]
                        [--store-timeout MS] [--request-timeout MS] [--max-url-length N]

Serves the Chain Ledger Read API under /v1: account transactions, transactions by version,
the gas price estimate, ledger info, blocks by height and the OpenAPI document (/v1/spec.json).

  --data FILE.jsonl     chain file loaded into memory (default: the bundled data/chain.jsonl)
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
  --port N              TCP port, 0 for any free one (default 8080)
  --host ADDR           interface to listen on (default 127.0.0.1)
  --header-prefix P     prefix of the ledger headers, e.g. X-APTOS- (default X-NODE-)
  --config FILE.json    estimator configuration (Aptos key names)
  --store-timeout MS    deadline of an asynchronous store read; past it → 503 (default ${DEFAULT_STORE_TIMEOUT_MS})
  --request-timeout MS  time a client has to send its request; past it → 408 (default ${DEFAULT_REQUEST_TIMEOUT_MS})
  --max-url-length N    longest URL answered; longer → 414 (default ${DEFAULT_MAX_URL_LENGTH})

Stops on SIGINT/SIGTERM: stops accepting connections, lets in-flight requests finish (at
most ${SHUTDOWN_GRACE_MS / 1000} s, then closes what is left) and exits 0.
`

/**
 * The package root: the nearest directory above this module whose package.json is ledger-gas's
 * (the same from src/ under tsx and from a dist/ chunk), not the working directory.
 */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ledger-gas') return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** The commit of the package's checkout, when it is one (`git_hash` of `GET /v1`). */
function gitHash(root: string | undefined): string | undefined {
  if (root === undefined) return undefined
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim()
    if (!head.startsWith('ref: ')) return /^[0-9a-f]{40}$/.test(head) ? head : undefined
    const ref = head.slice(5)
    const loose = join(root, '.git', ref)
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim()
    const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8')
    return packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.slice(0, 40)
  } catch {
    return undefined
  }
}

async function mustRead(path: string, flag: string): Promise<void> {
  try {
    await access(path)
  } catch (error) {
    throw new UsageError(`cannot read --${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
}

export const run: Command = async (args, io) => {
  const flags = parseFlags('serve', args, {
    data: { type: 'string' },
    db: { type: 'string' },
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    'header-prefix': { type: 'string' },
    config: { type: 'string', short: 'c' },
    'store-timeout': { type: 'string' },
    'request-timeout': { type: 'string' },
    'max-url-length': { type: 'string' },
    poll: { type: 'string' },
    follow: { type: 'string' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (flags.data !== undefined && flags.db !== undefined) throw new UsageError('--data and --db cannot be used together')
  const port = intFlag(flags.port, 'port', 8080, 0, 65535)
  const host = flags.host ?? '127.0.0.1'
  const limits = {
    storeTimeoutMs: intFlag(flags['store-timeout'], 'store-timeout', DEFAULT_STORE_TIMEOUT_MS, 1, 2 ** 31 - 1),
    requestTimeoutMs: intFlag(flags['request-timeout'], 'request-timeout', DEFAULT_REQUEST_TIMEOUT_MS, 1, 2 ** 31 - 1),
    maxUrlLength: intFlag(flags['max-url-length'], 'max-url-length', DEFAULT_MAX_URL_LENGTH, 1, 16 * 1024),
  }
  const config = await loadConfigFile(flags.config)
  const root = packageRoot()

  let store: LedgerStore
  let source: string
  let watch: OpenedLedger['watch']
  if (flags.follow !== undefined) {
    const log = (line: string) => void io.stderr.write(`ledger-gas serve: ${line}\n`)
    ;({ store, source, watch } = await openFollowing(flags.follow, flags.db, flags.data, intFlag(flags.poll, 'poll', 1000, 1, 2 ** 31 - 1), log))
  } else if (flags.db !== undefined) {
    ;({ store, source, watch } = await openLedger(flags.db, { readonly: true, pollMs: intFlag(flags.poll, 'poll', 1000, 1, 2 ** 31 - 1), readTimeoutMs: limits.storeTimeoutMs }))
  } else {
    if (flags.data === undefined && root === undefined) throw new UsageError('cannot find the bundled data/chain.jsonl (no ledger-gas package root above this module); pass --data or --db')
    source = flags.data ?? join(root as string, 'data', 'chain.jsonl')
    await mustRead(source, 'data')
    store = await MemoryStore.fromJsonLines(source)
  }
  try {
    const version = root === undefined ? undefined : (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version
    const server = await createServer({ store, estimator: config, headerPrefix: flags['header-prefix'], gitHash: gitHash(root), version, ...limits })
    // The estimate follows blocks another process (or the follower) appends without waiting for a request.
    const stopWatch = watch?.(coalesced(() => server.sync(), () => {}))
    const address = await server.listen({ port, host })
    const info = await Promise.resolve(store.ledgerInfo()).catch(() => null)
    const extent = info === null ? 'empty ledger' : `blocks ${info.oldest_block_height}..${info.block_height}`
    io.stderr.write(`ledger-gas serve: listening on ${address}/v1 (${extent} from ${source})\n`)
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
