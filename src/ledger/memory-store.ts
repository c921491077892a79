import { loadJsonLines, type LoadOptions } from './read/load.js'
import { MemoryLedger, type MemoryStoreOptions } from './memory/memory-ledger.js'

export type { MemoryStoreOptions } from './memory/memory-ledger.js'

/**
 * The in-memory ledger (`MemoryLedger`), the embedded default, with its loader.
 *
 * @example
 * const store = await MemoryStore.fromJsonLines('data/chain.jsonl')
 * store.transactionJsonByVersion(42) // '{"version":"42",…}'
 */
export class MemoryStore extends MemoryLedger {
  /**
   * A store holding every block of a JSON Lines chain file (`-` is standard input), loaded on
   * the calling thread (`loadJsonLines`): each line is packed straight from its bytes.
   *
   * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
   *   that the store refuses.
   */
  static async fromJsonLines(source: string, options: MemoryStoreOptions & LoadOptions = {}): Promise<MemoryStore> {
    const store = new MemoryStore({ path: source, ...options })
    await loadJsonLines(source, store, options)
    return store
  }
}
