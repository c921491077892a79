import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LedgerDatabaseError } from '../../src/ledger/store/database-error.js'
import { PgStore } from '../../src/ledger/postgres/pg-store.js'
import { runCli } from '../helpers/run-cli.js'
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js'

/**
 * Each way a PostgreSQL URL can be wrong, on a real server: one line that says what to do,
 * exit 2, and no wait (the no-password case used to hold the process for the server's 60 s
 * authentication timeout). The file starts its own server because it edits its pg_hba.conf:
 * a role that must use SCRAM with a password, and one refused without TLS.
 */

let server: TestPostgres
/** A database of this file, as the superuser (the URL has its password). */
let url: string
let port: string
beforeAll(async () => {
  server = await startTestPostgres({ own: true })
  url = await server.createDatabase()
  port = new URL(url).port
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(`CREATE ROLE scram_user LOGIN PASSWORD 'scram-secret'; CREATE ROLE tls_user LOGIN PASSWORD 'tls-secret'; CREATE SCHEMA scram_home AUTHORIZATION scram_user`)
    const hba = (await admin.query<{ hba_file: string }>('SHOW hba_file')).rows[0]?.hba_file as string
    // First match wins: these two lines go before the server's own.
    writeFileSync(hba, `host all scram_user 127.0.0.1/32 scram-sha-256\nhostnossl all tls_user all reject\n${readFileSync(hba, 'utf8')}`)
    await admin.query('SELECT pg_reload_conf()')
  } finally {
    await admin.end()
  }
}, 120_000)
afterAll(async () => {
  await server?.close()
}, 60_000)

const savedPassword = process.env.PGPASSWORD
afterEach(() => {
  if (savedPassword === undefined) delete process.env.PGPASSWORD
  else process.env.PGPASSWORD = savedPassword
})

/** `url` with another user, password and path. */
function as(user: string, password: string | null, database?: string): string {
  const u = new URL(url)
  u.username = user
  u.password = password ?? ''
  if (database !== undefined) u.pathname = `/${database}`
  return u.toString()
}

/** A port on 127.0.0.1 that nothing listens on (free when asked). */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}

/**
 * Opens `db` (as a writer, then as a replica) and returns the refusal's message, holding it to
 * one line and the `LedgerDatabaseError` class. The bound only tells a hang (the 60 s
 * authentication timeout) from an answer; it is not a speed check.
 */
async function refusal(db: string, readonly = false): Promise<string> {
  const started = Date.now()
  const thrown = await PgStore.open(db, { readonly, connectTimeoutMs: 5000 }).then(
    async (s) => {
      await s.close()
      return new Error('opened')
    },
    (e: unknown) => e,
  )
  expect(Date.now() - started).toBeLessThan(20_000)
  expect(thrown).toBeInstanceOf(LedgerDatabaseError)
  const message = (thrown as Error).message
  expect(message).not.toContain('\n')
  return message
}

describe('PostgreSQL misconfigurations: one line that says what to do', { timeout: 60_000 }, () => {
  it('no password for a role that needs one: names USER@HOST and the two ways to give it, at once', async () => {
    delete process.env.PGPASSWORD
    for (const readonly of [false, true]) {
      expect(await refusal(as('scram_user', null), readonly)).toBe(`cannot connect to PostgreSQL ledger ${as('scram_user', null)}: no password for scram_user@127.0.0.1 (set PGPASSWORD or put it in the URL)`)
    }
  })

  it('PGPASSWORD stands in for a URL without one; a wrong password is named as such', async () => {
    process.env.PGPASSWORD = 'scram-secret'
    const store = await PgStore.open(`${as('scram_user', null)}?schema=scram_home`)
    expect(await store.ledgerInfo()).toBeNull()
    await store.close()
    expect(await refusal(as('scram_user', 'wrong'))).toMatch(/: password authentication failed for scram_user@127\.0\.0\.1 \(check the password in the URL or PGPASSWORD\)$/)
  })

  it('a ?schema that does not exist: named, with the fix; never read as another writer holding the lock', async () => {
    for (const readonly of [false, true]) {
      const message = await refusal(`${url}?schema=no_such_schema`, readonly)
      expect(message).toMatch(/: schema no_such_schema does not exist \(create it, or drop \?schema\)$/)
      expect(message).not.toMatch(/another ledger-gas writer/)
    }
  })

  it('a database that does not exist, nothing listening on the port, a host that does not resolve', async () => {
    expect(await refusal(as('postgres', new URL(url).password, 'no_such_db'))).toMatch(new RegExp(`: database no_such_db does not exist on 127\\.0\\.0\\.1:${port} \\(create it, or fix the URL's path\\)$`))
    const closed = await closedPort()
    expect(await refusal(`postgres://postgres:x@127.0.0.1:${closed}/db`)).toMatch(new RegExp(`: nothing accepts connections at 127\\.0\\.0\\.1:${closed} \\(is PostgreSQL running there, on that port\\?\\)$`))
    expect(await refusal('postgres://postgres:x@no-such-host.invalid:5432/db')).toMatch(/: host no-such-host\.invalid not found \(check the URL's host name\)$/)
  })

  it('a server that requires TLS, and one asked for TLS that offers none', async () => {
    expect(await refusal(as('tls_user', 'tls-secret'))).toMatch(new RegExp(`: 127\\.0\\.0\\.1:${port} requires TLS for tls_user \\(add \\?sslmode=require to the URL\\)$`))
    expect(await refusal(`${url}?sslmode=no-verify`)).toMatch(/does not offer TLS \(drop sslmode from the URL, or enable ssl on the server\)$/)
  })

  it('the CLI prints each as one line and exits 2', async () => {
    delete process.env.PGPASSWORD
    for (const db of [as('scram_user', null), `${url}?schema=no_such_schema`, as('tls_user', 'tls-secret')]) {
      for (const args of [['ingest', '--db', db, '--input', '-'], ['serve', '--db', db, '--port', '0']]) {
        const r = await runCli(args, '')
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
        expect(r.stderr).toMatch(/no password for|does not exist \(create it|requires TLS/)
        expect(r.stderr).not.toContain('tls-secret')
      }
    }
  })
})
