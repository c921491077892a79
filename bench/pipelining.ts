/**
 * Pipelining flood and slow readers (issue 13): 80 clients each write 400 pipelined
 * `GET /v1/accounts/{a}/transactions?limit=100` in one write and never read an answer. `{a}` is
 * the chain's busiest sender for every client (the worst case: the only full 100-transaction
 * page of the sample chain, ~120 KB of JSON). Meanwhile
 * a probe sends one valid request at a time (the estimate, then an account page, alternating),
 * each on a fresh connection, and records how long each takes. The server runs in a child
 * process (bench/http-server.ts, as `serve` runs it); its RSS is sampled every 100 ms over IPC.
 *
 * Targets: RSS at most +256 MB over the baseline before the attack; every probe answered, the
 * slowest within 1 s. `--compare` runs the same attack once more with the per-connection gate
 * opened wide (maxInFlightPerConnection 1e9), to show what it bounds.
 *
 *   npx tsx bench/pipelining.ts [--clients 80] [--pipelined 400] [--seconds 10] [--compare]
 *
 * Prints a markdown table; writes bench/results/pipelining.json (in the shape of bench/results.ts).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { parseAddress } from '../src/ledger/store/address.js'
import { readJsonLines } from '../src/ledger/read/json-lines.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { row, startGroup, writeResult } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '80' },
    pipelined: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '10' },
    data: { type: 'string', default: join(here, '..', 'data', 'chain.jsonl') },
    compare: { type: 'boolean', default: false },
  },
})
const CLIENTS = Number(values.clients)
const PIPELINED = Number(values.pipelined)
const SECONDS = Number(values.seconds)
const DATA = values.data as string
const RSS_BUDGET = 256 * 2 ** 20
const PROBE_BUDGET_MS = 1000

interface Server {
  url: string
  port: number
  child: ChildProcess
}

async function start(options: object): Promise<Server> {
  const child = fork(join(here, 'http-server.ts'), ['memory', DATA, JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url))
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return { url, port: Number(new URL(url).port), child }
}

function rss(s: Server): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'rss' in m) {
        s.child.off('message', on)
        resolve((m as { rss: number }).rss)
      }
    }
    s.child.on('message', on)
    s.child.send('rss')
  })
}

async function stop(s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r))
  s.child.send('stop')
  // A server that cannot drain its attackers' answers is not waited for.
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** The senders with the most transactions: their pages are full (100 transactions each). */
async function busiestAccounts(n: number): Promise<string[]> {
  const counts = new Map<string, number>()
  for await (const block of readJsonLines(DATA, (json) => json as BlockJson)) {
    for (const t of block.transactions) {
      if (t.type !== 'user_transaction' || (t.replay_protection_nonce ?? null) !== null) continue
      const a = parseAddress(t.sender) as string
      counts.set(a, (counts.get(a) ?? 0) + 1)
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([a]) => a)
}

/** One GET on a fresh connection; resolves with the status and the time to the whole answer (ms). */
function probe(port: number, path: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now()
  return fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(30_000) }).then(
    async (r) => {
      await r.arrayBuffer()
      return { status: r.status, ms: performance.now() - t0 }
    },
    () => ({ status: 0, ms: performance.now() - t0 }),
  )
}

interface Row {
  gate: string
  rss_baseline_mb: number
  rss_peak_mb: number
  rss_growth_mb: number
  probes: number
  probe_failures: number
  probe_p50_ms: number
  probe_max_ms: number
  attack_bytes_received: number
}

async function attack(options: object, label: string, accounts: string[]): Promise<Row> {
  const server = await start(options)
  await probe(server.port, '/v1/estimate_gas_price') // warm
  const baseline = await rss(server)
  let peak = baseline
  const sampler = setInterval(() => void rss(server).then((r) => (peak = Math.max(peak, r))), 100)
  const sockets: Socket[] = []
  let received = 0
  for (let c = 0; c < CLIENTS; c++) {
    const account = accounts[c % accounts.length] as string
    const one = `GET /v1/accounts/${account}/transactions?limit=100 HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`
    const socket = connect(server.port, '127.0.0.1', () => socket.write(one.repeat(PIPELINED)))
    // Never read: the kernel's receive buffer fills, then the server's send buffer.
    socket.pause()
    socket.on('error', () => {})
    socket.on('data', (d: Buffer) => (received += d.length))
    sockets.push(socket)
  }
  const latencies: number[] = []
  let failures = 0
  const deadline = performance.now() + SECONDS * 1000
  for (let i = 0; performance.now() < deadline; i++) {
    const path = i % 2 === 0 ? '/v1/estimate_gas_price' : `/v1/accounts/${accounts[0]}/transactions?limit=25`
    const r = await probe(server.port, path)
    if (r.status !== 200) failures++
    latencies.push(r.ms)
    await new Promise((res) => setTimeout(res, 100))
  }
  clearInterval(sampler)
  peak = Math.max(peak, await rss(server))
  for (const s of sockets) s.destroy()
  await stop(server)
  const sorted = [...latencies].sort((a, b) => a - b)
  const row: Row = {
    gate: label,
    rss_baseline_mb: Number((baseline / 2 ** 20).toFixed(1)),
    rss_peak_mb: Number((peak / 2 ** 20).toFixed(1)),
    rss_growth_mb: Number(((peak - baseline) / 2 ** 20).toFixed(1)),
    probes: latencies.length,
    probe_failures: failures,
    probe_p50_ms: Number((sorted[sorted.length >> 1] ?? 0).toFixed(1)),
    probe_max_ms: Number((sorted[sorted.length - 1] ?? 0).toFixed(1)),
    attack_bytes_received: received,
  }
  console.error(`  ${label}: RSS ${row.rss_baseline_mb} → ${row.rss_peak_mb} MB, probes ${row.probes} (failed ${failures}), p50 ${row.probe_p50_ms} ms, max ${row.probe_max_ms} ms`)
  return row
}

async function main(): Promise<void> {
  const group = startGroup(
    'pipelining',
    'pipelining flood and slow readers',
    `${CLIENTS} clients each write ${PIPELINED} pipelined GET /v1/accounts/{a}/transactions?limit=100 in one write and never read, against a server in a child process (bench/http-server.ts, the sample chain in memory); a probe request every 100 ms on a fresh connection for ${SECONDS} s. Targets: RSS growth ≤ 256 MB, every probe answered, the slowest within ${PROBE_BUDGET_MS} ms.`,
    'warm',
    1,
  )
  const accounts = await busiestAccounts(1)
  console.error(`pipelining bench: ${CLIENTS} clients × ${PIPELINED} pipelined account pages (limit=100), never read; ${SECONDS} s of probes`)
  const rows = [await attack({}, 'on (defaults: 4 in flight per connection)', accounts)]
  if (values.compare) rows.push(await attack({ maxInFlightPerConnection: 1e9, maxWaitingPerConnection: 1e9 }, 'opened wide (1e9 in flight)', accounts))
  const bounded = rows[0] as Row
  const pass = bounded.rss_growth_mb * 2 ** 20 <= RSS_BUDGET && bounded.probe_failures === 0 && bounded.probe_max_ms <= PROBE_BUDGET_MS
  console.log(
    [
      `${CLIENTS} clients × ${PIPELINED} pipelined GET /v1/accounts/{a}/transactions?limit=100 in one write each, never read; a probe request every 100 ms for ${SECONDS} s`,
      '',
      '| gate | RSS baseline MB | RSS peak MB | growth MB | probes | failed | probe p50 ms | probe max ms |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.gate} | ${r.rss_baseline_mb} | ${r.rss_peak_mb} | ${r.rss_growth_mb} | ${r.probes} | ${r.probe_failures} | ${r.probe_p50_ms} | ${r.probe_max_ms} |`),
      '',
      `targets: growth <= 256 MB, every probe answered, slowest <= ${PROBE_BUDGET_MS} ms: ${pass ? 'pass' : 'FAIL'}`,
    ].join('\n'),
  )
  const results = rows.flatMap((r) => [
    row(`flood, gate ${r.gate}`, 'server RSS growth MB', ['server under the flood', [r.rss_growth_mb]], [], { note: `${r.rss_baseline_mb} → ${r.rss_peak_mb} MB; target ≤ 256 MB` }),
    row(`flood, gate ${r.gate}`, 'probe latency ms', ['probe, slowest', [r.probe_max_ms]], [], { note: `p50 ${r.probe_p50_ms} ms over ${r.probes} probes, ${r.probe_failures} failed; target: none failed, slowest ≤ ${PROBE_BUDGET_MS} ms: ${pass ? 'met' : 'not met'}` }),
  ])
  console.log(`wrote ${writeResult(group.finish(results))}`)
  if (!pass) process.exitCode = 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
