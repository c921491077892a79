// The minimal Fastify baseline of the HTTP groups: one catch-all route answering each path with
// the bytes the project answered it with (a JSON file of { path: body }); no hooks, no logger.
//   node bench/bare/fastify-bytes.mjs PORT BODIES.json
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import process from 'node:process'
import Fastify from 'fastify'

const bodies = new Map(Object.entries(JSON.parse(readFileSync(process.argv[3], 'utf8'))).map(([path, body]) => [path, Buffer.from(body, 'utf8')]))
const app = Fastify()
app.get('/*', (req, reply) => {
  const body = bodies.get(req.url)
  if (body === undefined) return reply.code(404).send()
  return reply.type('application/json; charset=utf-8').send(body)
})
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' })
process.once('SIGTERM', () => app.close().then(() => process.exit(0)))
