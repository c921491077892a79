import type { FastifyBaseLogger } from 'fastify'

const quietOf = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>()
const quietChildren = new WeakSet<FastifyBaseLogger>()

/**
 * Route-level `childLoggerFactory` of the polled routes (estimate, metrics): one `warn` child of
 * the server logger, made once, instead of a child per request. Fastify would otherwise build a
 * pino child for every request, and with a route `logLevel` pino rebuilds its log methods each
 * time: the largest cost of a request after the socket write (bench/http.ts, CPU profile).
 * Requests on these routes are not logged at `info` anyway; their warnings and errors lack the
 * `reqId` binding, so the error handler adds it (`isQuietLogger`).
 */
export function quietLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  let child = quietOf.get(logger)
  if (child === undefined) {
    const made = logger.child({}, { level: 'warn' })
    quietOf.set(logger, made)
    quietChildren.add(made)
    child = made
  }
  return child
}

/** Whether `logger` is one of `quietLogger`'s, whose lines carry no `reqId` binding. */
export function isQuietLogger(logger: FastifyBaseLogger): boolean {
  return quietChildren.has(logger)
}
