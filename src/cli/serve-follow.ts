import type { Readiness } from '../api/plumbing/readiness.js'
import { NodeUnavailableError } from '../follow/errors.js'
import { formatFollowEvent } from '../follow/events.js'
import { ingestFromNode } from '../follow/ingest-node.js'
import { sleep } from '../follow/sleep.js'
import { LedgerUnavailableError } from '../ledger/store/database-error.js'
import { MemoryStore, type MemoryStoreOptions } from '../ledger/memory-store.js'
import { UsageError } from './errors.js'
import { openFollowerStore, type OpenedLedger } from './open-store.js'

/** How long `serve --follow` waits before following again after the node or the database was unreachable. */
const REFOLLOW_MS = 5000

/**
 * The ledger of `serve --follow URL`: the `--db` ledger opened for writing (this process is its
 * one writer), or a memory store (empty, or loaded from `--data`), fed from the node. Its
 * `watch` starts following and reports each new height; a node that stays unreachable through
 * the retries, or a database that cannot be reached, is followed again after a pause, any other failure (a pruned next block, a chain
 * that does not continue the ledger) stops following with a line on the log, and the server
 * goes on serving what it has. `load` holds the options of the `--data` load.
 * `readiness` hears how following goes (the health check's 503 and the error count): waiting
 * while a ledger that started empty has no block, failed at each retry and each stop, progressed
 * at each append.
 */
export async function openFollowing(node: string, db: string | undefined, data: string | undefined, intervalMs: number, log: (line: string) => void, load: MemoryStoreOptions = {}, readiness?: Readiness): Promise<OpenedLedger> {
  let protocol: string | undefined
  try {
    protocol = new URL(node).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new UsageError(`--follow must be an http(s) URL of the node's API, /v1 included, got '${node}'`)
  const { store, source } = await openFollowerStore(db, async () => (data === undefined ? new MemoryStore() : await MemoryStore.fromJsonLines(data, load)))
  if (readiness !== undefined && (await store.ledgerInfo()) === null) readiness.waiting(`following ${node}: no block from the node yet`)
  return {
    store,
    source: `${source}, following ${node}`,
    watch: (onHeight) => {
      const controller = new AbortController()
      const run = (async () => {
        while (!controller.signal.aborted) {
          try {
            await ingestFromNode({
              url: node,
              store,
              signal: controller.signal,
              intervalMs,
              onAppend: (height) => {
                readiness?.progressed()
                onHeight(height)
              },
              onRetry: (e) => {
                readiness?.failed(`following ${node}: ${formatFollowEvent(e)}`)
                log(formatFollowEvent(e))
              },
              outage: { onOutage: (e) => log(`${e.error.message}; retry ${e.attempt} in ${e.delayMs} ms`), onRecovered: (n) => log(`ledger reachable again after ${n} ${n === 1 ? 'retry' : 'retries'}`) },
            })
          } catch (error) {
            readiness?.failed(`following ${node}: ${(error as Error).message}`)
            log(`following ${node}: ${(error as Error).message}`)
            if (!(error instanceof NodeUnavailableError || error instanceof LedgerUnavailableError)) return
            await sleep(REFOLLOW_MS, controller.signal).catch(() => {})
          }
        }
      })()
      return async () => {
        controller.abort()
        await run
      }
    },
  }
}
