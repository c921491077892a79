import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the proxy does with one request. */
export type Fault =
  | 'pass'
  /** Close the connection without answering. */
  | 'drop'
  /** Forward, then cut the connection half-way through the body. */
  | 'truncate'
  /** Forward after 40 ms. */
  | 'delay'
  /** Never answer (the client's timeout must fire). */
  | 'stall'
  /** 429 with `Retry-After: 0`. */
  | '429'
  /** 429 with `Retry-After: 1`: the follower must wait a second before asking for that path again. */
  | '429-wait'
  /** 503 with the node's error object. */
  | '503'

/** One request as the proxy saw it, in arrival order (no clock: tests check order, not time). */
export interface ProxyLog {
  path: string
  fault: Fault
}

/**
 * A fault-injecting HTTP proxy on 127.0.0.1 in front of `target` (an origin): request `n` gets
 * `plan(n, path)`. Logs every request.
 */
export async function startFaultProxy(target: string, plan: (n: number, path: string) => Fault) {
  const upstream = new URL(target)
  const agent = new Agent({ keepAlive: true })
  const log: ProxyLog[] = []
  let n = 0

  const forward = (req: IncomingMessage, res: ServerResponse, cut: boolean) => {
    const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: 'GET', headers: req.headers, agent }, (answer) => {
      if (!cut) {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
        return
      }
      const chunks: Buffer[] = []
      answer.on('data', (c: Buffer) => chunks.push(c))
      answer.on('end', () => {
        const body = Buffer.concat(chunks)
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(body.length) })
        res.write(body.subarray(0, body.length >> 1), () => res.destroy())
      })
    })
    up.on('error', () => res.destroy())
    up.end()
  }

  const server = createServer((req, res) => {
    const path = req.url ?? '/'
    const fault = plan(n++, path)
    log.push({ path, fault })
    const error = (status: number, headers: Record<string, string>, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify({ message, error_code: 'internal_error' }))
    }
    switch (fault) {
      case 'pass':
        return forward(req, res, false)
      case 'drop':
        return req.socket.destroy()
      case 'truncate':
        return forward(req, res, true)
      case 'delay':
        return void setTimeout(() => forward(req, res, false), 40)
      case 'stall':
        return
      case '429':
        return error(429, { 'retry-after': '0' }, 'Too many requests')
      case '429-wait':
        return error(429, { 'retry-after': '1' }, 'Too many requests')
      case '503':
        return error(503, {}, 'Service unavailable')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        agent.destroy()
        server.close(() => resolve())
      }),
  }
}
