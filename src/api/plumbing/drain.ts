import type { Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Node's per-socket pointer to the response being written on it (set until the response is flushed). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null }

/**
 * Makes `server.close()` wait for every response under way, to its last byte.
 *
 * Why: Node's `closeIdleConnections` (called by `server.close()` and by Fastify on close) treats
 * a response as done as soon as `end()` was called, so a large body still queued for a slow
 * reader is cut off when its socket is destroyed. Here a socket is idle only when no response is
 * being written on it: idle sockets are ended (FIN after any queued bytes), busy ones are ended
 * when their response finishes. New connections are refused by `close()` itself; a client that
 * never reads is the shutdown grace period's business (`closeAllConnections`). Costs one
 * listener per connection, nothing per request.
 */
export function drainOnClose(server: Server): void {
  const sockets = new Set<HttpSocket>()
  server.on('connection', (socket: HttpSocket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.closeIdleConnections = () => {
    for (const socket of sockets) endWhenIdle(socket)
  }
}

function endWhenIdle(socket: HttpSocket): void {
  const response = socket._httpMessage
  if (response === undefined || response === null) {
    socket.end()
    return
  }
  // Node's own 'finish' listener runs first and detaches the response (or attaches a pipelined next one).
  response.once('finish', () => endWhenIdle(socket))
}
