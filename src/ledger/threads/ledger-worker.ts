import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'

/** The worker threads of the ledger layer, each its own module (and its own entry of the build, tsup.config.ts). */
export type LedgerWorkerName = 'scan-worker'

/**
 * A new worker thread running `src/ledger/threads/<name>.ts`: the built `<name>.js` in the package (at
 * `dist/ledger/`), or under tsx and vitest the `.ts` source, loaded through tsx's loader (a
 * worker does not inherit the loader hooks of its parent).
 *
 * @throws Error when the built module is not where the package puts it.
 * @example const w = spawnLedgerWorker('scan-worker')
 */
export function spawnLedgerWorker(name: LedgerWorkerName, workerData?: unknown): Worker {
  const here = import.meta.url
  if (here.endsWith('.ts')) {
    // tsx's ESM API (its CommonJS build resolves its loader wrongly from an eval'd worker).
    const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href
    const source = new URL(`./${name}.ts`, here).href
    return new Worker(`import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}) })`, { eval: true, workerData })
  }
  // The bundle puts shared code in chunks at dist/, entries one level down (dist/ledger/) and the
  // CLI's commands, bundled whole, two levels down (dist/cli/commands/).
  for (const rel of [`./${name}.js`, `./ledger/${name}.js`, `../ledger/${name}.js`, `../../ledger/${name}.js`]) {
    const url = new URL(rel, here)
    if (existsSync(url)) return new Worker(url, { workerData })
  }
  throw new Error(`${name}.js not found next to ${here}`)
}
