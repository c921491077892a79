/**
 * Follower benchmark: `followNode` against this project's server on 127.0.0.1 (the server in a
 * child process, bench/follow-server.ts, so the two do not share an event loop or a CPU account).
 *
 * 1. Backfill: blocks/s of the default bootstrap (the newest 121 blocks) and of a 2,000-block
 *    catch-up (all of data/chain.jsonl, `backfillBlocks: 2000`) at 1, 4 and 8 blocks in flight,
 *    each paired with the bare floor at the same size and in-flight count: `fetch` +
 *    `JSON.parse` of the same blocks (no engine, no checks, no ordering). Ratios are per pair,
 *    medians reported, since absolute times on a shared machine drift.
 * 2. Following: the follower's own CPU per new block (process.cpuUsage, user + system) while the
 *    server appends 500 blocks one per 10 ms and the follower polls every 20 ms; beside it the
 *    CPU of polling with no new block (per second and per poll, next to a bare loop of sleep +
 *    fetch of `GET /`), and the engine alone on the same blocks in-process (JSON.parse +
 *    parseBlockJson + ingest), the floor the HTTP path adds to.
 *
 *   npx tsx bench/follow.ts [--rounds 5] [--data data/chain.jsonl]
 *
 * Prints markdown tables; writes bench/results/follow.json (warm, in the shape of bench/results.ts).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createEstimator } from '../src/core/index.js'
import { followNode } from '../src/follow/index.js'
import { parseBlockJson } from '../src/ledger/store/parse-block.js'
import { median } from './median.js'
import { row, startGroup, writeResult, type Row } from './results.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    data: { type: 'string', default: join(here, '..', 'data', 'chain.jsonl') },
  },
})
const ROUNDS = Number(values.rounds)
const DATA = values.data as string
const LIVE_BLOCKS = 500
const LIVE_EVERY_MS = 10

interface Node {
  url: string
  height: number
  child: ChildProcess
}

function reply<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && key in m) {
        child.off('message', on)
        resolve(m as T)
      }
    }
    child.on('message', on)
  })
}

async function startNode(initial: number): Promise<Node> {
  const child = fork(join(here, 'follow-server.ts'), [DATA, String(initial)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`follow-server exited with ${code}`))))
  const { url, height } = await Promise.race([reply<{ url: string; height: number }>(child, 'url'), exited])
  return { url, height, child }
}

async function stopNode(node: Node): Promise<void> {
  const exited = new Promise((r) => node.child.once('exit', r))
  node.child.send('stop')
  await exited
}

const cpuNow = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

/** The floor: fetch + JSON.parse of heights `from..to`, `inFlight` at a time, nothing else. */
async function bareFetch(url: string, from: number, to: number, inFlight: number): Promise<Run> {
  const cpu0 = cpuNow()
  const t0 = performance.now()
  let next = from
  const worker = async () => {
    while (next <= to) {
      const h = next++
      const res = await fetch(`${url}/blocks/by_height/${h}?with_transactions=true`)
      JSON.parse(await res.text())
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return { ms: performance.now() - t0, cpu_us: cpuNow() - cpu0 }
}

interface Run {
  ms: number
  cpu_us: number
}

/** One bootstrap of `blocks` blocks to `ready`: wall ms and this process's CPU µs. */
async function backfill(url: string, blocks: number, inFlight: number): Promise<Run> {
  const cpu0 = cpuNow()
  const t0 = performance.now()
  const f = followNode({ url, intervalMs: 3_600_000, concurrency: inFlight, backfillBlocks: blocks })
  await f.ready
  const ms = performance.now() - t0
  const cpu_us = cpuNow() - cpu0
  await f.stop()
  return { ms, cpu_us }
}

interface BackfillRow {
  case: string
  blocks: number
  in_flight: number
  ms: number
  blocks_per_sec: number
  /** Client CPU (this process, user + system) per block. */
  cpu_us_per_block: number
  /** Follower rows: median over rounds of follower ÷ bare at the same blocks and in-flight count. */
  blocks_per_sec_vs_bare: number | null
  cpu_per_block_vs_bare: number | null
}

const IN_FLIGHT = [1, 4, 8]
const SIZES = [121, 2000]

/** The rows of bench/results/follow.json, in the order measured. */
const results: Row[] = []

async function backfillBench(node: Node): Promise<BackfillRow[]> {
  const tip = node.height
  const runs = new Map<string, { bare: Run; follower: Run }[]>()
  const round = async (record: boolean) => {
    for (const blocks of SIZES) {
      for (const inFlight of IN_FLIGHT) {
        // Paired and adjacent in time, so their ratio shares the machine's momentary load.
        const bare = await bareFetch(node.url, tip - blocks + 1, tip, inFlight)
        const follower = await backfill(node.url, blocks, inFlight)
        if (!record) continue
        const key = `${blocks}/${inFlight}`
        runs.set(key, [...(runs.get(key) ?? []), { bare, follower }])
      }
    }
  }
  await round(false) // warm-up: JIT, the connection pool, the server's caches
  for (let r = 0; r < ROUNDS; r++) {
    await round(true)
    console.error(`  backfill round ${r + 1}/${ROUNDS} done`)
  }
  for (const blocks of SIZES) {
    for (const inFlight of IN_FLIGHT) {
      const r = runs.get(`${blocks}/${inFlight}`) ?? []
      results.push(
        row(`${blocks === 121 ? 'backfill (default span)' : 'catch-up'}, ${blocks} blocks, ${inFlight} in flight`, 'wall ms', ['followNode', r.map((x) => x.follower.ms)], [['bare fetch + JSON.parse', r.map((x) => x.bare.ms)]], {
          note: `client CPU µs/block medians: followNode ${(median(r.map((x) => x.follower.cpu_us)) / blocks).toFixed(0)}, bare ${(median(r.map((x) => x.bare.cpu_us)) / blocks).toFixed(0)}`,
        }),
      )
    }
  }
  const rows: BackfillRow[] = []
  for (const blocks of SIZES) {
    for (const who of ['bare', 'follower'] as const) {
      for (const inFlight of IN_FLIGHT) {
        const r = runs.get(`${blocks}/${inFlight}`) ?? []
        const ms = median(r.map((x) => x[who].ms))
        rows.push({
          case: who === 'bare' ? 'bare fetch + JSON.parse' : blocks === 121 ? 'followNode backfill (default span)' : 'followNode catch-up',
          blocks,
          in_flight: inFlight,
          ms: Number(ms.toFixed(1)),
          blocks_per_sec: Math.round((blocks * 1000) / ms),
          cpu_us_per_block: Number((median(r.map((x) => x[who].cpu_us)) / blocks).toFixed(1)),
          blocks_per_sec_vs_bare: who === 'bare' ? null : Number(median(r.map((x) => x.bare.ms / x.follower.ms)).toFixed(2)),
          cpu_per_block_vs_bare: who === 'bare' ? null : Number(median(r.map((x) => x.follower.cpu_us / x.bare.cpu_us)).toFixed(2)),
        })
      }
    }
  }
  return rows
}

interface LiveResult {
  blocks: number
  append_every_ms: number
  poll_interval_ms: number
  wall_ms: number
  follower_cpu_us_per_block: number
  /** CPU of polling with nothing new, per second; subtracted for the next figure. */
  idle_poll_cpu_us_per_sec: number
  /** The same per poll, and a bare loop of sleep + fetch + JSON.parse of `GET /` at the same interval. */
  idle_cpu_us_per_poll: number
  bare_poll_cpu_us_per_poll: number
  follower_cpu_us_per_block_net_of_polling: number
  requests_per_block: number
  engine_alone_cpu_us_per_block: number
  follower_vs_engine_cpu: number
}

async function liveBench(): Promise<LiveResult> {
  const start = 1000
  const node = await startNode(start)
  const f = followNode({ url: node.url, intervalMs: 20 })
  await f.ready
  await new Promise((r) => setTimeout(r, 500))
  const idle0 = cpuNow()
  const i0 = performance.now()
  const polls0 = f.requests
  await new Promise((r) => setTimeout(r, 2000))
  const idleCpu = cpuNow() - idle0
  const idlePerSec = (idleCpu * 1000) / (performance.now() - i0)
  const idlePerPoll = idleCpu / Math.max(1, f.requests - polls0)
  const bare0 = cpuNow()
  let barePolls = 0
  for (const b0 = performance.now(); performance.now() - b0 < 2000; barePolls++) {
    await new Promise((r) => setTimeout(r, 20))
    JSON.parse(await (await fetch(`${node.url}/`)).text())
  }
  const barePerPoll = (cpuNow() - bare0) / barePolls

  const target = start + LIVE_BLOCKS
  const req0 = f.requests
  const cpu0 = cpuNow()
  const t0 = performance.now()
  node.child.send({ append: LIVE_BLOCKS, everyMs: LIVE_EVERY_MS })
  await reply(node.child, 'height')
  while (Number(f.asOf?.block_height) < target) await new Promise((r) => setTimeout(r, 2))
  const wall = performance.now() - t0
  const cpu = cpuNow() - cpu0
  const requests = f.requests - req0
  await f.stop()
  await stopNode(node)

  const lines = readFileSync(DATA, 'utf8').split('\n').slice(start, target)
  const reps: number[] = []
  for (let rep = 0; rep < 5; rep++) {
    const e = createEstimator()
    const c0 = cpuNow()
    for (const l of lines) e.ingest(parseBlockJson(JSON.parse(l)))
    reps.push((cpuNow() - c0) / lines.length)
  }
  const engine = median(reps.slice(1))
  const perBlock = cpu / LIVE_BLOCKS
  const net = (cpu - (idlePerSec * wall) / 1000) / LIVE_BLOCKS
  return {
    blocks: LIVE_BLOCKS,
    append_every_ms: LIVE_EVERY_MS,
    poll_interval_ms: 20,
    wall_ms: Math.round(wall),
    follower_cpu_us_per_block: Number(perBlock.toFixed(1)),
    idle_poll_cpu_us_per_sec: Math.round(idlePerSec),
    idle_cpu_us_per_poll: Math.round(idlePerPoll),
    bare_poll_cpu_us_per_poll: Math.round(barePerPoll),
    follower_cpu_us_per_block_net_of_polling: Number(net.toFixed(1)),
    requests_per_block: Number((requests / LIVE_BLOCKS).toFixed(2)),
    engine_alone_cpu_us_per_block: Number(engine.toFixed(1)),
    follower_vs_engine_cpu: Number((perBlock / engine).toFixed(1)),
  }
}

async function main(): Promise<void> {
  const group = startGroup(
    'follow',
    'follow: the follower against bare fetch + JSON.parse, warm',
    `Warm: followNode in this process against this project's server in a long-lived child process (bench/follow-server.ts) over ${DATA.split('/').pop()}, after a warm-up round; each backfill paired with a bare fetch + JSON.parse of the same blocks at the same in-flight count. Following: the follower's CPU per new block while the server appends ${LIVE_BLOCKS} blocks one per ${LIVE_EVERY_MS} ms (one run), against the engine alone on the same blocks.`,
    'warm',
    ROUNDS,
  )
  console.error(`follow bench: ${DATA}, ${ROUNDS} rounds, ${cpus().length} CPUs`)
  const all = await startNode(Number.MAX_SAFE_INTEGER)
  let rows: BackfillRow[]
  try {
    rows = await backfillBench(all)
  } finally {
    await stopNode(all)
  }
  const live = await liveBench()

  const out = [
    `Server in a child process on 127.0.0.1, ${all.height}-block chain; medians of ${ROUNDS} rounds; ratios are follower ÷ bare at the same size and in-flight count, per round (paired runs), median`,
    '',
    '| case | blocks | in flight | ms | blocks/s | client CPU µs/block | blocks/s vs bare | CPU vs bare |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.case} | ${r.blocks} | ${r.in_flight} | ${r.ms} | ${r.blocks_per_sec} | ${r.cpu_us_per_block} | ${r.blocks_per_sec_vs_bare === null ? '-' : `${r.blocks_per_sec_vs_bare.toFixed(2)}x`} | ${r.cpu_per_block_vs_bare === null ? '-' : `${r.cpu_per_block_vs_bare.toFixed(2)}x`} |`,
    ),
    '',
    `Following (${live.blocks} new blocks, one per ${live.append_every_ms} ms, polling every ${live.poll_interval_ms} ms):`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| follower CPU per new block | ${live.follower_cpu_us_per_block} µs |`,
    `| same, net of idle polling | ${live.follower_cpu_us_per_block_net_of_polling} µs |`,
    `| idle polling CPU | ${live.idle_poll_cpu_us_per_sec} µs/s (${live.idle_cpu_us_per_poll} µs/poll; bare sleep + fetch loop: ${live.bare_poll_cpu_us_per_poll} µs/poll) |`,
    `| requests per new block | ${live.requests_per_block} |`,
    `| engine alone (JSON.parse + parseBlockJson + ingest) | ${live.engine_alone_cpu_us_per_block} µs |`,
    `| follower ÷ engine alone | ${live.follower_vs_engine_cpu}x |`,
  ]
  console.log(out.join('\n'))
  results.push(
    row('following, CPU per new block', 'CPU µs/block', ['followNode, polling every 20 ms', [live.follower_cpu_us_per_block]], [['engine alone (JSON.parse + parseBlockJson + ingest)', [live.engine_alone_cpu_us_per_block]]], {
      note: `net of idle polling ${live.follower_cpu_us_per_block_net_of_polling} µs; ${live.requests_per_block} requests per block; one run`,
    }),
    row('idle polling, CPU per poll', 'CPU µs/poll', ['followNode', [live.idle_cpu_us_per_poll]], [['bare sleep + fetch + JSON.parse of GET /', [live.bare_poll_cpu_us_per_poll]]], { note: 'one run' }),
  )
  console.log(`wrote ${writeResult(group.finish(results))}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
