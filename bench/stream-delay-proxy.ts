/**
 * The network of bench/stream.ts's delayed rows, in a child process so its timers and copies do
 * not share the measured ingest's event loop or CPU account. argv: `<oneWayMs> <target>...`
 * (each target `host:port`): for each target, a TCP proxy on 127.0.0.1 that holds every chunk
 * `oneWayMs` in each direction before passing it on, in arrival order, so every round trip
 * through it takes at least twice that (Node's timers fire on whole milliseconds, so up to a
 * millisecond more each way). It adds latency only: no bandwidth limit, no loss. Sends `{ urls }`
 * (one `http://127.0.0.1:port` per target, in order) over IPC; `stop` exits.
 */
import { connect, createServer, type Server, type Socket } from 'node:net'

const [oneWayArg, ...targets] = process.argv.slice(2)
const oneWayMs = Number(oneWayArg)
if (!(oneWayMs >= 0) || targets.length === 0) throw new Error(`usage: stream-delay-proxy.ts <oneWayMs> <host:port>...; got ${process.argv.slice(2).join(' ')}`)

/** Stops reading `from` while `to` has this much unwritten, so a slow reader is felt upstream as TCP's own backpressure. */
const HIGH_WATER = 4 * 1024 * 1024

/**
 * Copies `from` to `to`, each chunk (and the end) `oneWayMs` later than it arrived. One timer for
 * the head of a FIFO: every chunk waits the same time, so due times are in arrival order and
 * order is kept.
 */
function delayedPipe(from: Socket, to: Socket): void {
  const queue: { due: number; chunk: Buffer | null }[] = []
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    timer = undefined
    const now = performance.now()
    while (queue.length > 0 && (queue[0] as { due: number }).due <= now) {
      const { chunk } = queue.shift() as { chunk: Buffer | null }
      if (chunk === null) to.end()
      else if (!to.write(chunk) && to.writableLength > HIGH_WATER && !from.isPaused()) {
        from.pause()
        to.once('drain', () => from.resume())
      }
    }
    if (queue.length > 0) timer = setTimeout(flush, (queue[0] as { due: number }).due - now)
  }
  const push = (chunk: Buffer | null) => {
    queue.push({ due: performance.now() + oneWayMs, chunk })
    timer ??= setTimeout(flush, oneWayMs)
  }
  from.on('data', (c: Buffer) => push(c))
  from.on('end', () => push(null))
  // A side that closes before its peer has ended (a reset, a destroyed call) can take nothing more: drop what is queued for it and close its peer.
  to.on('close', () => {
    if (timer !== undefined) clearTimeout(timer)
    queue.length = 0
    if (!from.readableEnded) from.destroy()
  })
}

const servers: Server[] = []
const urls: string[] = []
for (const target of targets) {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))]
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const upstream = connect({ host, port, allowHalfOpen: true, noDelay: true })
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    delayedPipe(client, upstream)
    delayedPipe(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  urls.push(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
}
process.send?.({ urls })
process.on('message', (m: unknown) => {
  if (m !== 'stop') return
  for (const s of servers) s.close()
  process.exit(0)
})
