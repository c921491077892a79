// The bare COPY baseline of `ingest` into PostgreSQL: the rows a ledger-gas ingest wrote into
// schema FROM (read with COPY … TO STDOUT before the clock starts: pre-built rows) copied into a
// new schema TO whose tables are made LIKE FROM's (INCLUDING ALL: columns, keys, indexes), in
// BATCHES transactions of COPY … FROM STDIN. Prints {"copy_s": …}: from CREATE SCHEMA to the
// last COMMIT.
//   node bench/bare/pg-copy.mjs URL FROM TO BATCHES
import { Buffer } from 'node:buffer'
import { performance } from 'node:perf_hooks'
import process from 'node:process'
import pg from 'pg'

const [url, from, to, batches] = [process.argv[2], process.argv[3], process.argv[4], Number(process.argv[5] ?? 1)]

/** A COPY through pg's connection (what pg-copy-streams does): out collects CopyData, in sends `chunks`. */
class Copy {
  constructor(text, chunks) {
    this.text = text
    this.chunks = chunks
    this.out = []
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
  }
  submit(connection) {
    connection.query(this.text)
  }
  handleCopyInResponse(connection) {
    for (const c of this.chunks) connection.sendCopyFromChunk(c)
    connection.endCopyFrom()
  }
  handleCopyData(msg) {
    // A view of the parser's buffer, which the next message overwrites.
    this.out.push(Buffer.from(msg.chunk))
  }
  handleCommandComplete() {}
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  // pg drops a query that failed before the server is ready again: its error settles it.
  handleError(error) {
    this.reject(error)
  }
  handleReadyForQuery() {
    this.resolve(Buffer.concat(this.out))
  }
}
const copy = (client, text, chunks = []) => {
  const q = new Copy(text, chunks)
  client.query(q)
  return q.done
}

const client = new pg.Client({ connectionString: url })
await client.connect()
const tables = (await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name", [from])).rows.map((r) => r.table_name)
const data = new Map()
for (const t of tables) {
  const text = await copy(client, `COPY "${from}"."${t}" TO STDOUT`)
  // Rows end at newlines (COPY's text format escapes those inside values): cut each table into BATCHES runs of whole rows.
  const lines = text.toString('utf8').split('\n').filter((l) => l.length > 0)
  const per = Math.ceil(lines.length / batches)
  data.set(t, Array.from({ length: batches }, (_, b) => Buffer.from(lines.slice(b * per, (b + 1) * per).map((l) => `${l}\n`).join(''), 'utf8')))
}

const t0 = performance.now()
await client.query(`CREATE SCHEMA "${to}"`)
for (const t of tables) await client.query(`CREATE TABLE "${to}"."${t}" (LIKE "${from}"."${t}" INCLUDING ALL)`)
for (let b = 0; b < batches; b++) {
  await client.query('BEGIN')
  for (const t of tables) {
    const chunk = data.get(t)[b]
    if (chunk.length > 0) await copy(client, `COPY "${to}"."${t}" FROM STDIN`, [chunk])
  }
  await client.query('COMMIT')
}
const copyS = (performance.now() - t0) / 1000
await client.end()
process.stdout.write(`${JSON.stringify({ copy_s: copyS })}\n`)
