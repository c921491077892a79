/**
 * What a command may touch of the process: injected so tests can run commands in-process. The
 * bin's standard streams are getters that open the stream when first read, so a command reads
 * `stdin` or `stdout` only when it uses it (`stdinFor`, `openOutput`).
 */
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

/**
 * Standard input for an input `path` of `-`, else `undefined`: the stream is asked for only when
 * it is read, since opening it costs a fresh process milliseconds.
 */
export function stdinFor(io: CliIo, path: string): NodeJS.ReadableStream | undefined {
  return path === '-' ? io.stdin : undefined
}
