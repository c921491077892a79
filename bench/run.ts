/**
 * `npm run bench`: runs every benchmark group, prints tables of ratios and writes
 * bench/results/*.json. `npm run bench -- core http` runs only the groups named: the cold
 * groups (replay-cold, ingest-sqlite, ingest-postgres, reads-cold, serve-startup, estimate-cold, replica-startup:
 * whole processes against bare baselines, in the shape of bench/results.ts that `npm run
 * bench:report` renders into docs/benchmarks.md) and the warm ones (core, http, replay,
 * calibration, follow, stream, stream-decode, memory-store, stores, reads, scale, load, pipelining; the last two only
 * when named). Flags (`--rounds N`, `--quick`) go to every group run. Groups other than core run
 * as child processes so one group's heap and JIT state do not colour another's figures.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runCoreBench, type CoreBenchResult } from './core.js'
import { row, startGroup, writeResult } from './results.js'

/** The reference each engine row of bench/core.ts is measured against (its `row(name, base, …)` pairs). */
function coreReference(name: string): string {
  const references: Record<string, string> = {
    'query only (engine estimate())': 'query only (reference re-sort)',
    'estimate per block (engine: ingest + estimate)': 'estimate per block (reference: price + re-sort per query)',
    '250-txn block: ingest + estimate': '250-txn block: bare min + gas-sum loop',
    '250-txn blocks, windows x100': '250-txn blocks, default windows',
    'empty blocks, windows x100': 'empty blocks, default windows',
    '0-20 txn blocks: calibrated mode ingest + estimate': '0-20 txn blocks: aptos mode ingest + estimate',
    '250-txn blocks: calibrated mode ingest + estimate': '250-txn blocks: aptos mode ingest + estimate',
    '250-txn blocks, fresh estimator per 2,000 blocks: calibrated mode': '250-txn blocks, fresh estimator per 2,000 blocks: aptos mode',
    'construction: calibrated mode (new estimator + first block)': 'construction: aptos mode (new estimator + first block)',
  }
  return references[name] ?? 'its reference (bench/core.ts)'
}

const groups = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--rounds')
const flags = process.argv.slice(2).filter((a, i, all) => a.startsWith('--') || all[i - 1] === '--rounds')
const want = (g: string) => (groups.length === 0 && g !== 'load' && g !== 'pipelining') || groups.includes(g)

const roundsAt = process.argv.indexOf('--rounds')
const roundsFlag = roundsAt === -1 ? undefined : Number(process.argv[roundsAt + 1])
if (want('core')) {
  const rounds = roundsFlag ?? 5
  const group = startGroup(
    'core',
    'engine: fast paths against their naive references, in-process',
    'Warm, in-process (tinybench, warm-up on): each fast path beside its plain reference on the same seeded blocks, a fresh tinybench run per round so the two members of a pair run close in time; time per block (the two modes: one estimator each fed the blocks as an unending stream, in 40 alternating passes per round, the ratio the median over pairs; their construction in its own row, per estimator).',
    'warm',
    rounds,
  )
  const perRound: CoreBenchResult[][] = []
  for (let r = 0; r < rounds; r++) perRound.push(await runCoreBench({ rounds: 1 }))
  const rows = (perRound[0] ?? []).map((first, i) => {
    const at = perRound.map((round) => round[i] as CoreBenchResult)
    // A "speedup" row's ratio is reference / fast path, a "cost" row's fast path / reference: either way the reference's time follows.
    const speedup = first.target.startsWith('speedup')
    const reference = at.map((x) => (speedup ? x.ns_per_block * x.ratio : x.ns_per_block / x.ratio))
    const limit = /(?:speedup >=|cost <=) ([0-9.]+)x/.exec(first.target)
    return row(first.name, first.unit, [first.name, at.map((x) => x.ns_per_block)], [[coreReference(first.name), reference]], {
      ...(limit === null ? {} : { maxRatio: speedup ? 1 / Number(limit[1]) : Number(limit[1]) }),
      note: `target: ${first.target}`,
    })
  })
  console.log('\n## Engine (ratios within one run)\n')
  console.log('| measure | ns/block (median) | vs reference (median) | target |')
  console.log('|---|---:|---:|---|')
  for (const r of rows) console.log(`| ${r.case} | ${r.project.spread.median.toFixed(0)} | ${r.baselines[0]?.ratio.median.toFixed(3)}x | ${r.note} |`)
  console.log(`wrote ${writeResult(group.finish(rows))}`)
}

const COLD = ['replay-cold', 'ingest-sqlite', 'ingest-postgres', 'reads-cold', 'serve-startup', 'estimate-cold', 'replica-startup']
for (const group of [...COLD, 'http', 'replay', 'calibration', 'follow', 'stream', 'stream-decode', 'memory-store', 'stores', 'reads', 'scale', 'load', 'pipelining']) {
  const script = fileURLToPath(new URL(`./${group}.ts`, import.meta.url))
  if (!want(group) || !existsSync(script)) continue
  console.log(`\n## ${group}\n`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...(COLD.includes(group) ? flags : [])], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = 1
}
