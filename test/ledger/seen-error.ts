/**
 * What can be seen of a thrown value, for comparing an error rebuilt after crossing a worker
 * thread with the one a sequential read throws: its class, message, own fields and whole cause
 * chain (the stack aside, which names other frames).
 */
export function seenError(error: unknown): unknown {
  if (!(error instanceof Error)) return { value: error }
  return { class: error.constructor.name, message: error.message, fields: { ...error }, cause: 'cause' in error ? seenError(error.cause) : 'none' }
}
