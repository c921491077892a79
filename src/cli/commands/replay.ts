import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { createEstimator } from '../../core/estimator.js'
import { InvalidDataError } from '../../ledger/errors.js'
import { readBlocks } from '../../ledger/read-blocks.js'
import { parseFlags, required } from '../args.js'
import { loadConfigFile } from '../config-file.js'
import type { Command } from '../io.js'

const HELP = `usage: ledger-gas replay --input FILE|- [--config FILE.json] [--output FILE]

Writes one JSON line per ingested block: its height and epoch (u64 strings, as the node writes
them) and the estimate right after it (JSON integers):
{"block_height":"7","epoch":"2","deprioritized_gas_estimate":100,"gas_estimate":150,"prioritized_gas_estimate":300}
`

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
  const estimator = createEstimator(await loadConfigFile(flags.config))
  const out = flags.output === undefined || flags.output === '-' ? io.stdout : createWriteStream(flags.output)
  const file = input === '-' ? '<stdin>' : input
  let buffer = ''
  try {
    for await (const { line, block } of readBlocks(input, { stdin: io.stdin })) {
      let priced
      try {
        priced = estimator.ingest(block)
      } catch (error) {
        throw InvalidDataError.at(file, line, error)
      }
      const e = estimator.estimate()
      buffer += `{"block_height":"${priced.block_height}","epoch":"${priced.epoch}","deprioritized_gas_estimate":${e.deprioritized_gas_estimate},"gas_estimate":${e.gas_estimate},"prioritized_gas_estimate":${e.prioritized_gas_estimate}}\n`
      if (buffer.length > 1 << 16) {
        if (!out.write(buffer)) await once(out, 'drain')
        buffer = ''
      }
    }
  } finally {
    if (buffer.length > 0) out.write(buffer)
    if (out !== io.stdout) await new Promise<void>((resolve, reject) => (out as NodeJS.WritableStream).end((err?: Error | null) => (err ? reject(err) : resolve())))
  }
  return 0
}
