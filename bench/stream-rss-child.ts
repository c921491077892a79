/**
 * The memory side of bench/stream.ts: ingests the whole stream at `<url>` into a fresh SQLite
 * ledger whose writer is made slower than the stream (each commit waits `<delayMs>`), sampling
 * this process's RSS every 20 ms; sends `{ baseline_rss, peak_rss, blocks }` over IPC and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ingestFromStream } from '../src/follow/stream/ingest-stream.js'
import { SqliteStore } from '../src/ledger/sqlite/sqlite-store.js'
import type { IngestBlock } from '../src/ledger/store/store.js'
import type { BlockJson } from '../src/ledger/store/types.js'

const [url, lastVersion, delayArg] = process.argv.slice(2) as [string, string, string]
const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-bench-rss-'))
const store = SqliteStore.open(join(dir, 'rss.db'), { chainId: 4 })
const delay = Number(delayArg)
const slow = new Proxy(store, {
  get: (target, key) => {
    // Either commit method: the ingest hands a store with appendChecked its checked blocks.
    if (key === 'appendBlocks') return async (b: readonly BlockJson[]) => (await new Promise((r) => setTimeout(r, delay)), target.appendBlocks(b))
    if (key === 'appendChecked') return async (b: readonly IngestBlock[]) => (await new Promise((r) => setTimeout(r, delay)), target.appendChecked(b))
    const v = Reflect.get(target, key, target) as unknown
    return typeof v === 'function' ? v.bind(target) : v
  },
})
global.gc?.()
const baseline = process.memoryUsage().rss
let peak = baseline
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
const summary = await ingestFromStream({ endpoint: url, store: slow, startingVersion: 1, toVersion: lastVersion, batchSize: 100 })
clearInterval(timer)
peak = Math.max(peak, process.memoryUsage().rss)
store.close()
rmSync(dir, { recursive: true, force: true })
process.send?.({ baseline_rss: baseline, peak_rss: peak, blocks: summary.appended })
process.disconnect?.()
