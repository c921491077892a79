import { formatFollowEvent } from '../../follow/events.js'
import { ingestFromNode } from '../../follow/ingest-node.js'
import { ingestJsonLines } from '../../ledger/ingest.js'
import { regularFileSize, sourceName } from '../../ledger/read/lines.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS, DEFAULT_MAX_LINE_BYTES } from '../../ledger/store/limits.js'
import type { OutageOptions } from '../../ledger/ingest/outage.js'
import type { BatchAppendStore } from '../../ledger/store/store.js'
import { intFlag, parseFlags, required } from '../args.js'
import { InterruptedError, UsageError } from '../errors.js'
import { EXIT } from '../exit-codes.js'
import { warn, type CliIo, type Command } from '../io.js'
import { openLedger } from '../open-store.js'
import { checkInput } from '../paths.js'
export { reportFailure } from '../run-command.js'

const HELP = `usage: ledger-gas ingest --db FILE|URL --input FILE.jsonl|- [--chain-id N] [--batch N]
                         [--commit-interval MS] [--max-line-bytes N] [--max-block-txns N]
       ledger-gas ingest --db FILE|URL --from-node URL [--once] [--interval MS] [--chain-id N]
                         [--batch N] [--max-block-txns N]
       ledger-gas ingest --db FILE|URL --from-stream URL [--starting-version N] [--to-version N]
                         [--stream-api-key KEY] [--chain-id N] [--batch N] [--max-block-txns N]

Appends the blocks of a JSON Lines chain file (one block per line, as GET
/v1/blocks/by_height/{h}?with_transactions=true returns it) to a SQLite or PostgreSQL
ledger, creating it if needed; a database that is not a ledger of this tool is refused and
left untouched. Each block is appended all-or-nothing; gaps and duplicates are refused.
Resumable: blocks already in the ledger are skipped when identical.

  --db FILE        SQLite ledger to append to
  --db postgres://USER@HOST:PORT/DB[?schema=NAME]
                   PostgreSQL ledger to append to (tables created in an empty schema; a
                   schema holding other tables is refused; password from the URL or PGPASSWORD)
  --input FILE     chain file, or - for standard input
  --chain-id N     chain id of a new ledger (0..255, default 4); must match an existing one
  --batch N        blocks per database transaction (default 4096 for a file, at most
                   20,000 transactions; 64 with --from-node)
  --commit-interval MS
                   commit what was read once MS have passed since the first uncommitted
                   block, batch full or not (default 1000 when --input is a stream: - or a
                   pipe, so a live feed reaches replicas within about a second; a regular
                   file commits full batches only unless this is given)
  --max-line-bytes N   longest input line (one block) accepted (default ${DEFAULT_MAX_LINE_BYTES}, 64 MiB)
  --max-block-txns N   most transactions per block accepted (default ${DEFAULT_MAX_BLOCK_TRANSACTIONS})

A line or block over a limit stops the ingest with an error naming the file, the line and
the field; the blocks before it stay committed.

Outages of the database (a lost connection, a PostgreSQL restart or failover, a SQLite
file locked by another writer) are ridden out: the ingest keeps what it has read, retries
with backoff (a line on standard error per retry), re-reads the ledger's tip and goes on,
with no block lost or appended twice. It exits only on what retrying cannot fix (bad data,
a foreign schema, a refused password, a full disk), with the reason. A database that
cannot be reached when the ingest starts is a configuration error: exit 2 at once.

With --from-node the blocks come from an Aptos-compatible node (or 'ledger-gas serve'):
  --from-node URL  the node's API root, /v1 included; the ledger continues from its newest
                   block (an empty one starts 1000 blocks below the node's newest)
  --once           stop once the ledger reaches the node's height (default: keep following
                   until SIGINT/SIGTERM, one commit per new block)
  --interval MS    wait between polls of the node once caught up (default 1000)

With --from-stream the blocks come from an Aptos Transaction Stream (gRPC
aptos.indexer.v1.RawData/GetTransactions, as Aptos Labs and node providers serve it):
  --from-stream URL      https://host:443 (TLS) or http://host:port (plaintext); the ledger
                         continues from its newest block; a new ledger takes the stream's chain id
  --starting-version N   where an empty ledger starts (at the first block beginning at or after
                         N; default the stream's newest block)
  --to-version N         stop once the block holding version N is appended (default: keep
                         following until SIGINT/SIGTERM)
  --stream-api-key KEY   sent as 'authorization: Bearer KEY' (default from LEDGER_GAS_STREAM_API_KEY)
  --batch N              most blocks per database transaction (default 4096)
`

/** `ledger-gas ingest`: append a chain file to a SQLite ledger and print a one-line summary. */
export const run: Command = async (args, io) => {
  const flags = parseFlags('ingest', args, {
    db: { type: 'string' },
    input: { type: 'string' },
    'chain-id': { type: 'string' },
    batch: { type: 'string' },
    'max-line-bytes': { type: 'string' },
    'max-block-txns': { type: 'string' },
    'from-node': { type: 'string' },
    once: { type: 'boolean' },
    interval: { type: 'string' },
    'commit-interval': { type: 'string' },
    'from-stream': { type: 'string' },
    'starting-version': { type: 'string' },
    'to-version': { type: 'string' },
    'stream-api-key': { type: 'string' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return EXIT.ok
  }
  const db = required(flags.db, 'db')
  const streamOnly = (['starting-version', 'to-version', 'stream-api-key'] as const).find((f) => flags[f] !== undefined)
  if (flags['from-stream'] !== undefined) {
    const clash = (['input', 'from-node', 'once', 'interval', 'max-line-bytes'] as const).find((f) => flags[f] !== undefined)
    if (clash !== undefined) throw new UsageError(`--${clash} does not apply to --from-stream`)
    // Loaded only here: gRPC is a heavy import that other commands need not pay for at startup.
    const { ingestStreamCommand } = await import('../stream-ingest.js')
    return ingestStreamCommand(flags['from-stream'], db, flags, io)
  }
  if (streamOnly !== undefined) throw new UsageError(`--${streamOnly} applies only to --from-stream`)
  if (flags['from-node'] !== undefined) return fromNode(flags['from-node'], db, flags, io)
  const input = required(flags.input, 'input')
  const chainIdFlag = flags['chain-id']
  const chainId = chainIdFlag === undefined ? undefined : intFlag(chainIdFlag, 'chain-id', 0, 0, 255)
  const batchBlocks = intFlag(flags.batch, 'batch', 4096, 1, 1_000_000)
  const maxLineBytes = intFlag(flags['max-line-bytes'], 'max-line-bytes', DEFAULT_MAX_LINE_BYTES, 1)
  const maxBlockTransactions = intFlag(flags['max-block-txns'], 'max-block-txns', DEFAULT_MAX_BLOCK_TRANSACTIONS, 1)
  await checkInput(input, 'input')
  // A stream is paced by its producer: commit on time as well. A regular file keeps full batches.
  const stream = (await regularFileSize(input)) < 0
  const commitIntervalFlag = flags['commit-interval']
  const commitIntervalMs = commitIntervalFlag === undefined && !stream ? undefined : intFlag(commitIntervalFlag, 'commit-interval', 1000, 1, 86_400_000)
  // A database that is not a ledger of ours (another program's SQLite file or schema) is refused untouched.
  const opened = await openLedger(db, { readonly: false, chainId, maxBlockTransactions })
  const store: BatchAppendStore = opened.store
  try {
    const started = performance.now()
    const summary = await ingestJsonLines(input, store, { stdin: io.stdin, signal: io.signal, batchBlocks, maxLineBytes, commitIntervalMs, outage: outageLog(io) })
    const seconds = (performance.now() - started) / 1000
    const tip = summary.ledger === null ? 'ledger empty' : `ledger version ${summary.ledger.ledger_version}, block height ${summary.ledger.block_height}`
    const rate = summary.appended > 0 ? `, ${Math.round(summary.appended / seconds)} blocks/s` : ''
    io.stdout.write(`ingest: ${summary.appended} blocks appended, ${summary.skipped} skipped (already in ${opened.source}); ${tip}; ${seconds.toFixed(2)} s${rate}\n`)
    if (summary.interrupted) throw new InterruptedError('interrupted; blocks read so far are committed, run again to resume')
    if (summary.appended + summary.skipped === 0) warn(io, 'ingest', `no blocks in ${sourceName(input)}`)
    return EXIT.ok
  } finally {
    await store.close()
  }
}

/** `ingest --from-node`: append a node's blocks, once up to its height or following it. */
async function fromNode(node: string, db: string, flags: { 'chain-id'?: string | undefined; batch?: string | undefined; 'max-block-txns'?: string | undefined; input?: string | undefined; once?: boolean | undefined; interval?: string | undefined; 'commit-interval'?: string | undefined }, io: CliIo): Promise<number> {
  if (flags.input !== undefined) throw new UsageError('--input and --from-node cannot be used together')
  if (flags['commit-interval'] !== undefined) throw new UsageError('--commit-interval paces commits of an --input stream; with --from-node each block commits as it comes once caught up')
  let protocol: string | undefined
  try {
    protocol = new URL(node).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--from-node must be an http(s) URL of the node's API, /v1 included, got '${node}'`)
  const chainIdFlag = flags['chain-id']
  const chainId = chainIdFlag === undefined ? undefined : intFlag(chainIdFlag, 'chain-id', 0, 0, 255)
  const batchBlocks = intFlag(flags.batch, 'batch', 64, 1, 1_000_000)
  const maxBlockTransactions = intFlag(flags['max-block-txns'], 'max-block-txns', DEFAULT_MAX_BLOCK_TRANSACTIONS, 1)
  const intervalMs = intFlag(flags.interval, 'interval', 1000, 1, 86_400_000)
  const opened = await openLedger(db, { readonly: false, chainId, maxBlockTransactions })
  const log = (line: string) => io.stderr.write(`ledger-gas ingest: ${line}\n`)
  try {
    const started = performance.now()
    const summary = await ingestFromNode({
      url: node,
      store: opened.store,
      signal: io.signal,
      once: flags.once ?? false,
      batchBlocks,
      intervalMs,
      onAppend: (height, blocks) => {
        if (!flags.once) log(`block ${height} (+${blocks})`)
      },
      onRetry: (e) => log(formatFollowEvent(e)),
      outage: outageLog(io),
    })
    const seconds = (performance.now() - started) / 1000
    const rate = summary.appended > 0 ? `, ${Math.round(summary.appended / seconds)} blocks/s` : ''
    io.stdout.write(`ingest: ${summary.appended} blocks appended from ${node} to ${opened.source}; block height ${summary.height ?? '(none)'}; ${seconds.toFixed(2)} s${rate}\n`)
    return EXIT.ok
  } finally {
    await opened.store.close()
  }
}

/** Outage reports of a writer on standard error: each retry with its wait, and the recovery. */
function outageLog(io: CliIo): OutageOptions {
  const log = (line: string) => io.stderr.write(`ledger-gas ingest: ${line}\n`)
  return {
    onOutage: (e) => log(`${e.error.message}; retry ${e.attempt} in ${e.delayMs} ms (what was read is kept)`),
    onRecovered: (attempts) => log(`ledger reachable again after ${attempts} ${attempts === 1 ? 'retry' : 'retries'}; going on`),
  }
}
