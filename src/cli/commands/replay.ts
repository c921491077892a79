import { createEstimator } from '../../core/estimator.js'
import { InvalidDataError } from '../../ledger/store/errors.js'
import { openInput } from '../../replay/read-input.js'
import { parseFlags, required } from '../args.js'
import { loadConfigFile } from '../config-file.js'
import { stdinFor, warn, type Command } from '../io.js'
import { openOutput } from '../output.js'
import { checkInput } from '../paths.js'
export { reportFailure } from '../run-command.js'

const HELP = `usage: ledger-gas replay --input FILE|- [--config FILE.json] [--output FILE|-]

Writes one JSON line per ingested block: its height and epoch (u64 strings, as the node writes
them) and the estimate right after it (JSON integers):
{"block_height":"7","epoch":"2","deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}
--output - (the default) is standard output.
`

/** Lines are gathered into chunks of about this many characters before each write. */
const CHUNK_CHARS = 1 << 16

export const run: Command = async (args, io) => {
  const flags = parseFlags('replay', args, {
    input: { type: 'string', short: 'i' },
    config: { type: 'string', short: 'c' },
    output: { type: 'string', short: 'o' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  const input = required(flags.input, 'input')
  const output = flags.output ?? '-'
  const estimator = createEstimator(await loadConfigFile(flags.config))
  await checkInput(input, 'input')
  const out = await openOutput(output, 'output', io)
  // openInput chooses how the file is read (parser or scanner by size): same blocks and errors.
  const { file, runs } = await openInput(input, 'jsonl', stdinFor(io, input))
  let blocks = 0
  let chunk = ''
  try {
    // A run at a time: the blocks of one chunk of the file without an asynchronous step between them.
    for await (const run of runs) {
      for (const { line, block } of run) {
        let priced
        try {
          priced = estimator.ingest(block)
        } catch (error) {
          throw InvalidDataError.at(file, line, error)
        }
        blocks++
        const e = estimator.estimate()
        chunk += `{"block_height":"${priced.block_height}","epoch":"${priced.epoch}","deprioritized_gas_estimate":${e.deprioritized_gas_estimate},"gas_estimate":${e.gas_estimate},"prioritized_gas_estimate":${e.prioritized_gas_estimate}}\n`
        if (chunk.length >= CHUNK_CHARS) {
          await out.write(chunk)
          chunk = ''
          if (out.gone) return 0
        }
      }
    }
  } catch (error) {
    // The lines of the blocks before a bad one are kept.
    await out.write(chunk).catch(() => undefined)
    await out.end().catch(() => undefined)
    throw error
  }
  await out.write(chunk)
  await out.end()
  if (blocks === 0) warn(io, 'replay', `no blocks in ${file}`)
  return 0
}
