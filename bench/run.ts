/**
 * `npm run bench`: runs every benchmark group, prints tables of ratios and writes
 * bench/results/*.json. `npm run bench -- core http` runs only the groups named: the cold
 * groups (replay-cold, ingest-sqlite, ingest-postgres, reads-cold, serve-startup, estimate-cold:
 * whole processes against bare baselines, in the shape of bench/results.ts that `npm run
 * bench:report` renders into docs/benchmarks.md) and the warm ones (core, http, replay,
 * calibration, follow, stream, memory-store, stores, reads, scale, load, pipelining; the last two only
 * when named). Flags (`--rounds N`, `--quick`) go to every group run. Groups other than core run
 * as child processes so one group's heap and JIT state do not colour another's figures.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runCoreBench } from './core.js'

const OUT = fileURLToPath(new URL('./results/', import.meta.url))
const groups = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--rounds')
const flags = process.argv.slice(2).filter((a, i, all) => a.startsWith('--') || all[i - 1] === '--rounds')
const want = (g: string) => (groups.length === 0 && g !== 'load' && g !== 'pipelining') || groups.includes(g)

mkdirSync(OUT, { recursive: true })
if (want('core')) {
  const rows = await runCoreBench()
  console.log('\n## Engine (ratios within one run)\n')
  console.log('| measure | ns/block | ratio | target | met |')
  console.log('|---|---:|---:|---|---|')
  for (const r of rows) console.log(`| ${r.name} | ${r.ns_per_block.toFixed(0)} | ${r.ratio.toFixed(2)}x | ${r.target} | ${r.pass ? 'yes' : 'NO'} |`)
  writeFileSync(`${OUT}core.json`, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2))
}

const COLD = ['replay-cold', 'ingest-sqlite', 'ingest-postgres', 'reads-cold', 'serve-startup', 'estimate-cold']
for (const group of [...COLD, 'http', 'replay', 'calibration', 'follow', 'stream', 'memory-store', 'stores', 'reads', 'scale', 'load', 'pipelining']) {
  const script = fileURLToPath(new URL(`./${group}.ts`, import.meta.url))
  if (!want(group) || !existsSync(script)) continue
  console.log(`\n## ${group}\n`)
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...(COLD.includes(group) ? flags : [])], { stdio: 'inherit' })
  if (r.status !== 0) process.exitCode = 1
}
