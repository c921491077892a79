import { exitCodeOf } from './exit-codes.js'
import type { CliIo, Command } from './io.js'

/**
 * What a command module exports: its `run`, and `reportFailure` for what `run` throws. The
 * built bin loads each command as a bundle of its own (tsup.config.ts), which holds its own copy
 * of the error classes; so a command's errors are judged by the `reportFailure` of the bundle
 * that threw them, whose `instanceof` checks see the same classes.
 */
export interface CommandModule {
  run: Command
  reportFailure: typeof reportFailure
}

/**
 * Tells the user what command `name` ended with: `ledger-gas NAME: MESSAGE` on standard error
 * (never a stack trace), and returns its exit code (`exitCodeOf`).
 */
export function reportFailure(name: string, error: unknown, io: CliIo): number {
  io.stderr.write(`ledger-gas ${name}: ${error instanceof Error ? error.message : String(error)}\n`)
  return exitCodeOf(error)
}
