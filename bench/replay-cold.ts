/**
 * `ledger-gas replay` as a user runs it: the built CLI in a fresh process on the 15 MB sample and
 * on the ~154 MB generated chain, output to /dev/null, in alternating pairs with the bare parse
 * (bench/bare/parse.mjs: stream the file, split lines, JSON.parse each, read every
 * gas_unit_price). Wall and CPU time (user + system) of each whole process. Targets (issue 21):
 * replay ≤ 1.0x the bare parse on the sample and ≤ 0.77x on the large chain.
 *
 *   npx tsx bench/replay-cold.ts [--rounds 5] [--quick]
 */
import { statSync } from 'node:fs'
import { baseline, spread, startGroup, target, writeResult, type Row } from './results.js'
import { bare, bigChain, builtCli, groupFlags, SAMPLE, timed, type ProcessCost } from './processes.js'

const { rounds, quick } = groupFlags(5)
const group = startGroup(
  'replay-cold',
  'replay: whole process, cold',
  '`ledger-gas replay --input FILE --output /dev/null` (the built CLI) against the bare parse script (stream, split lines, JSON.parse, read every gas_unit_price), in alternating pairs, each a fresh process.',
  'cold',
  rounds,
)
const cli = builtCli()
const fixtures: [string, string, number, string][] = [
  [SAMPLE, 'sample', 1.0, '0.32 s vs 0.18 s: 1.85x'],
  ...(quick ? [] : ([[bigChain(), 'generated', 0.77, '0.90 s vs 0.83 s: 1.09x (154 MB)']] as [string, string, number, string][])),
]
const rows: Row[] = []
for (const [file, name, limit, before] of fixtures) {
  const mb = (statSync(file).size / 1e6).toFixed(0)
  const project: ProcessCost[] = []
  const base: ProcessCost[] = []
  for (let r = 0; r < rounds; r++) {
    const runProject = async () => project.push(await timed(process.execPath, [cli, 'replay', '--input', file, '--output', '/dev/null']))
    const runBare = async () => base.push(await timed(process.execPath, [bare('parse'), file]))
    if (r % 2 === 0) await runProject().then(runBare)
    else await runBare().then(runProject)
  }
  for (const [metric, of] of [
    ['wall s', (c: ProcessCost) => c.wall_s],
    ['CPU s (user + system)', (c: ProcessCost) => c.cpu_s],
  ] as const) {
    const p = project.map(of)
    const baselines = [baseline('split + JSON.parse (bench/bare/parse.mjs)', base.map(of), p)]
    rows.push({
      case: `replay, ${name} chain (${mb} MB)`,
      metric,
      project: { name: 'ledger-gas replay', spread: spread(p) },
      baselines,
      ...(metric === 'wall s' ? { target: target(limit, baselines), before } : {}),
    })
  }
  console.error(`  replay-cold ${name}: ${rows.at(-2)?.baselines[0]?.ratio.median.toFixed(2)}x wall, ${rows.at(-1)?.baselines[0]?.ratio.median.toFixed(2)}x CPU`)
}
console.error(`wrote ${writeResult(group.finish(rows))}`)
