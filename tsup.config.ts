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

export default defineConfig({
  // The scan and load workers are entries of their own: worker threads load them by path (src/ledger/threads/ledger-worker.ts).
  entry: { ...libraryEntries, 'cli/main': 'src/cli/main.ts', 'ledger/scan-worker': 'src/ledger/threads/scan-worker.ts', 'ledger/load-worker': 'src/ledger/threads/load-worker.ts' },
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
  // The live page's browser script: one classic script file for the browser, beside the library.
  async onSuccess() {
    const { build } = await import('esbuild')
    await build({ ...PAGE_BUNDLE_OPTIONS, entryPoints: ['src/api/live-page/browser/main.ts'], outfile: `dist/${PAGE_SCRIPT_BUNDLE}` })
  },
})
