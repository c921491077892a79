import { stringifyExact } from '../../core/wire.js'
import { formatFollowEvent } from '../../follow/events.js'
import { followNode } from '../../follow/follow-node.js'
import type { FollowMode } from '../../follow/follow-options.js'
import { choiceFlag, intFlag, parseFlags, required } from '../args.js'
import { loadCalibratedConfigFile, loadConfigFile } from '../config-file.js'
import { UsageError } from '../errors.js'
import type { Command } from '../io.js'
export { reportFailure } from '../run-command.js'

const MODES: readonly FollowMode[] = ['aptos', 'calibrated']

const HELP = `usage: ledger-gas follow --node URL [--config FILE.json] [--interval MS]
                         [--estimator aptos|calibrated] [--calibrated-config FILE.json] [--backfill N]

Follows an Aptos-compatible node (or 'ledger-gas serve') over HTTP and keeps the gas estimate
locally: reads the newest blocks (aggressive_block_history + 1, or the calibrated window), then
polls for new ones. Prints one JSON line per new estimate (once caught up, then once per new block):
{"block_height":"…","epoch":"…","deprioritized_gas_estimate":…,"gas_estimate":…,"prioritized_gas_estimate":…}

  --node URL          the node's API root, /v1 included (e.g. http://127.0.0.1:8080/v1)
  --config FILE.json  estimator configuration (Aptos key names); use the node's to get its numbers
  --interval MS       wait between polls once caught up (default 1000)
  --estimator MODE    aptos (the node's algorithm) or calibrated (tiers that promise inclusion
                      within k blocks with probability q) (default aptos)
  --calibrated-config FILE.json
                      promises, window and learning rate of the calibrated estimator
  --backfill N        blocks read before the first estimate, and the most caught up block by
                      block (default aggressive_block_history + 1, or the calibrated window)

Retries, skipped blocks and epoch changes are logged on stderr. Stops on SIGINT/SIGTERM with
exit 0; exits 1 when the node stays unreachable through the retries or answers what cannot be used.
`

function checkNode(url: string): string {
  let protocol: string | undefined
  try {
    protocol = new URL(url).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--node must be an http(s) URL of the node's API, /v1 included, got '${url}'`)
  return url
}

export const run: Command = async (args, io) => {
  const flags = parseFlags('follow', args, {
    node: { type: 'string' },
    config: { type: 'string', short: 'c' },
    interval: { type: 'string' },
    estimator: { type: 'string' },
    'calibrated-config': { type: 'string' },
    backfill: { type: 'string' },
  })
  if (flags.help) {
    io.stdout.write(HELP)
    return 0
  }
  const url = checkNode(required(flags.node, 'node'))
  const intervalMs = intFlag(flags.interval, 'interval', 1000, 1, 86_400_000)
  const mode = choiceFlag(flags.estimator, 'estimator', MODES, 'aptos')
  const backfillBlocks = flags.backfill === undefined ? undefined : intFlag(flags.backfill, 'backfill', 0, 1, 10_000_000)
  const config = await loadConfigFile(flags.config)
  const calibrated = await loadCalibratedConfigFile(flags['calibrated-config'])
  const log = (line: string) => io.stderr.write(`ledger-gas follow: ${line}\n`)
  const follower = followNode({
    url,
    config,
    mode,
    calibrated,
    backfillBlocks,
    intervalMs,
    signal: io.signal,
    onEstimate: (u) => io.stdout.write(`${stringifyExact({ block_height: String(u.block_height), epoch: String(u.epoch), ...u.estimate })}\n`),
    onEvent: (e) => log(formatFollowEvent(e)),
  })
  await follower.done
  log(`stopped at block ${follower.asOf?.block_height ?? '(none)'}`)
  return 0
}
