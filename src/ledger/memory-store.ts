import { loadJsonLines, type LoadOptions } from './read/load.js'
import { MemoryLedger, columnsOf, type MemoryStoreOptions } from './memory/memory-ledger.js'
import { adoptParts } from './memory/store-parts.js'
import { loadJsonLinesThreaded, type ThreadedLoadOptions } from './threads/load-threads.js'

export type { MemoryStoreOptions } from './memory/memory-ledger.js'

/** How `MemoryStore.fromJsonLines` reads a chain file, besides `LoadOptions`. */
export type MemoryLoadOptions = Pick<ThreadedLoadOptions, 'threads' | 'threadsFromBytes'>

/**
 * The in-memory ledger (`MemoryLedger`), the embedded default, with its loader: the choice
 * between loading a chain file on worker threads and on the calling thread is made here, above
 * both (`loadJsonLinesThreaded`, `loadJsonLines`).
 *
 * @example
 * const store = await MemoryStore.fromJsonLines('data/chain.jsonl')
 * store.transactionJsonByVersion(42) // '{"version":"42",…}'
 */
export class MemoryStore extends MemoryLedger {
  /**
   * A store holding every block of a JSON Lines chain file (`-` is standard input), loaded on
   * the calling thread (`loadJsonLines`). With `options.threads` above 0 (default 0: on 2 cores
   * the threads measured slower), a file of `options.threadsFromBytes` (64 MiB) or more is
   * packed by that many worker threads (`loadJsonLinesThreaded`), which hand over what they
   * packed without a copy; the store and every error are those of a load on the calling thread.
   *
   * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
   *   that the store refuses.
   */
  static async fromJsonLines(source: string, options: MemoryStoreOptions & LoadOptions & MemoryLoadOptions = {}): Promise<MemoryStore> {
    return loadMemoryStore(source, options)
  }
}

/**
 * `MemoryStore.fromJsonLines` with every option of the threaded load, `runner` included: tests
 * load the ranges on the calling thread with it. Not part of the package's API.
 */
export async function loadMemoryStore(source: string, options: MemoryStoreOptions & Omit<ThreadedLoadOptions, 'maxBlockTransactions'> = {}): Promise<MemoryStore> {
  const store = new MemoryStore({ path: source, ...options })
  const threaded = await loadJsonLinesThreaded(source, store, (parts) => adoptParts(store[columnsOf], parts), { ...options, maxBlockTransactions: store.maxBlockTransactions })
  if (!threaded) await loadJsonLines(source, store, options)
  return store
}
