import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'tsup'
import { PAGE_BUNDLE_OPTIONS, PAGE_SCRIPT_BUNDLE } from './src/api/live-page/page-script.js'

const libraryEntries = {
  index: 'src/index.ts',
  'core/index': 'src/core/index.ts',
  server: 'src/server.ts',
  'replay/index': 'src/replay/index.ts',
  'sim/index': 'src/sim/index.ts',
  'follow/index': 'src/follow/index.ts',
}

/**
 * The CLI's commands that read chain files (the engine's): each bundled whole, in one file with
 * every module it uses. A fresh process pays for each ES module it loads (resolve, read, compile,
 * link: about a millisecond or more before the loader is warm), and a one-shot `replay` of a
 * small file is mostly start-up; through the library's shared chunks it loaded some thirty files.
 * They use no optional peer, so whole bundles load nothing a user may not have installed.
 */
const wholeCommands = ['replay', 'estimate', 'backtest', 'generate']
/** The commands that need optional peers (fastify, pg, gRPC …): entries of the library's split build, sharing its chunks, and small. */
const sharedCommands = ['serve', 'ingest', 'follow']

export default defineConfig((flags) => ({
  entry: {
    ...libraryEntries,
    ...Object.fromEntries(sharedCommands.map((c) => [`cli/commands/${c}`, `src/cli/commands/${c}.ts`])),
  },
  format: ['esm'],
  target: 'node20',
  dts: { entry: libraryEntries },
  // No source maps: the output is unminified ESM that reads like the source, and maps with their
  // sources would more than double the package.
  sourcemap: false,
  clean: true,
  splitting: true,
  // Only a run from source bundles the live page's script itself (src/api/live-page/page-script.ts); the package reads the bundle below.
  external: ['esbuild'],
  async onSuccess() {
    const { build } = await import('esbuild')
    const outDir = flags.outDir ?? 'dist'
    // The live page's browser script: one classic script file for the browser, beside the library.
    await build({ ...PAGE_BUNDLE_OPTIONS, entryPoints: ['src/api/live-page/browser/main.ts'], outfile: join(outDir, PAGE_SCRIPT_BUNDLE) })
    // The bin (dist/cli/main.js) and the whole commands, each one file; `./commands/*` stays an
    // import of the file beside it, so the bin loads only the command it runs.
    await build({
      entryPoints: { 'cli/main': 'src/cli/main.ts', ...Object.fromEntries(wholeCommands.map((c) => [`cli/commands/${c}`, `src/cli/commands/${c}.ts`])) },
      outdir: outDir,
      bundle: true,
      splitting: false,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      // Whitespace only: these files are run, never read or imported, and each whole command
      // repeats the engine it bundles; names stay, so a stack trace still reads.
      minifyWhitespace: true,
      plugins: [{ name: 'commands-beside', setup: (b) => void b.onResolve({ filter: /^\.\/commands\// }, (a) => ({ path: a.path, external: true })) }],
    })
    chmodSync(join(outDir, 'cli', 'main.js'), 0o755)
  },
}))
