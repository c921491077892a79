// The bare baseline of the HTTP groups: node:http answering each path with the bytes the project
// answered it with (read from a JSON file of { path: body }), and nothing else.
//   node bench/bare/http-bytes.mjs PORT BODIES.json
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import process from 'node:process'

const bodies = new Map(Object.entries(JSON.parse(readFileSync(process.argv[3], 'utf8'))).map(([path, body]) => [path, Buffer.from(body, 'utf8')]))
createServer((req, res) => {
  const body = bodies.get(req.url)
  if (body === undefined) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
  res.end(body)
}).listen(Number(process.argv[2]), '127.0.0.1')
process.once('SIGTERM', () => process.exit(0))
