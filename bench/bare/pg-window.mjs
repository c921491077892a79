// The bare baseline of a PostgreSQL replica's startup: connect, read the JSON of every transaction
// of the newest SPAN blocks (what an estimate over the chain's newest blocks needs), JSON.parse
// each and read its gas_unit_price, then listen on PORT and answer every request 200. Plain
// JavaScript and the `pg` driver alone, so the process does only that.
//   node bench/bare/pg-window.mjs URL SCHEMA SPAN PORT
import { createServer } from 'node:http'
import process from 'node:process'
import pg from 'pg'

const [url, schema, span, port] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5])]
const client = new pg.Client({ connectionString: url })
await client.connect()
await client.query(`SET search_path TO "${schema.replaceAll('"', '""')}"`)
const { rows } = await client.query(
  `SELECT json FROM transactions WHERE version >= (SELECT first_version FROM blocks WHERE block_height = GREATEST((SELECT max(block_height) FROM blocks) - $1 + 1, (SELECT min(block_height) FROM blocks))) ORDER BY version`,
  [span],
)
let txns = 0
let sum = 0
for (const { json } of rows) {
  const t = JSON.parse(json)
  if (t.gas_unit_price !== undefined) {
    sum += Number(t.gas_unit_price)
    txns++
  }
}
createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${txns} ${sum}\n`)).listen(port, '127.0.0.1')
process.once('SIGTERM', () => process.exit(0))
