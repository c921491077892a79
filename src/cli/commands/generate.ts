import { CHAIN_DEFAULTS, generateChain, SCENARIOS, type Scenario } from '../../sim/index.js'
import { intFlag, parseFlags, required } from '../args.js'
import { UsageError } from '../errors.js'
import type { Command } from '../io.js'
import { openOutput } from '../output.js'
export { reportFailure } from '../run-command.js'

const HELP = `usage: ledger-gas generate --blocks N --seed S --output FILE|- [options]

Writes a synthetic chain from a seeded mempool model: one block per line in the node's block
JSON (block metadata, user transactions, block epilogue with end info). Same options, same bytes.

options:
  --blocks N             blocks to write
  --seed S               seed of every random choice (integer)
  --output FILE|-        where to write (- is standard output)
  --scenario NAME        what demand the chain sees (default ${CHAIN_DEFAULTS.scenario}):
                         calm | surge | sustained | mixed: fixed cycles of calm
                           blocks, bursts, congestion and a hot mint (0–3% of
                           blocks full, except sustained: nearly all)
                         switching: a seeded regime chain over calm, busy and
                           congested stretches of tens to hundreds of blocks,
                           with now and then a surge, hot mint or sustained run
                         congested-10 | congested-20 | … | congested-90: busy and
                           congested stretches alternating so that N% of
                           blocks are full; senders bid near a drifting going
                           rate, so full blocks' cheapest prices are spread
                         bursts: calm with a surge every 300–900 blocks
                         drift: market congestion whose going rate drifts
                           slowly from 150 to 1,500 and back (4,000 blocks)
                         iid-10 | iid-50 | iid-90: each block on its own
                           congested or calm, N% of blocks full
  --epoch-blocks N       blocks per epoch (default ${CHAIN_DEFAULTS.epoch_blocks})
  --checkpoint-epochs N  leading epochs whose blocks end with a state checkpoint
                         instead of a block epilogue (default ${CHAIN_DEFAULTS.checkpoint_epochs})
  --accounts N           sending accounts (default ${CHAIN_DEFAULTS.accounts})

Prints a one-line summary to standard error.
`

/** Lines are gathered into chunks of about this many characters before each write. */
const CHUNK_CHARS = 1 << 20

export const run: Command = async (args, io) => {
  const flags = parseFlags('generate', args, {
    blocks: { type: 'string', short: 'n' },
    seed: { type: 'string', short: 's' },
    output: { type: 'string', short: 'o' },
    scenario: { type: 'string' },
    'epoch-blocks': { type: 'string' },
    'checkpoint-epochs': { type: 'string' },
    accounts: { type: 'string' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  const blocks = intFlag(required(flags.blocks, 'blocks'), 'blocks', 0, 1)
  const seed = intFlag(required(flags.seed, 'seed'), 'seed', 0)
  const output = required(flags.output, 'output')
  const scenario = (flags.scenario ?? CHAIN_DEFAULTS.scenario) as Scenario
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`--scenario must be one of ${SCENARIOS.join(', ')}, got '${scenario}'`)
  const options = {
    blocks,
    seed,
    scenario,
    epoch_blocks: intFlag(flags['epoch-blocks'], 'epoch-blocks', CHAIN_DEFAULTS.epoch_blocks, 1),
    checkpoint_epochs: intFlag(flags['checkpoint-epochs'], 'checkpoint-epochs', CHAIN_DEFAULTS.checkpoint_epochs),
    accounts: intFlag(flags.accounts, 'accounts', CHAIN_DEFAULTS.accounts, 1, 10_000_000),
  }

  const out = await openOutput(output, 'output', io)
  let written = 0
  let userTxns = 0
  let chunk = ''
  try {
    // Chunks are written as they fill; on backpressure `write` waits for 'drain', so memory
    // stays at about one chunk however many blocks are asked for.
    for (const { block } of generateChain(options)) {
      if (io.signal.aborted || out.gone) break
      chunk += `${JSON.stringify(block)}\n`
      written++
      userTxns += block.transactions.length - 2
      if (chunk.length >= CHUNK_CHARS) {
        await out.write(chunk)
        chunk = ''
      }
    }
    if (chunk.length > 0) await out.write(chunk)
  } catch (error) {
    await out.end().catch(() => undefined)
    throw error
  }
  await out.end()
  // The reader of a pipe went away (`generate … - | head`): stop quietly, as Unix tools do.
  if (out.gone) return 0
  io.stderr.write(`generate: ${written} blocks, ${userTxns} user transactions, scenario ${scenario}, seed ${seed} → ${output === '-' ? 'stdout' : output}\n`)
  return 0
}
