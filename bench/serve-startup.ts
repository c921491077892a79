/**
 * `ledger-gas serve --data FILE` of the ~154 MB chain as a user starts it: the built CLI in a
 * fresh process, polled every 5 ms until `GET /v1/estimate_gas_price` answers 200, with its peak
 * RSS then (VmHWM from /proc), against the bare parse (bench/bare/parse.mjs FILE PORT: parse every
 * line, then listen and answer 200). The estimate is what a wallet asks a new server first, and
 * its first 200 waits on everything startup does (the load, the server, the estimators' catch-up),
 * so no work deferred past the listen hides from the figure. The two take turns in an order that
 * alternates each round. Beside the wall time, each side's main-thread CPU and minor page faults
 * at its first 200: figures a busy shared machine moves less. Targets (issue 21): first 200
 * within 1.3x the bare parse; peak RSS within 1.2x the file's size.
 *
 *   npx tsx bench/serve-startup.ts [--rounds 3] [--quick]   (--quick: the sample chain, one round)
 */
import { readFileSync, statSync } from 'node:fs'
import { bare, bigChain, builtCli, freePort, groupFlags, peakRssMb, SAMPLE, startServer, stopServer } from './processes.js'
import { baseline, row, spread, startGroup, target, writeResult, type Row } from './results.js'

/**
 * CPU seconds (user + system, at the kernel's 100 ticks a second) and minor page faults of the
 * main thread of process `pid`, from /proc/<pid>/task/<pid>/stat: what the thread that loads and
 * answers spent, apart from the other threads' (page toucher, collector helpers, file reads).
 * Less moved by a busy machine than the wall time, which is why it sits beside it.
 */
function mainThread(pid: number): { cpu_s: number; minflt: number } {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')
  // The fields after the command name (which may hold spaces): minflt is the 10th field, utime and stime the 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { cpu_s: (Number(fields[11]) + Number(fields[12])) / 100, minflt: Number(fields[7]) }
}

const { rounds, quick } = groupFlags(3)
const group = startGroup(
  'serve-startup',
  'serve: time to first 200 and peak RSS',
  '`ledger-gas serve --data FILE --log-level warn` (built CLI) from spawn to the first 200 of `GET /v1/estimate_gas_price`, polled every 5 ms, and its peak RSS (VmHWM) at that moment, against the bare parse script that parses every line and then listens; fresh processes taking turns.',
  'cold',
  rounds,
)
const cli = builtCli()
const file = quick ? SAMPLE : bigChain()
const fileMb = statSync(file).size / 1e6
const sides: [string, (port: number) => string[]][] = [
  ['ledger-gas serve', (port) => [cli, 'serve', '--data', file, '--port', String(port), '--log-level', 'warn']],
  ['bare parse, then listen (bench/bare/parse.mjs)', (port) => [bare('parse'), file, String(port)]],
]
const ready = sides.map(() => [] as number[])
const rss = sides.map(() => [] as number[])
const cpu = sides.map(() => [] as number[])
const faults = sides.map(() => [] as number[])
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < sides.length; k++) {
    const i = (k + r) % sides.length
    const port = await freePort()
    const s = await startServer(process.execPath, (sides[i] as [string, (port: number) => string[]])[1](port), port, '/v1/estimate_gas_price')
    rss[i]?.push(peakRssMb(s.child.pid as number))
    const main = mainThread(s.child.pid as number)
    cpu[i]?.push(main.cpu_s)
    faults[i]?.push(main.minflt)
    ready[i]?.push(s.ready_s)
    await stopServer(s)
  }
}
const name = `serve --data, ${quick ? 'sample' : 'generated'} chain (${fileMb.toFixed(0)} MB)`
const [project, bareSide] = [0, 1]
const t = [baseline(sides[bareSide]?.[0] as string, ready[bareSide] as number[], ready[project] as number[])]
const m = [baseline(sides[bareSide]?.[0] as string, rss[bareSide] as number[], rss[project] as number[])]
const rows: Row[] = [
  {
    case: name,
    metric: 'time to first 200, s',
    project: { name: sides[project]?.[0] as string, spread: spread(ready[project] as number[]) },
    baselines: t,
    target: target(1.3, t),
    before: '2.04 s (default then: 2 load threads; --load-threads 0: 1.74 s) vs bare parse 0.83 s: 2.5x (2.1x)',
  },
  {
    case: name,
    metric: 'peak RSS at first 200, MB',
    project: { name: sides[project]?.[0] as string, spread: spread(rss[project] as number[]) },
    baselines: m,
    note: `peak RSS / file size: ${(spread(rss[project] as number[]).median / fileMb).toFixed(2)}x (target ≤ 1.2x)`,
  },
  row(name, 'main-thread CPU at first 200, s', [sides[project]?.[0] as string, cpu[project] as number[]], [[sides[bareSide]?.[0] as string, cpu[bareSide] as number[]]], {
    note: 'the thread that loads and answers, without the other threads (page toucher, collector helpers, file reads); 10 ms resolution',
  }),
  row(name, 'main-thread minor page faults at first 200', [sides[project]?.[0] as string, faults[project] as number[]], [[sides[bareSide]?.[0] as string, faults[bareSide] as number[]]]),
]
console.error(`  serve-startup: ${t[0]?.ratio.median.toFixed(2)}x`)
console.error(`wrote ${writeResult(group.finish(rows))}`)
