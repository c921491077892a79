/**
 * A PostgreSQL replica as an operator starts one: `ledger-gas serve --db postgres://…` (the built
 * CLI, a fresh process) over a ledger a writer already filled, polled every 5 ms until
 * `GET /v1/estimate_gas_price` answers 200. That first 200 waits on the connection, the server
 * and the estimate feed's catch-up over the newest span of blocks (the calibrated window, 1,000
 * blocks by default), so it is a replica's time to its first estimate. Against the bare
 * baseline (bench/bare/pg-window.mjs): connect with `pg`, read and JSON.parse every transaction of
 * the same newest span, then listen and answer 200. The two take turns in an order that alternates
 * each round. The server is `DATABASE_URL`'s, else the tests' embedded PostgreSQL
 * (test/helpers/postgres.ts); when neither starts, the group is written as skipped, with the
 * reason. No target: the issue sets none; the row says where a replica's startup goes.
 *
 *   npx tsx bench/replica-startup.ts [--rounds 5] [--quick]   (--quick: the sample chain, one round)
 */
import { statSync } from 'node:fs'
import { DEFAULT_CALIBRATED_CONFIG } from '../src/core/calibrated/calibrated-config.js'
import { bare, bigChain, builtCli, freePort, groupFlags, postgresOrSkip, SAMPLE, startServer, stopServer, timed } from './processes.js'
import { baseline, spread, startGroup, writeResult, type Row } from './results.js'

const { rounds, quick } = groupFlags(5)
const SPAN = DEFAULT_CALIBRATED_CONFIG.window
const group = startGroup(
  'replica-startup',
  'PostgreSQL replica: time to first estimate',
  `\`ledger-gas serve --db postgres://…?schema=S --log-level warn\` (built CLI) over a ledger filled beforehand by \`ledger-gas ingest\`, from spawn to the first 200 of \`GET /v1/estimate_gas_price\` (polled every 5 ms), against the bare script that connects with \`pg\`, reads and parses every transaction of the newest ${SPAN} blocks (the span the feed catches up over) and then listens; fresh processes taking turns, on one server (the tests' embedded PostgreSQL: fsync off).`,
  'cold',
  rounds,
)
const pgs = await postgresOrSkip(group, 'replica-startup')
try {
  const cli = builtCli()
  const file = quick ? SAMPLE : bigChain()
  const mb = statSync(file).size / 1e6
  const url = await pgs.createDatabase()
  const schema = await pgs.createSchema(url)
  const withSchema = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`
  await timed(process.execPath, [cli, 'ingest', '--db', withSchema, '--input', file])
  const sides: [string, (port: number) => string[]][] = [
    ['ledger-gas serve --db postgres://…', (port) => [cli, 'serve', '--db', withSchema, '--port', String(port), '--log-level', 'warn']],
    [`bare: connect, read and parse the newest ${SPAN} blocks, listen (bench/bare/pg-window.mjs)`, (port) => [bare('pg-window'), url, schema, String(SPAN), String(port)]],
  ]
  const ready = sides.map(() => [] as number[])
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + r) % sides.length
      const port = await freePort()
      const s = await startServer(process.execPath, (sides[i] as [string, (port: number) => string[]])[1](port), port, '/v1/estimate_gas_price')
      ready[i]?.push(s.ready_s)
      await stopServer(s)
    }
  }
  const [project, bareSide] = [ready[0] as number[], ready[1] as number[]]
  const b = [baseline(sides[1]?.[0] as string, bareSide, project)]
  const rows: Row[] = [
    {
      case: `serve --db postgres://…, ${quick ? 'sample' : 'generated'} chain (${mb.toFixed(0)} MB) ingested beforehand`,
      metric: 'time to first estimate, s',
      project: { name: sides[0]?.[0] as string, spread: spread(project) },
      baselines: b,
    },
  ]
  console.error(`  replica-startup: ${b[0]?.ratio.median.toFixed(2)}x`)
  console.error(`wrote ${writeResult(group.finish(rows))}`)
} finally {
  await pgs.close()
}
