import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Where the browser script's source lives, and where the build writes its bundle (tsup.config.ts). */
const SOURCE = 'browser/main.ts'
/** The bundle's path under `dist/`, written by the build (tsup.config.ts). */
export const PAGE_SCRIPT_BUNDLE = 'page/gas-page.js'

/**
 * The live page's browser script, bundled: a TypeScript module (`browser/main.ts`, type-checked
 * with the DOM library by its own tsconfig, linted like the rest) served as one classic script
 * file, so the page's content security policy allows scripts from the server itself only (no
 * inline script, no eval). From the built package it is the bundle the build wrote
 * (`dist/page/gas-page.js`, found from this module's own chunk up); run from source (tsx,
 * vitest) the source is bundled now with esbuild, the bundler tsup uses, so a test never runs
 * a stale bundle.
 *
 * @throws Error when neither the bundle nor the source (and esbuild) can be found.
 */
export async function loadPageScript(): Promise<string> {
  const here = fileURLToPath(import.meta.url)
  if (here.endsWith('.ts')) return bundleFromSource(join(dirname(here), SOURCE))
  // A built chunk sits in dist/ or one folder below it (dist/cli/main.js).
  let dir = dirname(here)
  for (let up = 0; up < 3; up++) {
    try {
      return await readFile(join(dir, PAGE_SCRIPT_BUNDLE), 'utf8')
    } catch {
      dir = dirname(dir)
    }
  }
  throw new Error(`the live page's script (${PAGE_SCRIPT_BUNDLE}) is missing next to ${here}: run the build`)
}

/** esbuild options of the page bundle, shared with tsup.config.ts so both build the same file. */
export const PAGE_BUNDLE_OPTIONS = { bundle: true, format: 'iife', platform: 'browser', target: 'es2020', charset: 'utf8', legalComments: 'none' } as const

async function bundleFromSource(entry: string): Promise<string> {
  // A development dependency: only source runs reach this line (the built package reads its bundle).
  const esbuild = await import('esbuild')
  const result = await esbuild.build({ ...PAGE_BUNDLE_OPTIONS, entryPoints: [entry], write: false })
  return (result.outputFiles[0] as { text: string }).text
}
