/**
 * Transaction Stream ingest benchmark (`npm run bench -- stream`): wall time of
 * `ingestFromStream` from a local stream server (bench/stream-server.ts, a child process) into a
 * fresh ledger, beside `ingest --input` of the same chain file (`ingestJsonLines`) and, for
 * SQLite, `--from-node` (`ingestFromNode`) against a local `serve` of the same chain
 * (bench/follow-server.ts, a child process), in the same rounds (order rotating each round) so
 * each round's ratios share the machine's load. Then PostgreSQL, stream against file (the tests'
 * embedded server or `DATABASE_URL`'s; skipped with the reason when none starts); then the
 * stream against REST polling with both servers behind one delay proxy
 * (bench/stream-delay-proxy.ts) at a few round-trip times, as a user whose node is not on the
 * same machine meets them: what the stream saves is round trips, which loopback does not have;
 * and the peak RSS of an ingest whose writer is slower than the stream (bench/stream-rss-child.ts).
 *
 *   npx tsx bench/stream.ts [--rounds 7] [--data data/chain.jsonl] [--rtts 2,10,20] [--delayed-rounds 3]
 *
 * Writes bench/results/stream.json in the shape of bench/results.ts.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, get as httpGet } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openLedger } from '../src/cli/open-store.js'
import { ingestFromNode } from '../src/follow/ingest-node.js'
import { StreamClient } from '../src/follow/stream/client.js'
import { TextWriter } from '../src/follow/stream/decode/text-writer.js'
import { decodeTextResponse } from '../src/follow/stream/decode/wire-text.js'
import { parseStreamEndpoint } from '../src/follow/stream/endpoint.js'
import { ingestFromStream } from '../src/follow/stream/ingest-stream.js'
import { ingestJsonLines } from '../src/ledger/ingest.js'
import { ingestBlockOfLine } from '../src/ledger/ingest/ingest-block.js'
import { BlockScanner } from '../src/ledger/read/block-scanner.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../src/ledger/store/limits.js'
import type { BatchAppendStore, IngestBlock } from '../src/ledger/store/store.js'
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres.js'
import { SAMPLE } from './processes.js'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, data: { type: 'string', default: SAMPLE }, 'delayed-rounds': { type: 'string', default: '3' }, rtts: { type: 'string', default: '2,10,20' } },
})
const ROUNDS = Number(values.rounds)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: expected a positive integer, got ${values.rounds}`)
const DELAYED_ROUNDS = Number(values['delayed-rounds'])
if (!Number.isInteger(DELAYED_ROUNDS) || DELAYED_ROUNDS < 0) throw new Error(`--delayed-rounds: expected a non-negative integer, got ${values['delayed-rounds']}`)
/** Round-trip times (ms) the delay proxy adds, one row each; each way holds half. */
const RTTS = (values.rtts as string).split(',').filter((t) => t !== '').map(Number)
if (RTTS.some((t) => !(t > 0))) throw new Error(`--rtts: expected positive milliseconds, got ${values.rtts}`)
const DATA = values.data as string
const LINES = readFileSync(DATA, 'utf8').split('\n').filter((l) => l.length > 0)
const BLOCKS = LINES.length
/** Transactions in the chain: REST polling pays one request per block, so its cost per transaction falls as blocks grow. */
const TRANSACTIONS = LINES.reduce((n, l) => n + (JSON.parse(l) as { transactions: unknown[] }).transactions.length, 0)
const scratch = mkdtempSync(join(tmpdir(), 'ledger-gas-bench-stream-'))
const group = startGroup(
  'stream',
  'Transaction Stream ingest: stream against file and REST polling',
  `\`ingestFromStream\` from a local stream server (a child process serving the chain's transactions as proto) into a new ledger, against \`ingest --input\` of the same chain file (\`ingestJsonLines\`) and \`--from-node\` (\`ingestFromNode\`) against a local \`serve\` of it (a child process); in-process wall time, each round after a warm-up round, the order rotating each round. The stream server encodes the chain's transactions before any round and builds each response from those bytes; a hosted stream takes none of the client machine's CPU, this one takes some of the same two cores, which the CPU rows' notes give per stream ingest. Targets (issue 24): the stream at ≥ 0.8x the file's speed (time ratio ≤ 1.25) and ≥ 10x REST polling (time ratio ≤ 0.1). The rows with a round trip in their name put both servers behind one TCP proxy (a child process) that holds every chunk half that time in each direction, in order, with no bandwidth limit and no loss, as a remote node adds latency; ${DELAYED_ROUNDS} rounds each without a warm-up of their own; REST polling asks 4 blocks at once on kept-alive connections (\`--from-node\`'s default), the stream opens its connection anew each run. They are information: the issue's target is the loopback row's. Two more cases in the SQLite rounds say what the loopback row can reach: the chain's blocks read from the file once before the rounds and only appended (\`appendChecked\` into a new ledger: the floor of every source), and the stream's responses only received and decoded to the node's JSON text (no store).`,
  'warm',
  ROUNDS,
)

function reply<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${key}: child exited with ${code}`)))
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && key in m) {
        child.off('message', on)
        resolve(m as T)
      }
    }
    child.on('message', on)
  })
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.send('stop')
  await exited
}

type Case = (store: BatchAppendStore) => Promise<number>

interface Runs {
  /** Wall seconds per round. */
  wall: number[]
  /** CPU seconds of this process per round (the servers, in their own processes, not counted). */
  cpu: number[]
  /**
   * CPU seconds this process's main thread spent inside the store's synchronous `appendChecked`
   * per round (the rows' checks, inserts and COMMIT: SQLite's), on Linux; empty elsewhere or for
   * a store that appends asynchronously.
   */
  append: number[]
  /** CPU seconds of this process's main thread over each whole round, on Linux; empty elsewhere. */
  thread: number[]
  /** CPU seconds the stream server's process took during each round of a case that reads it (asked before and after, outside the timing). */
  server: number[]
}

/** The CPU time of this thread (Linux: its schedstat, which counts only time on a core, not time waiting for one), else `undefined`. */
function threadCpu(): number | undefined {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9
  } catch {
    return undefined
  }
}

/**
 * Counts the main thread's CPU time inside `store.appendChecked` when it appends synchronously
 * (SQLite), by replacing the method on this instance: what the ledger's writes cost, apart from
 * the time the thread waits for a core on a loaded machine. `seconds` stays `undefined` otherwise.
 */
function countAppendCpu(store: BatchAppendStore): { seconds: number | undefined } {
  const counted: { seconds: number | undefined } = { seconds: undefined }
  const appendChecked = store.appendChecked?.bind(store)
  if (appendChecked === undefined || threadCpu() === undefined) return counted
  store.appendChecked = (blocks) => {
    const t0 = threadCpu() as number
    const result = appendChecked(blocks)
    if (typeof (result as Partial<PromiseLike<unknown>>).then !== 'function') counted.seconds = (counted.seconds ?? 0) + (threadCpu() as number) - t0
    return result
  }
  return counted
}

/** `rounds` rounds (after one warm-up round when `warmUp`) of each case into a fresh ledger from `open`. */
async function measure(cases: Record<string, Case>, open: () => Promise<BatchAppendStore>, rounds = ROUNDS, warmUp = true): Promise<Record<string, Runs>> {
  const names = Object.keys(cases)
  const runs: Record<string, Runs> = Object.fromEntries(names.map((k) => [k, { wall: [], cpu: [], append: [], thread: [], server: [] }]))
  for (let r = warmUp ? -1 : 0; r < rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(r, 0)) % names.length] as string
      const store = await open()
      const append = countAppendCpu(store)
      try {
        const s0 = name === 'stream' ? await streamServerCpu() : 0
        const c0 = process.cpuUsage()
        const th0 = threadCpu()
        const t0 = performance.now()
        const blocks = await (cases[name] as Case)(store)
        const wall = (performance.now() - t0) / 1000
        const c = process.cpuUsage(c0)
        const th = threadCpu()
        if (blocks !== BLOCKS) throw new Error(`${name} appended ${blocks} of ${BLOCKS} blocks`)
        const server = name === 'stream' ? (await streamServerCpu()) - s0 : 0
        if (r >= 0) {
          if (name === 'stream') runs[name]?.server.push(server)
          runs[name]?.wall.push(wall)
          if (append.seconds !== undefined) runs[name]?.append.push(append.seconds)
          if (th0 !== undefined && th !== undefined) runs[name]?.thread.push(th - th0)
          runs[name]?.cpu.push((c.user + c.system) / 1e6)
        }
      } finally {
        await store.close()
      }
    }
    if (r >= 0) console.error(`  round ${r + 1}/${rounds} done`)
  }
  return runs
}

const streamChild = fork(join(import.meta.dirname, 'stream-server.ts'), [DATA], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const nodeChild = fork(join(import.meta.dirname, 'follow-server.ts'), [DATA, String(BLOCKS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
const stream = await reply<{ url: string; last_version: string; bytes: number }>(streamChild, 'url')
/** The stream server's CPU seconds so far (its process's). */
function streamServerCpu(): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'cpu' in m) {
        streamChild.off('message', on)
        resolve((m as { cpu: number }).cpu)
      }
    }
    streamChild.on('message', on)
    streamChild.send('cpu')
  })
}
const node = await reply<{ url: string; height: number }>(nodeChild, 'url')
const fromStream: Case = (s) => ingestFromStream({ endpoint: stream.url, store: s, startingVersion: 1, toVersion: stream.last_version }).then((r) => r.appended)
const fromFile: Case = (s) => ingestJsonLines(DATA, s).then((r) => r.appended)
const fromNode: Case = (s) => ingestFromNode({ url: node.url, store: s, once: true, startHeight: 1 }).then((r) => r.appended)
/**
 * The floor of every source: the chain's blocks as the store's `appendChecked` takes them, read
 * from the file once before the rounds (bulk ingest's own reading), appended into a new ledger
 * and nothing else: what any source pays whatever it reads from.
 */
const prebuilt: IngestBlock[] = (() => {
  const scanner = new BlockScanner()
  return LINES.map((l, i) => ingestBlockOfLine(DATA, i + 1, Buffer.from(l, 'utf8'), DEFAULT_MAX_BLOCK_TRANSACTIONS, scanner))
})()
const appendOnly: Case = async (s) => {
  if (s.appendChecked === undefined) throw new Error('the append-only case needs a store with appendChecked')
  return (await s.appendChecked(prebuilt)).appended
}
/** The stream's own part: its responses received and decoded to the node's JSON text, nothing assembled or appended (the store is left alone). */
const streamDecodeOnly: Case = async () => {
  const client = new StreamClient(parseStreamEndpoint(stream.url), undefined)
  const w = new TextWriter()
  const call = client.getTransactions({ startingVersion: 1n }, (bytes) => decodeTextResponse(bytes, w))
  try {
    for await (const r of call.responses) if (r.transactions.at(-1)?.version === stream.last_version) break
  } finally {
    call.cancel()
    client.close()
  }
  return BLOCKS
}
const chainNote = `${DATA.endsWith(join('data', 'chain.jsonl')) ? 'the sample chain' : DATA}, ${BLOCKS} blocks, ${TRANSACTIONS} transactions (${(TRANSACTIONS / BLOCKS).toFixed(1)} a block), ${(stream.bytes / 2 ** 20).toFixed(1)} MiB of proto transactions`

const rows: Row[] = []
let n = 0
const openSqlite = async () => (await openLedger(join(scratch, `b${n++}.db`), { readonly: false, chainId: 4 })).store
const sqlite = await measure({ stream: fromStream, file: fromFile, node: fromNode, append: appendOnly, decode: streamDecodeOnly }, openSqlite)
const STREAM_SIDE = 'ingestFromStream from a local stream server'
const FILE_SIDE = 'ingestJsonLines of the chain file (ingest --input)'
const NODE_SIDE = 'ingestFromNode against a local serve (--from-node)'
const x = (r: number) => `${r.toFixed(2)}x`
/**
 * What the loopback row can reach, by measurement: the append alone (the floor of every source)
 * and the stream's receiving and decoding alone, each against REST polling in the same rounds,
 * and the time ≤ 0.1x leaves a source beside the append. Empty when the rounds did not measure them.
 */
function floorNote(runs: Record<string, Runs>, node: Runs): string {
  const append = runs.append
  const decode = runs.decode
  if (append === undefined || decode === undefined) return ''
  const over = (r: Runs) => spread(r.wall.map((w, i) => w / (node.wall[i] as number))).median
  const nodeWall = spread(node.wall).median
  const appendWall = spread(append.wall).median
  const decodeWall = spread(decode.wall).median
  const left = 0.1 * nodeWall - appendWall
  const verdict =
    left <= 0
      ? 'so no source that appends to this ledger can reach ≤ 0.1x here: the append alone is over it'
      : left < decodeWall
        ? `so ≤ 0.1x leaves any source ${(left * 1000).toFixed(0)} ms beside the append to receive and turn ${TRANSACTIONS} transactions into the node's JSON, less than the stream's receiving and decoding alone take: not reachable on loopback on this machine, where REST polling pays no round trips (the delayed rows show where it is)`
        : `so ≤ 0.1x leaves a source ${(left * 1000).toFixed(0)} ms beside the append, more than the stream's receiving and decoding alone take: reachable`
  return `; the least any source reaches: the chain's blocks prebuilt and only appended (appendChecked into a new ledger) took ${appendWall.toFixed(3)} s, ${x(over(append))} REST polling's time (${nodeWall.toFixed(3)} s); the stream's responses only received and decoded to JSON text (no store) took ${decodeWall.toFixed(3)} s, ${x(over(decode))}; ${verdict}`
}

/** The rows of one store: wall time against each baseline (with its target), then the main thread's CPU time in the store's append and this process's CPU time, against the file. */
function rowsOf(store: string, runs: Record<string, Runs>, note: string): Row[] {
  const s = runs.stream as Runs
  const file = runs.file as Runs
  const out: Row[] = []
  for (const [key, name, max] of [['file', FILE_SIDE, 1.25], ['node', NODE_SIDE, 0.1]] as const) {
    const other = runs[key]
    if (other === undefined) continue
    const b = [baseline(name, other.wall, s.wall)]
    // What even the file ingest reaches against REST polling in the same rounds: the ceiling of the ≥ 10x target on this chain.
    const fileOverNode = key === 'node' ? `; ingest --input took ${x(spread(file.wall.map((w, i) => w / (other.wall[i] as number))).median)} REST polling's time in the same rounds${floorNote(runs, other)}` : ''
    out.push({ case: `stream → ${store}, against ${key === 'file' ? 'the file' : 'REST polling'}`, metric: 'wall s', project: { name: STREAM_SIDE, spread: spread(s.wall) }, baselines: b, target: target(max, b), note: `${note}${fileOverNode}` })
  }
  if (s.thread.length === s.wall.length && file.thread.length === file.wall.length && s.thread.length > 0) {
    const b = [baseline(FILE_SIDE, file.thread, s.thread)]
    out.push({ case: `stream → ${store}, against the file, main thread CPU`, metric: 'CPU s (the ingesting thread)', project: { name: STREAM_SIDE, spread: spread(s.thread) }, baselines: b, note: `${note}; the whole ingest on the thread that reads, decodes and writes, counted as time on a core (Linux schedstat)` })
  }
  if (s.append.length === s.wall.length && file.append.length === file.wall.length && s.append.length > 0) {
    const b = [baseline(FILE_SIDE, file.append, s.append)]
    out.push({ case: `stream → ${store}, against the file, main thread CPU in the store's append`, metric: 'CPU s (the ingesting thread, inside appendChecked)', project: { name: STREAM_SIDE, spread: spread(s.append) }, baselines: b, note: `${note}; the same rows and COMMITs of both sources, counted as time on a core (Linux schedstat), so waits for a core on a loaded machine are left out` })
  }
  const cpu = [baseline(FILE_SIDE, file.cpu, s.cpu)]
  out.push({ case: `stream → ${store}, against the file, CPU`, metric: 'CPU s (the ingesting process)', project: { name: STREAM_SIDE, spread: spread(s.cpu) }, baselines: cpu, note: `${note}; the stream server's CPU is not counted, as a hosted stream's is not (it took ${spread(s.server).median.toFixed(3)} s (${spread(s.server).min.toFixed(3)}–${spread(s.server).max.toFixed(3)}) per stream ingest, median (min–max))` })
  return out
}
rows.push(...rowsOf('SQLite', sqlite, chainNote))
/** Where the delayed rows go in the table: beside the loopback row they qualify, though they are measured last. */
const delayedAt = rows.length

/** Median wall ms of `n` sequential GETs of `url` on one kept-alive connection (after one to open it). */
async function getMs(url: string, n: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpGet(url, { agent }, (res) => {
        res.resume()
        res.once('end', resolve)
      })
      req.once('error', reject)
    })
  try {
    await once()
    const ms: number[] = []
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await once()
      ms.push(performance.now() - t0)
    }
    return spread(ms).median
  } finally {
    agent.destroy()
  }
}

/**
 * The stream against REST polling with both servers behind the same delay proxy
 * (bench/stream-delay-proxy.ts), at each of RTTS: what a user whose node is that far away meets.
 * Loopback has no round trips to save, so the loopback row cannot show what the stream saves;
 * these rows can. No warm-up round: the loopback rounds have warmed this process.
 */
async function delayedRows(): Promise<Row[]> {
  if (DELAYED_ROUNDS === 0) return []
  const hostPort = (u: string) => new URL(u).host
  const direct = await getMs(`${node.url}/`, 20)
  const measured: { rtt: number; added: number; runs: Record<string, Runs> }[] = []
  for (const rtt of RTTS) {
    const proxy = fork(join(import.meta.dirname, 'stream-delay-proxy.ts'), [String(rtt / 2), hostPort(stream.url), hostPort(node.url)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    try {
      const { urls } = await reply<{ urls: [string, string] }>(proxy, 'urls')
      const added = (await getMs(`${urls[1]}/v1/`, 20)) - direct
      console.error(`  ${rtt} ms round trip: ${added.toFixed(2)} ms measured`)
      const cases: Record<string, Case> = {
        stream: (s) => ingestFromStream({ endpoint: urls[0], store: s, startingVersion: 1, toVersion: stream.last_version }).then((r) => r.appended),
        node: (s) => ingestFromNode({ url: `${urls[1]}/v1`, store: s, once: true, startHeight: 1 }).then((r) => r.appended),
      }
      measured.push({ rtt, added, runs: await measure(cases, openSqlite, DELAYED_ROUNDS, false) })
    } finally {
      await stop(proxy)
    }
  }
  const ratio = (m: (typeof measured)[number]) => spread((m.runs.stream as Runs).wall.map((w, i) => w / ((m.runs.node as Runs).wall[i] as number))).median
  // The smallest round trip from which every longer one measured also reaches 10x (ratio ≤ 0.1).
  let from: number | undefined
  for (const m of [...measured].sort((a, b) => b.rtt - a.rtt)) {
    if (ratio(m) > 0.1) break
    from = m.rtt
  }
  const reach = from === undefined ? 'at no round trip measured here' : `from ${from} ms on`
  return measured.map((m) => {
    const s = m.runs.stream as Runs
    const b = [baseline(`${NODE_SIDE}, through the same proxy`, (m.runs.node as Runs).wall, s.wall)]
    return {
      case: `stream → SQLite, against REST polling, ${m.rtt} ms round trip (delay proxy)`,
      metric: 'wall s',
      project: { name: `${STREAM_SIDE}, through a delay proxy`, spread: spread(s.wall) },
      baselines: b,
      note: `${chainNote}; both servers behind one TCP proxy (a child process) holding every chunk ${m.rtt / 2} ms each way, in order, no bandwidth limit; a GET through it took ${m.added.toFixed(2)} ms longer than direct (median of 20); information, not the issue's target: the stream reached ≥ 10x (ratio ≤ 0.1) ${reach} in this run`,
    }
  })
}

let pgs: TestPostgres | undefined
let skippedPostgres: string | undefined
try {
  pgs = await startTestPostgres()
} catch (error) {
  skippedPostgres = `no PostgreSQL: DATABASE_URL is not set and the embedded server did not start (${(error as Error).message.split('\n')[0]})`
}
if (pgs !== undefined) {
  try {
    const url = await pgs.createDatabase()
    const server = pgs
    const open = async () => (await openLedger(`${url}${url.includes('?') ? '&' : '?'}schema=${await server.createSchema(url)}`, { readonly: false, chainId: 4 })).store
    const pg = await measure({ stream: fromStream, file: fromFile }, open)
    rows.push(...rowsOf('PostgreSQL', pg, `${chainNote}; the tests' embedded PostgreSQL (fsync off) or DATABASE_URL's`))
  } finally {
    await pgs.close()
  }
}

// Measured after PostgreSQL, so the rows kept from before (loopback, PostgreSQL) run as they did: after the same work in this process, not after minutes of polling through the proxy.
rows.splice(delayedAt, 0, ...(await delayedRows()))
await stop(nodeChild)

const rssChild = fork(join(import.meta.dirname, 'stream-rss-child.ts'), [stream.url, stream.last_version, '25'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--import', 'tsx', '--expose-gc'] })
const rss = await reply<{ baseline_rss: number; peak_rss: number; blocks: number }>(rssChild, 'peak_rss')
await stop(streamChild)
rmSync(scratch, { recursive: true, force: true })
const mb = (b: number) => b / 2 ** 20
rows.push({
  case: 'peak RSS, writer slower than the stream (25 ms per commit, 100 transactions per response)',
  metric: 'peak RSS MB',
  project: { name: 'ingestFromStream into SQLite, default flow-control window', spread: spread([mb(rss.peak_rss)]) },
  baselines: [],
  note: `${rss.blocks} blocks; the process held ${mb(rss.baseline_rss).toFixed(1)} MB before the ingest while the stream served ${mb(stream.bytes).toFixed(1)} MiB`,
})
if (skippedPostgres !== undefined) rows.push({ case: 'stream → PostgreSQL, against the file', metric: 'wall s', project: { name: STREAM_SIDE, spread: spread([]) }, baselines: [], note: `skipped: ${skippedPostgres}` })

const result = group.finish(rows)
console.log('\n| case | metric | stream (median, min–max) | baseline | time ratio (median, min–max) | target |\n|---|---|---|---|---|---|')
for (const r of rows) {
  const p = r.project.spread
  const b = r.baselines[0]
  const cell = (s: { median: number; min: number; max: number }, f: (v: number) => string) => `${f(s.median)} (${f(s.min)}–${f(s.max)})`
  console.log(`| ${r.case} | ${r.metric} | ${cell(p, (v) => v.toFixed(3))} | ${b === undefined ? '' : b.spread.median.toFixed(3)} | ${b === undefined ? '' : cell(b.ratio, x)} | ${r.target === undefined ? '' : `≤ ${r.target.max_ratio} ${r.target.met ? 'met' : 'NOT met'}`} |`)
}
console.log(`\nload average ${result.load_average.start.toFixed(2)} → ${result.load_average.end.toFixed(2)}; peak RSS ${mb(rss.peak_rss).toFixed(1)} MB`)
console.error(`wrote ${writeResult(result)}`)
