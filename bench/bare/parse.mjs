// The bare baseline of replay, ingest and serve: stream the file, split it into lines, JSON.parse
// each and read every transaction's gas_unit_price. Plain JavaScript (no tsx, no project code),
// so the process does only that; prints the transaction count and the sum of the prices. With a
// port, it then listens on it and answers every request 200 (serve's baseline: time to first 200).
//   node bench/bare/parse.mjs FILE [PORT]
import { Buffer } from 'node:buffer'
import { createReadStream } from 'node:fs'
import { createServer } from 'node:http'
import process from 'node:process'

let held = null
let txns = 0
let sum = 0
const line = (bytes) => {
  if (bytes.length === 0) return
  for (const t of JSON.parse(bytes.toString('utf8')).transactions) {
    if (t.gas_unit_price !== undefined) {
      sum += Number(t.gas_unit_price)
      txns++
    }
  }
}
for await (const chunk of createReadStream(process.argv[2], { highWaterMark: 1 << 20 })) {
  let start = 0
  for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
    line(held === null ? chunk.subarray(start, nl) : Buffer.concat([held, chunk.subarray(start, nl)]))
    held = null
    start = nl + 1
  }
  if (start < chunk.length) held = held === null ? Buffer.from(chunk.subarray(start)) : Buffer.concat([held, chunk.subarray(start)])
}
if (held !== null) line(held)
process.stdout.write(`${txns} ${sum}\n`)
if (process.argv[3] !== undefined) {
  createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${txns} ${sum}\n`)).listen(Number(process.argv[3]), '127.0.0.1')
  process.once('SIGTERM', () => process.exit(0))
}
