/** What a command may touch of the process: injected so tests can run commands in-process. */
export interface CliIo {
  stdin: NodeJS.ReadableStream
  stdout: NodeJS.WritableStream
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  /** Aborted on SIGINT/SIGTERM, for long-running commands (serve, follow). */
  signal: AbortSignal
}

/** A subcommand: parses its own arguments, returns an exit code or throws (see exit-codes.ts). */
export type Command = (args: string[], io: CliIo) => Promise<number>

/** Prints `ledger-gas COMMAND: warning: MESSAGE` on stderr: something the user should know that is not an error. */
export function warn(io: CliIo, command: string, message: string): void {
  io.stderr.write(`ledger-gas ${command}: warning: ${message}\n`)
}
