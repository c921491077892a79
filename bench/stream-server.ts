/**
 * The stream side of bench/stream.ts, in a child process so the ingest measured in the parent
 * does not share its event loop. argv: `<chain.jsonl>`: encodes the chain's transactions once
 * (before any timing), serves them with startStreamServer on 127.0.0.1 and sends `{ url,
 * last_version, bytes }` over IPC; `cpu` answers `{ cpu }`, its CPU seconds so far, so the
 * bench can say how much of the machine it took beside the measured ingest (a hosted stream
 * takes none of the client's); `stop` exits.
 */
import { readFileSync } from 'node:fs'
import { encodeChain } from '../src/follow/stream/encode-chain.js'
import { startStreamServer } from '../src/follow/stream/stream-server.js'
import type { BlockJson } from '../src/ledger/store/types.js'

const [file] = process.argv.slice(2) as [string]
const blocks = readFileSync(file, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as BlockJson)
const chain = encodeChain(blocks)
const server = await startStreamServer({ chain, chainId: 4 })
process.send?.({ url: server.url, last_version: (blocks.at(-1) as BlockJson).last_version, bytes: chain.transactions.reduce((n, t) => n + t.length, 0) })
process.on('message', async (m: unknown) => {
  if (m === 'cpu') {
    const c = process.cpuUsage()
    process.send?.({ cpu: (c.user + c.system) / 1e6 })
  }
  if (m === 'stop') {
    await server.close()
    process.exit(0)
  }
})
