import { stringifyExact } from '../../core/wire.js'
import { InvalidStrategyError } from '../../replay/errors.js'
import { formatTable } from '../../replay/report/format-table.js'
import { DEFAULT_STRATEGIES, STRATEGY_SYNTAX, parseStrategies } from '../../replay/strategies/parse-strategies.js'
import { detectFormat, openInput, type InputFormat } from '../../replay/read-input.js'
import { renderReport } from '../../replay/report/report-html.js'
import { toBacktestJson } from '../../replay/result-json.js'
import { MAX_K } from '../../replay/scorer.js'
import { runBacktest } from '../../replay/backtest.js'
import { parseFlags, required } from '../args.js'
import { loadConfigFile } from '../config-file.js'
import { UsageError } from '../errors.js'
import { stdinFor, warn, type CliIo, type Command } from '../io.js'
import { writeOutput } from '../output.js'
import { checkInput, checkOutput } from '../paths.js'
export { reportFailure } from '../run-command.js'

const HELP = `usage: ledger-gas backtest --input FILE|- [--strategies LIST] [--k 1,3,10] [--config FILE.json]
                          [--json OUT.json|-] [--report OUT.html|-] [--format jsonl|csv]

Replays recorded blocks through several gas-price strategies in one streaming pass (constant
memory, any length) and scores every tier of every strategy on the block data alone: a txn priced
p, submitted right after block t, is included in block j > t iff block j was not full or p is
strictly above the cheapest price included in j. Prints a table; --json writes the metrics,
--report a self-contained HTML report with charts. Either may be - (standard output; the table
then goes to standard error). Output paths are checked before the input is read.

  --input FILE|-     node block JSON Lines (or compact summaries), or a per-transaction CSV with
                     a header naming block_height and gas_unit_price (optional epoch, gas_used;
                     missing heights are empty blocks; rows grouped by non-decreasing height)
  --format F         jsonl or csv (default: csv for *.csv, else jsonl)
  --k LIST           horizons in blocks, comma-separated (default 1,3,10)
  --config FILE      estimator config (Aptos key names): fullness rules and floor for scoring,
                     and the base of every aptos strategy (default: Aptos defaults)
  --strategies LIST  default ${DEFAULT_STRATEGIES}

${STRATEGY_SYNTAX}

Metrics per tier: inclusion rate within k (blocks t with t+k inside the data), overpayment p - p*
with p* = max(min_gas_unit_price, min over j in t+1..t+k of (0 if j not full else cheapest_j+1))
over included txns (median and p90 in octas/gas unit at the smallest k), mean delay in blocks.
`

export const run: Command = async (args, io) => {
  const flags = parseFlags('backtest', args, {
    input: { type: 'string', short: 'i' },
    strategies: { type: 'string', short: 's' },
    k: { type: 'string' },
    config: { type: 'string', short: 'c' },
    json: { type: 'string' },
    report: { type: 'string' },
    format: { type: 'string' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  const input = required(flags.input, 'input')
  if (flags.format !== undefined && flags.format !== 'jsonl' && flags.format !== 'csv') {
    throw new UsageError(`--format must be jsonl or csv, got '${flags.format}'`)
  }
  const ks = parseKs(flags.k ?? '1,3,10')
  const config = await loadConfigFile(flags.config)
  let strategies
  try {
    strategies = parseStrategies(flags.strategies ?? DEFAULT_STRATEGIES, config)
  } catch (error) {
    if (error instanceof InvalidStrategyError) throw new UsageError(`--strategies: ${error.message} (see 'ledger-gas backtest --help')`)
    throw error
  }
  const json = flags.json
  const report = flags.report
  if (json === '-' && report === '-') throw new UsageError('--json and --report cannot both be - (standard output)')
  // Fail now, not after a long run: every path is checked before the input is read.
  await checkInput(input, 'input')
  if (json !== undefined) await checkOutput(json, 'json')
  if (report !== undefined) await checkOutput(report, 'report')

  const opened = await openInput(input, detectFormat(input, flags.format as InputFormat | undefined), stdinFor(io, input))
  const progress = io.stderr.isTTY === true ? progressBar(io, opened.bytesRead, opened.totalBytes) : undefined
  let result
  try {
    result = await runBacktest(opened.blocks, { strategies, ks, config }, progress?.update)
  } finally {
    progress?.done()
  }
  if (result.blocks === 0) warn(io, 'backtest', `no blocks in ${opened.file}`)
  const metrics = toBacktestJson(result)
  // Standard output carries the one document asked for there; the table then goes to stderr.
  ;(json === '-' || report === '-' ? io.stderr : io.stdout).write(formatTable(metrics))
  if (json !== undefined) await writeOutput(json, 'json', `${stringifyExact(metrics)}\n`, io)
  if (report !== undefined) await writeOutput(report, 'report', renderReport(result, metrics, { input: opened.file }), io)
  return 0
}

function parseKs(text: string): number[] {
  const parts = text.split(',').map((s) => s.trim())
  const ks = parts.map((p) => {
    if (!/^[0-9]+$/.test(p) || Number(p) < 1 || Number(p) > MAX_K) throw new UsageError(`--k must list integers from 1 to ${MAX_K}, got '${p}'`)
    return Number(p)
  })
  return [...new Set(ks)].sort((a, b) => a - b)
}

/** A one-line progress bar on stderr (only used when stderr is a terminal), redrawn at most 10 times a second. */
function progressBar(io: CliIo, bytesRead: () => number, total: number | null): { update: (blocks: number) => void; done: () => void } {
  let last = 0
  const started = Date.now()
  let drawn = false
  return {
    update(blocks) {
      const now = Date.now()
      if (now - last < 100) return
      last = now
      const rate = Math.round(blocks / Math.max((now - started) / 1000, 1e-3))
      let bar = ''
      if (total !== null && total > 0) {
        const f = Math.min(1, bytesRead() / total)
        const w = 30
        bar = `[${'#'.repeat(Math.round(f * w)).padEnd(w, '.')}] ${(f * 100).toFixed(0).padStart(3)}% `
      }
      io.stderr.write(`\r${bar}${blocks.toLocaleString('en-US')} blocks, ${rate.toLocaleString('en-US')} blocks/s `)
      drawn = true
    },
    done() {
      if (drawn) io.stderr.write('\r\x1b[K')
    },
  }
}
