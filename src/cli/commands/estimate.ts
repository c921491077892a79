import { createEstimator } from '../../core/estimator.js'
import { gasEstimateToJson } from '../../core/wire.js'
import { InvalidDataError } from '../../ledger/store/errors.js'
import { sourceName } from '../../ledger/read/lines.js'
import { scanBlocks } from '../../ledger/scan-blocks.js'
import { parseFlags, required } from '../args.js'
import { loadConfigFile } from '../config-file.js'
import { stdinFor, warn, type Command } from '../io.js'
import { checkInput } from '../paths.js'
export { reportFailure } from '../run-command.js'

const HELP = `usage: ledger-gas estimate --input FILE|- [--config FILE.json]

Ingests every block of a chain file (JSON Lines: the node's block JSON or compact summaries)
and prints the final estimate as one JSON line:
{"deprioritized_gas_estimate":…,"gas_estimate":…,"prioritized_gas_estimate":…}
`

export const run: Command = async (args, io) => {
  const flags = parseFlags('estimate', args, { input: { type: 'string', short: 'i' }, config: { type: 'string', short: 'c' } })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  const input = required(flags.input, 'input')
  const estimator = createEstimator(await loadConfigFile(flags.config))
  await checkInput(input, 'input')
  const file = sourceName(input)
  let blocks = 0
  for await (const { line, block } of scanBlocks(input, { stdin: stdinFor(io, input) })) {
    try {
      estimator.ingest(block)
    } catch (error) {
      throw InvalidDataError.at(file, line, error)
    }
    blocks++
  }
  if (blocks === 0) warn(io, 'estimate', `no blocks in ${file}`)
  io.stdout.write(`${gasEstimateToJson(estimator.estimate())}\n`)
  return 0
}
