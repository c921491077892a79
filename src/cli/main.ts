#!/usr/bin/env node
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { MissingDependencyError, missingPackage } from '../ledger/optional-peer.js'
import { UsageError } from './errors.js'
import { EXIT } from './exit-codes.js'
import type { CliIo } from './io.js'
import { packageVersion } from './package-info.js'
import { reportFailure, type CommandModule } from './run-command.js'

/**
 * Subcommands, loaded on use so `serve` does not pay for `backtest` and the reverse. In the
 * built bin each is a file of its own, and the engine's commands hold all their code in that
 * one file: a fresh process pays per module it loads (tsup.config.ts).
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  estimate: { summary: 'print the final estimate of a chain file', load: () => import('./commands/estimate.js') },
  replay: { summary: 'print the estimate after each block', load: () => import('./commands/replay.js') },
  generate: { summary: 'write a synthetic chain', load: () => import('./commands/generate.js') },
  backtest: { summary: 'score estimators on recorded blocks', load: () => import('./commands/backtest.js') },
  ingest: { summary: 'append a chain file or a node\'s blocks to a SQLite or PostgreSQL ledger', load: () => import('./commands/ingest.js') },
  serve: { summary: 'serve the read API', load: () => import('./commands/serve.js') },
  follow: { summary: 'follow a node over HTTP and print estimates', load: () => import('./commands/follow.js') },
}

const USAGE = `usage: ledger-gas <command> [options]\n\ncommands:\n${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)}${c.summary}`)
  .join('\n')}\n\noptions:\n  -h, --help     print this help\n  -v, --version  print the version\n\nRun 'ledger-gas <command> --help' for a command's options.\n`

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h') {
    ;(name === undefined ? io.stderr : io.stdout).write(USAGE)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${packageVersion() ?? 'unknown'}\n`)
    return EXIT.ok
  }
  const command = COMMANDS[name]
  let loaded: CommandModule
  try {
    if (command === undefined) throw new UsageError(`unknown command '${name}'\n\n${USAGE}`)
    loaded = await command.load().catch((error: unknown) => {
      // The server's packages are optional peers: a command whose module needs one that is not
      // installed says which to install, instead of Node's resolution error.
      const pkg = missingPackage(error)
      throw pkg === null ? error : new MissingDependencyError(pkg, `the ${name} command`, { cause: error })
    })
  } catch (error) {
    return reportFailure(name, error, io)
  }
  try {
    return await loaded.run(rest, io)
  } catch (error) {
    return loaded.reportFailure(name, error, io)
  }
}

if (isEntry()) {
  const controller = new AbortController()
  // A command that stops on SIGINT/SIGTERM reads `io.signal` (serve, follow, ingest, generate);
  // one that never did (replay, backtest, estimate) has nothing to stop, so the signal takes its
  // default action and ends the process, as it would with no handler: Ctrl-C on `replay --input -`
  // waiting on a terminal, or on a long backtest, must not be swallowed.
  let watched = false
  const stop = (signal: NodeJS.Signals) => {
    if (watched) controller.abort()
    else process.kill(process.pid, signal)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  // Getters: Node opens each standard stream the first time it is asked for, which costs a fresh
  // process milliseconds, and `replay --input FILE --output FILE` needs none of them.
  const written = new Set<NodeJS.WriteStream>()
  const io: CliIo = {
    get stdin() {
      return process.stdin
    },
    get stdout() {
      written.add(process.stdout)
      return process.stdout
    },
    get stderr() {
      written.add(process.stderr)
      return process.stderr
    },
    get signal() {
      watched = true
      return controller.signal
    },
  }
  main(process.argv.slice(2), io).then((code) => {
    process.exitCode = code
    // A command returns once its work is done (serve and follow after their shutdown), so the
    // process ends here rather than after Node's teardown of the heap and its threads, which a
    // one-shot run on a small file measurably waits for. Not while standard output or error
    // still holds bytes (pipes are asynchronous on some systems): the process then ends as
    // before, when they drain.
    if ([...written].every((stream) => stream.writableLength === 0)) process.exit()
  })
}

/**
 * True when this module is the process's entry script (also through an npm bin symlink). The
 * loader gives this module's URL as its real path, so a script path that resolves to it as it is
 * needs no look-up; a symlink's is resolved by one system call (`realpathSync.native`).
 */
function isEntry(): boolean {
  const script = process.argv[1]
  if (script === undefined) return false
  const self = fileURLToPath(import.meta.url)
  if (resolve(script) === self) return true
  try {
    return realpathSync.native(script) === realpathSync.native(self)
  } catch {
    return false
  }
}
