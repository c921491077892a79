import { ingestJsonLines } from '../../ledger/ingest.js'
import { sourceName } from '../../ledger/lines.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS, DEFAULT_MAX_LINE_BYTES } from '../../ledger/limits.js'
import { SqliteStore } from '../../ledger/sqlite-store.js'
import { intFlag, parseFlags, required } from '../args.js'
import { InterruptedError } from '../errors.js'
import { EXIT } from '../exit-codes.js'
import { warn, type Command } from '../io.js'
import { checkInput } from '../paths.js'

const HELP = `usage: ledger-gas ingest --db FILE --input FILE.jsonl|- [--chain-id N] [--batch N]
                         [--max-line-bytes N] [--max-block-txns N]

Appends the blocks of a JSON Lines chain file (one block per line, as GET
/v1/blocks/by_height/{h}?with_transactions=true returns it) to a SQLite ledger,
creating it if needed; another program's SQLite file is refused and left untouched.
Each block is appended all-or-nothing; gaps and duplicates are refused. Resumable:
blocks already in the ledger are skipped when identical.

  --db FILE        SQLite ledger to append to
  --input FILE     chain file, or - for standard input
  --chain-id N     chain id of a new ledger (0..255, default 4); must match an existing one
  --batch N        blocks per SQLite transaction (default 256)
  --max-line-bytes N   longest input line (one block) accepted (default ${DEFAULT_MAX_LINE_BYTES}, 64 MiB)
  --max-block-txns N   most transactions per block accepted (default ${DEFAULT_MAX_BLOCK_TRANSACTIONS})

A line or block over a limit stops the ingest with an error naming the file, the line and
the field; the blocks before it stay committed.
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
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return EXIT.ok
  }
  const db = required(flags.db, 'db')
  const input = required(flags.input, 'input')
  const chainIdFlag = flags['chain-id']
  const chainId = chainIdFlag === undefined ? undefined : intFlag(chainIdFlag, 'chain-id', 0, 0, 255)
  const batchBlocks = intFlag(flags.batch, 'batch', 256, 1, 1_000_000)
  const maxLineBytes = intFlag(flags['max-line-bytes'], 'max-line-bytes', DEFAULT_MAX_LINE_BYTES, 1)
  const maxBlockTransactions = intFlag(flags['max-block-txns'], 'max-block-txns', DEFAULT_MAX_BLOCK_TRANSACTIONS, 1)
  await checkInput(input, 'input')
  // A file that is not a ledger of ours (another program's SQLite database) is refused untouched.
  const store = SqliteStore.open(db, chainId === undefined ? { maxBlockTransactions } : { chainId, maxBlockTransactions })
  try {
    const started = performance.now()
    const summary = await ingestJsonLines(input, store, { stdin: io.stdin, signal: io.signal, batchBlocks, maxLineBytes })
    const seconds = (performance.now() - started) / 1000
    const tip = summary.ledger === null ? 'ledger empty' : `ledger version ${summary.ledger.ledger_version}, block height ${summary.ledger.block_height}`
    const rate = summary.appended > 0 ? `, ${Math.round(summary.appended / seconds)} blocks/s` : ''
    io.stdout.write(`ingest: ${summary.appended} blocks appended, ${summary.skipped} skipped (already in ${db}); ${tip}; ${seconds.toFixed(2)} s${rate}\n`)
    if (summary.interrupted) throw new InterruptedError('interrupted; blocks read so far are committed, run again to resume')
    if (summary.appended + summary.skipped === 0) warn(io, 'ingest', `no blocks in ${sourceName(input)}`)
    return EXIT.ok
  } finally {
    store.close()
  }
}
