import { regularFileSize } from './read/lines.js'
import { loadJsonLines, type LoadOptions } from './read/load.js'
import { ByteArena } from './memory/byte-arena.js'
import { MemoryLedger, type MemoryStoreOptions } from './memory/memory-ledger.js'
import { PageToucher } from './memory/page-toucher.js'

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
   * the calling thread (`loadJsonLines`): each line is packed straight from its bytes. A regular
   * file of at least one arena chunk (32 MiB) is loaded with a `PageToucher` on two or more
   * cores: a second thread takes the page faults of the arena's fresh chunks ahead of the
   * writer. A smaller file's arena is a few thousand pages at most, not worth a thread's start.
   *
   * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
   *   that the store refuses.
   */
  static async fromJsonLines(source: string, options: MemoryStoreOptions & LoadOptions = {}): Promise<MemoryStore> {
    const store = new MemoryStore({ path: source, ...options })
    const chunk = ByteArena.DEFAULT_CHUNK_BYTES
    const size = await regularFileSize(source)
    const toucher = size >= chunk ? PageToucher.start(chunk) : undefined
    store.useChunkSource(toucher)
    store.expectLoad(size)
    try {
      await loadJsonLines(source, store, options)
    } finally {
      store.expectLoad(-1)
      store.useChunkSource(undefined)
      toucher?.stop()
    }
    return store
  }
}
