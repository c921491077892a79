import { InvalidBlockError, InvalidConfigError, LedgerGasError } from '../../core/errors.js'
import { LedgerDatabaseError, LedgerUnavailableError } from '../store/database-error.js'
import { BlockContinuityError, InvalidDataError, LedgerContinuityError } from '../store/errors.js'

/**
 * An error as plain fields, which a structured clone carries whole from a worker thread to the
 * main thread. A structured clone of an `Error` itself keeps only its message and stack: it
 * arrives as a plain `Error`, without its class, its `code`, `file`, `line`, `field`, `detail`
 * or `errno`, and (on Node 20) without its `cause`.
 */
export interface ErrorFields {
  /** The class it is rebuilt as: the nearest class of `ERROR_CLASSES` on its prototype chain. */
  className: string
  message: string
  stack: string | undefined
  /** Its own enumerable fields whose values survive a structured clone (`name`, `code`, `file`, `line`, `errno` …). */
  fields: Record<string, unknown>
  /** Its `cause`, if it has one: an error as fields, any other value as it clones (or its text). */
  cause?: { error: ErrorFields } | { value: unknown }
}

/**
 * The classes an error is rebuilt as, by name: the errors of the ledger and the core that a
 * worker can throw, and JavaScript's own. Any other class is rebuilt as its nearest ancestor
 * here (a Node system error as `Error`, with its `code`, `errno`, `syscall` and `path`).
 */
const ERROR_CLASSES: Readonly<Record<string, new (...args: never[]) => Error>> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
  LedgerGasError,
  InvalidBlockError,
  InvalidConfigError,
  InvalidDataError,
  LedgerContinuityError,
  BlockContinuityError,
  LedgerDatabaseError,
  LedgerUnavailableError,
}

/** Causes deeper than this are cut (a cause chain may loop). */
const MAX_CAUSES = 8

/** Whether `value` survives a structured clone as it is (no function, no class instance lost on the way). */
function clones(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol'
  try {
    structuredClone(value)
    return true
  } catch {
    return false
  }
}

/** The name of the nearest class of `ERROR_CLASSES` on `error`'s prototype chain, matched by constructor name (the worker's classes are other copies). */
function classNameOf(error: Error): string {
  for (let proto: unknown = Object.getPrototypeOf(error); proto !== null && proto !== undefined; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name
    if (typeof name === 'string' && Object.hasOwn(ERROR_CLASSES, name)) return name
  }
  return 'Error'
}

/**
 * `error` as plain fields (`ErrorFields`), its `cause` chain too, for `postMessage`. A thrown
 * value that is not an `Error` becomes an `Error` whose message is its text.
 *
 * @example port.postMessage({ type: 'error', error: toErrorFields(error) })
 */
export function toErrorFields(error: unknown, depth = 0): ErrorFields {
  if (!(error instanceof Error)) return { className: 'Error', message: String(error), stack: undefined, fields: {} }
  const fields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(error)) if (key !== 'cause' && clones(value)) fields[key] = value
  const out: ErrorFields = { className: classNameOf(error), message: error.message, stack: error.stack, fields }
  if ('cause' in error && depth < MAX_CAUSES) {
    const cause: unknown = error.cause
    out.cause = cause instanceof Error ? { error: toErrorFields(cause, depth + 1) } : { value: clones(cause) ? cause : String(cause) }
  }
  return out
}

/**
 * The error `toErrorFields` took apart, rebuilt as an instance of the same class (so
 * `instanceof` holds) with the same message, stack, fields and cause chain. The class's
 * constructor does not run: its fields are the ones sent, exactly.
 *
 * @example if (m.type === 'error') throw fromErrorFields(m.error)
 */
export function fromErrorFields(sent: ErrorFields): Error {
  const cls = ERROR_CLASSES[sent.className] ?? Error
  // An Error object (what `util.inspect`, `util.types.isNativeError` and structured clones
  // recognise) whose prototype is the class's.
  const error = Reflect.construct(Error, [sent.message, causeOptions(sent)], cls) as Error
  Object.assign(error, sent.fields)
  Object.defineProperty(error, 'stack', { value: sent.stack, writable: true, configurable: true, enumerable: false })
  return error
}

/**
 * The options that give an error the cause `sent` had, rebuilt (`fromErrorFields`), or
 * `undefined` when it had none (an `Error` given `{ cause: undefined }` has a cause, `undefined`).
 *
 * @example new InvalidDataError(file, line, field, detail, causeOptions(sent))
 */
export function causeOptions(sent: ErrorFields): { cause: unknown } | undefined {
  if (sent.cause === undefined) return undefined
  return { cause: 'error' in sent.cause ? fromErrorFields(sent.cause.error) : sent.cause.value }
}
