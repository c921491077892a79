import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { run as serve } from '../../src/cli/commands/serve.js'
import { codeBlocks, docFiles, isCliShell, isIllustrative, isOutput, isTs, readDoc, replaceBlock, ROOT, type CodeBlock } from './doc-blocks.js'

// Every block of the README and docs/ that shows library or CLI use runs here as written, on the
// bundled sample chain (data/chain.jsonl), and a block marked `output` after it must be what it
// prints. Blocks that cannot run here (a mainnet node, a PostgreSQL server, a port of their own)
// say `illustrative` in their info string. TypeScript runs as a module under tsx (all of them
// in one process, each its own module), with the package's names mapped to src/ as its exports
// map them to dist/; shell runs under bash with
// `ledger-gas` on the PATH (the CLI from src/). Any http://127.0.0.1:8080 an example names (a
// `curl`, a follower) reaches `ledger-gas serve` as `npm start` runs it, on a free port in place
// of 8080. Both run in a
// scratch directory holding `data/` (a link to the repository's), so files they write stay there.
//
// The answers of the calibrated learner change with its code: `UPDATE_DOCS=1 npx vitest run
// test/docs/examples.test.ts` rewrites every `output` block with what its example now prints
// (review the diff); without it a difference fails.

const UPDATE = process.env.UPDATE_DOCS === '1'
const SHOWN_PORT = 'http://127.0.0.1:8080'

interface Example {
  block: CodeBlock
  output: CodeBlock | undefined
}

/** The runnable blocks of every doc, each with the `output` block that follows it, if any. */
function examples(): { runnable: Example[]; orphans: CodeBlock[] } {
  const runnable: Example[] = []
  const orphans: CodeBlock[] = []
  for (const file of docFiles()) {
    const blocks = codeBlocks(file, readDoc(file))
    blocks.forEach((block, i) => {
      const before = blocks[i - 1]
      if (isOutput(block) && (before === undefined || isIllustrative(before) || !(isTs(before) || isCliShell(before)))) orphans.push(block)
      if (isOutput(block) || isIllustrative(block) || !(isTs(block) || isCliShell(block))) return
      const next = blocks[i + 1]
      runnable.push({ block, output: next !== undefined && isOutput(next) ? next : undefined })
    })
  }
  return { runnable, orphans }
}

/** What an `output` block shows, parsed when it is JSON (one document, or JSON Lines). */
function shown(lang: string, text: string): unknown {
  if (lang !== 'json') return text.trimEnd()
  try {
    return JSON.parse(text)
  } catch {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown)
  }
}

/** The text an `output` block should hold for `stdout`: one JSON document is pretty-printed when long. */
function outputText(lang: string, stdout: string): string {
  if (lang === 'json' && stdout.trim().length > 100) {
    try {
      return JSON.stringify(JSON.parse(stdout), null, 2)
    } catch {
      // JSON Lines: kept one document per line.
    }
  }
  return stdout.trimEnd()
}

const { runnable, orphans } = examples()
const work = mkdtempSync(join(tmpdir(), 'ledger-gas-docs-'))
const updates = new Map<string, { block: CodeBlock; content: string }[]>()
let server: { origin: string; stop: () => Promise<number> } | undefined

/** Starts `ledger-gas serve` as `npm start` does (the sample chain, defaults), on a free port. */
async function startServer(): Promise<{ origin: string; stop: () => Promise<number> }> {
  const controller = new AbortController()
  const stderr = new PassThrough()
  let err = ''
  const listening = new Promise<string>((resolve) => {
    stderr.on('data', (c: Buffer) => {
      err += c.toString()
      const url = /listening on (http:\/\/\S+)\/v1/.exec(err)?.[1]
      if (url !== undefined) resolve(url)
    })
  })
  const exit = serve(['--port', '0', '--log-level', 'silent'], { stdin: new PassThrough(), stdout: new PassThrough().resume(), stderr, signal: controller.signal })
  const origin = await Promise.race([listening, exit.then((code) => Promise.reject(new Error(`serve exited ${code} before listening: ${err}`)))])
  return {
    origin,
    stop: async () => {
      controller.abort()
      return exit
    },
  }
}

beforeAll(async () => {
  symlinkSync(join(ROOT, 'data'), join(work, 'data'))
  // An ESM project, as the package is ESM only (top-level await in the examples).
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'docs-examples', private: true, type: 'module' }))
  mkdirSync(join(work, 'bin'))
  const loader = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')
  writeFileSync(join(work, 'bin', 'ledger-gas'), `#!/bin/sh\nexec "${process.execPath}" --import "${loader}" "${join(ROOT, 'src', 'cli', 'main.ts')}" "$@"\n`)
  chmodSync(join(work, 'bin', 'ledger-gas'), 0o755)
  // The package's own names, mapped as its exports map dist/ (the build) to src/.
  const exports = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> }).exports
  const paths = Object.fromEntries(Object.entries(exports).map(([key, e]) => [`ledger-gas${key.slice(1)}`, [join(ROOT, e.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'))]]))
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), compilerOptions: { paths } }))
  if (runnable.some((e) => e.block.text.includes(SHOWN_PORT))) server = await startServer()
}, 120_000)

afterAll(async () => {
  if (server !== undefined) expect(await server.stop()).toBe(0)
  rmSync(work, { recursive: true, force: true })
  for (const [file, list] of updates) {
    let text = readDoc(file)
    for (const { block, content } of list.sort((a, b) => b.block.from - a.block.from)) text = replaceBlock(text, block, content)
    writeFileSync(join(ROOT, file), text)
  }
})

/**
 * The TypeScript examples run one after another in one Node process (each its own module, with
 * its standard output captured), so src/ and its packages load once rather than per example.
 */
const RUNNER = `import { pathToFileURL } from 'node:url'
const results = []
const write = process.stdout.write
for (const file of process.argv.slice(2)) {
  let stdout = ''
  process.stdout.write = (chunk, ...rest) => {
    stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()
    rest.find((r) => typeof r === 'function')?.()
    return true
  }
  try {
    await import(pathToFileURL(file).href)
    results.push({ stdout })
  } catch (error) {
    results.push({ stdout, error: String(error?.stack ?? error) })
  } finally {
    process.stdout.write = write
  }
}
process.stdout.write(JSON.stringify(results), () => process.exit(0))
`

/** The environment of the examples: \`ledger-gas\` on the PATH, the runner's NODE_OPTIONS not theirs. */
function exampleEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: '', PATH: `${join(work, 'bin')}:${process.env.PATH ?? ''}` }
}

/** An example's text, with the shown server address replaced by the test server's. */
function runnableText(block: CodeBlock): string {
  return server === undefined ? block.text : block.text.replaceAll(SHOWN_PORT, server.origin)
}

let tsResults: Promise<Map<CodeBlock, { stdout: string; error?: string }>> | undefined

/** Runs every TypeScript example once, in one process; resolves to each one's output or error. */
function runTsExamples(): Promise<Map<CodeBlock, { stdout: string; error?: string }>> {
  tsResults ??= (async () => {
    const blocks = runnable.map((e) => e.block).filter(isTs)
    const files = blocks.map((block, i) => {
      const file = join(work, `example-${i}.ts`)
      writeFileSync(file, runnableText(block))
      return file
    })
    writeFileSync(join(work, 'runner.mjs'), RUNNER)
    const loader = join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', loader, join(work, 'runner.mjs'), ...files], { cwd: work, env: exampleEnv(), maxBuffer: 64 << 20 })
    const results = JSON.parse(stdout) as { stdout: string; error?: string }[]
    return new Map(blocks.map((block, i) => [block, results[i] ?? { stdout: '', error: 'no result' }]))
  })()
  return tsResults
}

/** Runs an example in the scratch directory; resolves to its standard output. */
async function runExample(block: CodeBlock): Promise<string> {
  try {
    if (isTs(block)) {
      const result = (await runTsExamples()).get(block)
      if (result?.error !== undefined) throw new Error(result.error)
      return result?.stdout ?? ''
    }
    return (await promisify(execFile)('bash', ['-eo', 'pipefail', '-c', runnableText(block)], { cwd: work, env: exampleEnv(), maxBuffer: 64 << 20 })).stdout
  } catch (error) {
    const e = error as Error & { stderr?: string }
    throw new Error(`${block.file}:${block.line}: the example failed: ${e.message}\n${e.stderr ?? ''}`, { cause: error })
  }
}

describe('the examples of the README and docs/ run as written on the sample chain', () => {
  it('there are examples, and every `output` block follows a runnable one', () => {
    expect(runnable.length).toBeGreaterThan(5)
    expect(orphans.map((b) => `${b.file}:${b.line}`)).toEqual([])
  })

  runnable.forEach(({ block, output }) => {
    it(`${block.file}:${block.line} (${block.lang})${output === undefined ? '' : ' prints what the doc shows'}`, { timeout: 120_000 }, async () => {
      const stdout = await runExample(block)
      if (output === undefined) return
      const fresh = outputText(output.lang, stdout)
      const same = JSON.stringify(shown(output.lang, fresh)) === JSON.stringify(shown(output.lang, output.text))
      if (UPDATE && !same) {
        updates.set(output.file, [...(updates.get(output.file) ?? []), { block: output, content: fresh }])
        return
      }
      expect(shown(output.lang, fresh), `${output.file}:${output.line} shows another output (UPDATE_DOCS=1 rewrites it)`).toEqual(shown(output.lang, output.text))
    })
  })
})
