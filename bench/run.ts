/**
 * `npm run bench`: runs the benchmarks, prints a table of ratios and writes bench/results/*.json.
 * `npm run bench -- core` runs one group (core, http, replay).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runCoreBench } from './core.js'

const OUT = fileURLToPath(new URL('./results/', import.meta.url))
const groups = process.argv.slice(2)
const want = (g: string) => groups.length === 0 || groups.includes(g)

mkdirSync(OUT, { recursive: true })
if (want('core')) {
  const rows = await runCoreBench()
  console.log('\n## Engine (ratios within one run)\n')
  console.log('| measure | ns/block | ratio | target | met |')
  console.log('|---|---:|---:|---|---|')
  for (const r of rows) console.log(`| ${r.name} | ${r.ns_per_block.toFixed(0)} | ${r.ratio.toFixed(2)}x | ${r.target} | ${r.pass ? 'yes' : 'NO'} |`)
  writeFileSync(`${OUT}core.json`, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2))
}
