/**
 * The node side of bench/follow.ts, run in a child process so the follower measured in the
 * parent does not share its event loop or its CPU account. argv: `<chain.jsonl> <initial>`:
 * serves the first `initial` blocks of the chain on 127.0.0.1 and sends `{ url, height }` over
 * IPC. Messages: `{ append, everyMs }` appends that many further blocks, one per `everyMs`
 * (replies `{ height }` when done); `cpu` replies `{ cpu_us }`; `stop` exits.
 */
import { readFileSync } from 'node:fs'
import { createServer } from '../src/api/index.js'
import { MemoryStore } from '../src/ledger/memory-store.js'
import type { BlockJson } from '../src/ledger/store/types.js'

const [chain, initialArg] = process.argv.slice(2) as [string, string]
const lines = readFileSync(chain, 'utf8').split('\n').filter((l) => l.length > 0)
const initial = Number(initialArg)

async function main(): Promise<void> {
  const store = new MemoryStore()
  for (const l of lines.slice(0, initial)) store.appendBlock(JSON.parse(l) as BlockJson)
  const server = await createServer({ store })
  const url = `${await server.listen({ port: 0, host: '127.0.0.1' })}/v1`
  let next = initial
  const height = () => Number(store.ledgerInfo()?.block_height)
  process.send?.({ url, height: height() })
  process.on('message', async (m: unknown) => {
    if (m === 'cpu') {
      const u = process.cpuUsage()
      process.send?.({ cpu_us: u.user + u.system })
    } else if (m === 'stop') {
      await server.close()
      process.exit(0)
    } else if (typeof m === 'object' && m !== null && 'append' in m) {
      const { append, everyMs } = m as { append: number; everyMs: number }
      for (let i = 0; i < append && next < lines.length; i++) {
        await server.appendBlock(JSON.parse(lines[next++] as string) as BlockJson)
        await new Promise((r) => setTimeout(r, everyMs))
      }
      process.send?.({ height: height() })
    }
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
