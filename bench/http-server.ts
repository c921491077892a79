/**
 * The server side of bench/http.ts and bench/pipelining.ts, run in a child process so the load
 * generator does not share its event loop. argv: `bare <body>` | `memory <chain.jsonl>` |
 * `sqlite <ledger.db>`, then optionally `createServer` options as JSON. Sends `{ url }` over IPC
 * once listening on 127.0.0.1; answers `cpu` with `{ cpu_us }` and `rss` with `{ rss }`; exits
 * on `stop`. The API server runs as `serve` does, request logging included (to /dev/null).
 */
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer } from '../src/api/index.js'
import { MemoryStore } from '../src/ledger/memory-store.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { LedgerStore } from '../src/ledger/store/store.js'

const [kind, arg, extra] = process.argv.slice(2) as [string, string, string | undefined]
/** Further `createServer` options as JSON (the pipelining bench turns the connection gate off with it). */
const overrides = extra === undefined ? {} : (JSON.parse(extra) as object)

// `cpu` → the process's CPU time so far (µs, user + system): the parent divides the delta over a
// run by the requests served, a per-request cost that other load on the machine barely moves.
process.on('message', (m) => {
  if (m === 'rss') process.send?.({ rss: process.memoryUsage().rss })
  if (m !== 'cpu') return
  const u = process.cpuUsage()
  process.send?.({ cpu_us: u.user + u.system })
})

async function main(): Promise<void> {
  if (kind === 'bare') {
    // The reference: node:http answering a constant JSON body, the floor of any framework's cost.
    const body = Buffer.from(arg)
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
      res.end(body)
    })
    server.listen(0, '127.0.0.1', () => {
      process.send?.({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
    })
    process.on('message', (m) => m === 'stop' && server.close(() => process.exit(0)))
    return
  }
  const store: LedgerStore = kind === 'memory' ? await MemoryStore.fromJsonLines(arg) : SqliteStore.open(arg, { readonly: true })
  // As `serve` runs it: request logs at info (to /dev/null here, as a log shipper would take them),
  // metrics, request ids, CORS and the connection gate all on.
  const server = await createServer({ store, logger: { level: 'info', file: '/dev/null' }, ...overrides })
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  process.send?.({ url })
  process.on('message', async (m) => {
    if (m !== 'stop') return
    await server.close()
    await store.close()
    process.exit(0)
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
