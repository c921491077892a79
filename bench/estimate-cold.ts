/**
 * `GET /v1/estimate_gas_price` as a user serves it: `ledger-gas serve` (the built CLI, sample
 * chain in memory) against node:http and a minimal Fastify app sending the same bytes
 * (bench/bare/http-bytes.mjs, bench/bare/fastify-bytes.mjs). Server CPU per request, read from
 * /proc while autocannon loads one server at a time, in an order that rotates each round.
 *
 *   npx tsx bench/estimate-cold.ts [--rounds 3] [--quick]
 */
import { join } from 'node:path'
import { bare, builtCli, compareServers, freePort, groupFlags, SAMPLE, saveBodies, SCRATCH, startServer, stopServer, type ServerSpec } from './processes.js'
import { baseline, spread, startGroup, writeResult } from './results.js'

const { rounds, quick } = groupFlags(3)
const DURATION = quick ? 2 : 3
const CONNECTIONS = 10
const PATH = '/v1/estimate_gas_price'
const group = startGroup(
  'estimate-cold',
  'estimate_gas_price: server CPU per request against node:http and minimal Fastify',
  `\`ledger-gas serve\` (built CLI, \`--log-level warn\`, the sample chain in memory) against node:http and a minimal Fastify app (one route, no hooks, no logger) answering with the same body; autocannon with ${CONNECTIONS} connections for ${DURATION} s per server per round after a 1 s warm-up, server CPU (user + system) from /proc per request.`,
  'cold',
  rounds,
)
const cli = builtCli()
const serveArgs = (port: number) => [cli, 'serve', '--data', SAMPLE, '--port', String(port), '--log-level', 'warn']
const bodies = join(SCRATCH, 'estimate-bodies.json')
{
  const port = await freePort()
  const s = await startServer(process.execPath, serveArgs(port), port, PATH)
  await saveBodies(s.url, [PATH], bodies)
  await stopServer(s)
}
const specs: ServerSpec[] = [
  { name: 'ledger-gas serve', start: (port) => [process.execPath, serveArgs(port)] },
  { name: 'node:http, same bytes', start: (port) => [process.execPath, [bare('http-bytes'), String(port), bodies]] },
  { name: 'minimal Fastify, same bytes', start: (port) => [process.execPath, [bare('fastify-bytes'), String(port), bodies]] },
]
const { cpu, rps } = await compareServers(specs, PATH, [PATH], rounds, CONNECTIONS, DURATION)
const [project, http, fastify] = cpu as [number[], number[], number[]]
const baselines = [baseline('node:http, same bytes (bench/bare/http-bytes.mjs)', http, project), baseline('minimal Fastify, same bytes (bench/bare/fastify-bytes.mjs)', fastify, project)]
const note = `requests/s medians: project ${spread(rps[0] as number[]).median.toFixed(0)}, node:http ${spread(rps[1] as number[]).median.toFixed(0)}, Fastify ${spread(rps[2] as number[]).median.toFixed(0)}`
const row = { case: `GET ${PATH}`, metric: 'server CPU µs/request', project: { name: 'ledger-gas serve, memory store', spread: spread(project) }, baselines, note, before: '30.8 µs vs node:http 22.4 µs (1.37x), minimal Fastify 23.6 µs (1.30x)' }
console.error(`  estimate-cold: ${baselines.map((b) => `${b.ratio.median.toFixed(2)}x`).join(', ')}`)
console.error(`wrote ${writeResult(group.finish([row]))}`)
