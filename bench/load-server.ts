/**
 * The server side of bench/load.ts, in its own process (run with --expose-gc) so that its memory
 * is measured alone. argv: `memory <chain.jsonl>` | `sqlite <ledger.db>`. Listens on 127.0.0.1
 * and sends `{ url }` over IPC; answers `{ mem }` to `mem` (after full GCs when asked with
 * `mem-gc`), and closes gracefully on `stop`.
 */
import { createServer } from '../src/api/index.js'
import { MemoryStore } from '../src/ledger/memory-store.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { LedgerStore } from '../src/ledger/store/store.js'

const [kind, arg] = process.argv.slice(2) as [string, string]

/** Full collections until the heap stops shrinking (a few passes let finalizers and weak refs settle). */
async function settle(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error('load-server needs --expose-gc')
  let last = Number.POSITIVE_INFINITY
  for (let i = 0; i < 6; i++) {
    gc()
    await new Promise((r) => setTimeout(r, 50))
    const used = process.memoryUsage().heapUsed
    if (used >= last * 0.99) break
    last = used
  }
}

async function main(): Promise<void> {
  const store: LedgerStore = kind === 'memory' ? await MemoryStore.fromJsonLines(arg) : SqliteStore.open(arg, { readonly: true })
  const server = await createServer({ store })
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  process.on('message', async (m) => {
    if (m === 'mem' || m === 'mem-gc') {
      if (m === 'mem-gc') await settle()
      const u = process.memoryUsage()
      process.send?.({ mem: { rss: u.rss, heapUsed: u.heapUsed, external: u.external, arrayBuffers: u.arrayBuffers } })
    } else if (m === 'stop') {
      await server.close()
      await store.close()
      process.exit(0)
    }
  })
  process.send?.({ url })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
