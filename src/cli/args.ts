import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './errors.js'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * Parses a subcommand's flags with `node:util.parseArgs` (strict: unknown flags and stray
 * positionals are usage errors). `--help` is always accepted and returned as `help: true`.
 */
export type Flags<O extends Options> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string
} & { help?: boolean }

export function parseFlags<O extends Options>(command: string, args: string[], options: O): Flags<O> {
  try {
    const { values } = parseArgs({ args: negativeValuesJoined(args, options), options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false })
    return values as Flags<O>
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (see 'ledger-gas ${command} --help')`)
  }
}

/**
 * `--flag -5` as `--flag=-5` for a flag that takes a value: `parseArgs` reads a value starting
 * with a dash as ambiguous and asks for `--flag=-XYZ`, while the number's own check (`intFlag`)
 * can say what the flag accepts.
 */
function negativeValuesJoined(args: string[], options: Options): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    const next = args[i + 1]
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-[0-9.]/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else out.push(arg)
  }
  return out
}

/** Reads a required flag or throws a usage error naming it. */
export function required<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`missing required option --${flag}`)
  return value
}


/** Parses a non-negative integer flag; a negative value is refused as what the flag accepts (positive, or zero or positive). */
export function intFlag(value: string | undefined, flag: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback
  if (/^-[0-9]+$/.test(value)) throw new UsageError(`--${flag} must be ${min >= 1 ? 'a positive integer' : 'zero or a positive integer'}, got '${value}'`)
  if (!/^[0-9]+$/.test(value)) throw new UsageError(`--${flag} must be an integer, got '${value}'`)
  const n = Number(value)
  if (n < min || n > max) throw new UsageError(`--${flag} must be between ${min} and ${max}, got ${n}`)
  return n
}

/**
 * Parses a flag whose value is one of `choices`; anything else is a usage error listing them.
 *
 * @example choiceFlag('calibrated', 'estimator', ['aptos', 'calibrated'], 'aptos') // 'calibrated'
 */
export function choiceFlag<C extends string>(value: string | undefined, flag: string, choices: readonly C[], fallback: C): C {
  if (value === undefined) return fallback
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of ${choices.join(', ')}, got '${value}'`)
  return value as C
}

/** Prefix of the environment variables that stand in for a command's flags. */
export const ENV_PREFIX = 'LEDGER_GAS_'

/**
 * The environment variable of a flag: `LEDGER_GAS_` and the flag in upper snake case.
 *
 * @example envName('store-timeout') // 'LEDGER_GAS_STORE_TIMEOUT'
 */
export function envName(flag: string): string {
  return `${ENV_PREFIX}${flag.toUpperCase().replace(/-/g, '_')}`
}

/**
 * Fills the flags `names` not given on the command line from their environment variables
 * (`envName`); a flag given on the command line wins. Empty variables count as unset.
 * Returns the flags and, for messages, where each value came from (`--flag` or the variable).
 *
 * @example withEnv({ port: undefined }, ['port'], { LEDGER_GAS_PORT: '9000' }).flags.port // '9000'
 */
export function withEnv<F extends Record<string, unknown>>(flags: F, names: readonly (keyof F & string)[], env: NodeJS.ProcessEnv): { flags: F; origin: (flag: keyof F & string) => string } {
  const out: Record<string, unknown> = { ...flags }
  const fromEnv = new Set<string>()
  for (const name of names) {
    const value = env[envName(name)]
    if (out[name] === undefined && value !== undefined && value !== '') {
      out[name] = value
      fromEnv.add(name)
    }
  }
  return { flags: out as F, origin: (flag) => (fromEnv.has(flag) ? envName(flag) : `--${flag}`) }
}
