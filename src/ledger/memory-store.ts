import { addU64, u64Distance, type U64 } from '../core/u64.js'
import { checkContinuity, prepareAppend, type LedgerTip, type PreparedBlock } from './store/append-rules.js'
import { ByteArena } from './memory/byte-arena.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from './store/limits.js'
import type { LoadOptions } from './read/load.js'
import { loadJsonLinesThreaded, type ThreadedLoadOptions } from './threads/load-threads.js'
import { packBlockLine } from './memory/pack-line.js'
import type { LedgerInfo, LedgerStore } from './store/store.js'
import type { StoreParts } from './memory/store-parts.js'
import { packText } from './memory/txn-pack.js'
import { unpackJson } from './memory/txn-unpack.js'
import type { BlockJson, TransactionJson } from './store/types.js'

/** Options of a ledger store. */
export interface StoreOptions {
  /** Chain id reported in the ledger info; default 4 (the id of a local testnet). */
  chainId?: number
  /** Most transactions a block may carry to be appended (default `DEFAULT_MAX_BLOCK_TRANSACTIONS`, 20,000). */
  maxBlockTransactions?: number
}

/** How `MemoryStore.fromJsonLines` reads a chain file, besides `LoadOptions`. */
export type MemoryLoadOptions = Pick<ThreadedLoadOptions, 'threads' | 'threadsFromBytes'>

/** Default chain id: 4, what a local Aptos testnet reports. */
export const DEFAULT_CHAIN_ID = 4

/**
 * An account's sequence-number transactions, by the index of each in the store's transaction
 * list (`#txnAt`). Invariant: `txns[i]` has sequence number `firstSeq + i`, and `txns[0..head)`
 * have been pruned. An account with one transaction holds the bare index (most senders of a
 * chain file send once or twice, and an array costs ten times the number).
 */
interface AccountRecord {
  txns: number[] | number
  head: number
  firstSeq: U64
  next: U64
}

/** Below this many dead slots at the front, a list is not compacted (keeps pruning amortised O(1)). */
const COMPACT_MIN = 1024

/** `0x` + 64 lowercase hex digits: a block hash kept as 32 bytes. */
const CANONICAL_HASH = /^0x[0-9a-f]{64}$/

// For the threaded load, set by the class's static block (only the class reads its private fields).
let partsOf: (store: MemoryStore) => StoreParts
let adoptInto: (store: MemoryStore, parts: StoreParts) => boolean

/**
 * The in-memory ledger: the embedded default, loaded from JSON Lines. Every read is O(1) apart
 * from writing out the transactions asked for.
 *
 * Transactions are kept as the JSON text `JSON.stringify` writes of them, packed by
 * `txn-code.ts` (hex as bytes, keys and common values as one byte) into a chunked `ByteArena`,
 * not as objects: a chain takes well under half of its JSON Lines size in memory (README,
 * Benchmarks). `transactionJsonByVersion` and `accountTransactionsJson` unpack that text, which
 * is what the API sends, without building objects; `transactionByVersion` and the other object
 * reads parse it, so each answer is a fresh object, `JSON.parse(JSON.stringify(txn))` of the
 * transaction appended. A chain file loaded by `fromJsonLines` has each line's transactions
 * packed straight from its bytes (`appendJsonLine`); any line that way does not take is parsed
 * and appended as any block, which words every error. A large file is packed by worker threads,
 * each a byte range into a store of its own, and the store adopts their chunks and indices
 * (`#adopt`) instead of allocating the load's short-lived objects on its own thread.
 *
 * Blocks and transactions sit in parallel arrays in height/version order, so a height or version
 * is an offset from the oldest retained one; pruning advances a head index, compacts when half
 * the arrays are dead and releases the arena's chunks before the oldest retained transaction.
 *
 * @example
 * const store = await MemoryStore.fromJsonLines('data/chain.jsonl')
 * store.transactionJsonByVersion(42) // '{"version":"42",…}'
 */
export class MemoryStore implements LedgerStore {
  readonly chainId: number
  readonly maxBlockTransactions: number
  // Blocks, one entry per retained block from #blockHead on (older entries are dead until compacted).
  #heights: U64[] = []
  #firstVersions: U64[] = []
  #lastVersions: U64[] = []
  #timestamps: U64[] = []
  #epochs: U64[] = []
  /** 32 bytes per block of each canonical hash; `#oddHashes` holds the others by block index. */
  #hashBytes = Buffer.alloc(32 * 1024)
  #oddHashes = new Map<number, string>()
  /** Block index of `#heights[0]` since the store began, so indices survive compaction. */
  #blockBase = 0
  #blockHead = 0
  // Transactions: address and length of each packed text in the arena, and its account (for pruning).
  #arena = new ByteArena()
  #txnAddress: number[] = []
  #txnLength: number[] = []
  #txnAccount: (AccountRecord | null)[] = []
  /** Index of `#txnAddress[0]` since the store began. */
  #txnBase = 0
  #txnHead = 0
  #accounts = new Map<string, AccountRecord>()

  constructor(options: StoreOptions = {}) {
    this.chainId = options.chainId ?? DEFAULT_CHAIN_ID
    this.maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
  }

  static {
    partsOf = (store) => store.#parts()
    adoptInto = (store, parts) => store.#adopt(parts)
  }

  /**
   * A store holding every block of a JSON Lines chain file (`-` is standard input). A file of
   * `options.threadsFromBytes` (64 MiB) or more is packed by `options.threads` worker threads
   * (default 2; `loadJsonLinesThreaded`), which hand over what they packed without a copy; the
   * store and every error are those of a load on the calling thread (`loadJsonLines`).
   *
   * @throws InvalidDataError naming file, line and field for the first line that is not JSON or
   *   that the store refuses.
   */
  static async fromJsonLines(source: string, options: StoreOptions & LoadOptions & MemoryLoadOptions = {}): Promise<MemoryStore> {
    return loadMemoryStore(source, options)
  }

  /** Bytes of the packed transactions in the chunks still held (pruned ones count until their chunk is released), for benchmarks. */
  get packedBytes(): number {
    return this.#arena.retainedBytes
  }

  ledgerInfo(): LedgerInfo | null {
    const newest = this.#heights.length - 1
    const oldest = this.#blockHead
    if (newest < oldest) return null
    return {
      chain_id: this.chainId,
      epoch: this.#epochs[newest] as U64,
      ledger_version: this.#lastVersions[newest] as U64,
      oldest_ledger_version: this.#firstVersions[oldest] as U64,
      ledger_timestamp_usec: this.#timestamps[newest] as U64,
      block_height: this.#heights[newest] as U64,
      oldest_block_height: this.#heights[oldest] as U64,
    }
  }

  transactionByVersion(version: U64): TransactionJson | null {
    const json = this.transactionJsonByVersion(version)
    return json === null ? null : (JSON.parse(json) as TransactionJson)
  }

  /** `JSON.stringify(transactionByVersion(version))`, or `null`, written out without building the object. */
  transactionJsonByVersion(version: U64): string | null {
    const oldest = this.#firstVersions[this.#blockHead]
    if (oldest === undefined) return null
    const offset = u64Distance(oldest, version)
    if (!(offset >= 0 && offset < this.#txnAddress.length - this.#txnHead)) return null
    return this.#json(this.#txnHead + offset)
  }

  accountTransactions(address: string, start: U64, limit: number): TransactionJson[] {
    return this.accountTransactionsJson(address, start, limit).map((json) => JSON.parse(json) as TransactionJson)
  }

  /** `accountTransactions(…)` with each transaction as `JSON.stringify` writes it, written out without building objects. */
  accountTransactionsJson(address: string, start: U64, limit: number): string[] {
    const account = this.#accounts.get(address)
    if (account === undefined) return []
    const txns = account.txns
    const count = typeof txns === 'number' ? 1 : txns.length
    const from = u64Distance(account.firstSeq, start)
    const begin = Math.max(from, account.head)
    const end = Math.min(from + limit, count)
    const page: string[] = []
    for (let i = begin; i < end; i++) page.push(this.#json((typeof txns === 'number' ? txns : (txns[i] as number)) - this.#txnBase))
    return page
  }

  accountSequenceNumber(address: string): U64 {
    return this.#accounts.get(address)?.next ?? 0
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    const oldest = this.#heights[this.#blockHead]
    if (oldest === undefined) return null
    const offset = u64Distance(oldest, height)
    if (!(offset >= 0 && offset < this.#heights.length - this.#blockHead)) return null
    const i = this.#blockHead + offset
    const first = this.#firstVersions[i] as U64
    const last = this.#lastVersions[i] as U64
    const header = {
      block_height: String(this.#heights[i]),
      block_hash: this.#hashOf(i),
      block_timestamp: String(this.#timestamps[i]),
      first_version: String(first),
      last_version: String(last),
    }
    // The node omits `transactions` when with_transactions=false; BlockJson types it as required.
    if (!withTransactions) return header as BlockJson
    const begin = this.#txnHead + u64Distance(this.#firstVersions[this.#blockHead] as U64, first)
    const transactions: TransactionJson[] = []
    for (let t = begin, n = u64Distance(first, last); t <= begin + n; t++) transactions.push(JSON.parse(this.#json(t)) as TransactionJson)
    return { ...header, transactions }
  }

  /**
   * Appends the next block after checking every append rule (see `prepareAppend`); nothing
   * changes when it throws. The transactions are kept as `JSON.stringify` writes them, so one
   * that it cannot write (a bigint) refuses the block.
   */
  appendBlock(block: BlockJson): void {
    const prepared = this.#prepare(block)
    // Every record is made before anything is written, so a throw leaves the store as it was.
    const records = prepared.transactions.map((txn) => Buffer.from(packText(JSON.stringify(txn))))
    const ends: number[] = []
    let end = 0
    for (const r of records) ends.push((end += r.length))
    this.#commit(prepared, Buffer.concat(records), 0, ends)
  }

  /**
   * Appends the block of one line of a chain file (UTF-8 bytes, no newline) if it can be read
   * without parsing (`packBlockLine`) and passes every append rule; returns `false`, with nothing
   * changed, when it cannot or does not, and the caller parses the line and calls `appendBlock`,
   * which appends it or throws the error worded for it. What `fromJsonLines` loads a file with.
   */
  appendJsonLine(line: Buffer): boolean {
    // The records go straight into the arena's chunk, past what is committed, when the line fits
    // its room (the records are never longer than the line), so they are not copied a second
    // time; a refused line leaves them uncommitted. Else into a scratch buffer, and `#commit`
    // copies them.
    const arena = this.#arena
    let read
    if (arena.offset + line.length <= arena.chunk.length) {
      read = packBlockLine(line, arena.chunk, arena.offset)
    } else read = packBlockLine(line)
    if (read === undefined) return false
    let prepared: PreparedBlock
    try {
      prepared = this.#prepare(read.skeleton)
    } catch {
      return false
    }
    this.#commit(prepared, read.packed, read.start, read.ends)
    return true
  }

  #prepare(block: BlockJson): PreparedBlock {
    const newest = this.#heights.length - 1
    const tip: LedgerTip | null =
      newest < this.#blockHead ? null : { block_height: this.#heights[newest] as U64, last_version: this.#lastVersions[newest] as U64 }
    return prepareAppend(block, tip, (address) => this.#accounts.get(address)?.next, this.maxBlockTransactions)
  }

  /**
   * Writes a prepared block whose transactions' records lie back to back in `packed` from
   * `start`, record `i` ending at `ends[i]`; only pushes and copies, so nothing can throw
   * half-way. Records already in place in the arena's chunk (`packed` is the chunk, `start` its
   * write position) are committed without a copy.
   */
  #commit(prepared: PreparedBlock, packed: Buffer, start: number, ends: readonly number[]): void {
    const { parsed } = prepared
    const index = this.#blockBase + this.#heights.length
    this.#heights.push(parsed.block_height)
    this.#firstVersions.push(parsed.first_version)
    this.#lastVersions.push(parsed.last_version)
    this.#timestamps.push(prepared.block_timestamp)
    this.#epochs.push(parsed.epoch)
    this.#putHash(index, prepared.block_hash)
    const arena = this.#arena
    const firstTxn = this.#txnBase + this.#txnAddress.length
    const count = prepared.transactions.length
    const total = count === 0 ? 0 : (ends[count - 1] as number) - start
    if (arena.offset + total <= arena.chunk.length) {
      // The common case: the block fits the chunk being filled, so it is there already or one copy writes it.
      const base = arena.reserve(total) - start
      if (packed !== arena.chunk || start !== arena.offset) packed.copy(arena.chunk, arena.offset, start, start + total)
      arena.commit(arena.offset + total)
      for (let i = 0; i < count; i++) {
        const s = i === 0 ? start : (ends[i - 1] as number)
        this.#txnAddress.push(base + s)
        this.#txnLength.push((ends[i] as number) - s)
        this.#txnAccount.push(null)
      }
    } else {
      for (let i = 0; i < count; i++) {
        const s = i === 0 ? start : (ends[i - 1] as number)
        const n = (ends[i] as number) - s
        const address = arena.reserve(n)
        packed.copy(arena.chunk, arena.offset, s, s + n)
        arena.commit(arena.offset + n)
        this.#txnAddress.push(address)
        this.#txnLength.push(n)
        this.#txnAccount.push(null)
      }
    }
    for (const e of prepared.entries) {
      const txn = firstTxn + e.index
      let account = this.#accounts.get(e.address)
      if (account === undefined) {
        account = { txns: txn, head: 0, firstSeq: e.sequence_number, next: 0 }
        this.#accounts.set(e.address, account)
      } else if (typeof account.txns === 'number') account.txns = [account.txns, txn]
      else account.txns.push(txn)
      this.#txnAccount[txn - this.#txnBase] = account
    }
    for (const [address, next] of prepared.nextSequenceNumbers) (this.#accounts.get(address) as AccountRecord).next = next
  }

  /**
   * Everything the store holds as `StoreParts`, what a load worker posts: the arena's chunks as
   * they are (transferred, so the store is not to be used after) and the rest copied into typed
   * arrays. Only for a store nothing was pruned from.
   */
  #parts(): StoreParts {
    if (this.#blockBase !== 0 || this.#blockHead !== 0 || this.#txnBase !== 0 || this.#txnHead !== 0) throw new Error('MemoryStore: parts of a pruned store')
    const { chunks, written } = this.#arena.written()
    const blocks = this.#heights.length
    const hashBytes = new Uint8Array(32 * blocks)
    hashBytes.set(this.#hashBytes.subarray(0, 32 * blocks))
    let listed = 0
    for (const account of this.#accounts.values()) listed += typeof account.txns === 'number' ? 1 : account.txns.length
    const addresses: string[] = []
    const firstSeqs: U64[] = []
    const nexts: U64[] = []
    const accountEnds = new Uint32Array(this.#accounts.size)
    const accountTxns = new Uint32Array(listed)
    let k = 0
    for (const [address, account] of this.#accounts) {
      addresses.push(address)
      firstSeqs.push(account.firstSeq)
      nexts.push(account.next)
      if (typeof account.txns === 'number') accountTxns[k++] = account.txns
      else for (const t of account.txns) accountTxns[k++] = t
      accountEnds[addresses.length - 1] = k
    }
    return {
      chunkBytes: this.#arena.chunkBytes,
      // A chunk is a buffer of its own (`ByteArena.reserve`), so its ArrayBuffer is exactly its bytes.
      chunks: chunks.map((c) => (c.byteOffset === 0 && c.buffer.byteLength === c.length ? c.buffer : new Uint8Array(c).buffer) as ArrayBuffer),
      written,
      heights: this.#heights,
      firstVersions: this.#firstVersions,
      lastVersions: this.#lastVersions,
      timestamps: this.#timestamps,
      epochs: this.#epochs,
      hashBytes,
      oddHashes: [...this.#oddHashes],
      txnAddress: Float64Array.from(this.#txnAddress),
      txnLength: Uint32Array.from(this.#txnLength),
      addresses,
      firstSeqs,
      nexts,
      accountEnds,
      accountTxns,
    }
  }

  /**
   * Appends the blocks of `parts` (another store's, `#parts`) after this store's newest, if the
   * rules that join them hold: continuity of the parts' first block with the newest
   * (`checkContinuity`), and each sender's first sequence number in the parts equal to its next
   * here (`checkSequenceNumbers`'s rule). Every other rule the parts' store checked as it
   * appended them, and those rules read nothing before the block, so the result is the store
   * appending the same blocks one by one would build. Returns false, with nothing changed, when
   * a joining rule fails. Only pushes and copies after the checks.
   */
  #adopt(parts: StoreParts): boolean {
    const blocks = parts.heights.length
    if (blocks === 0) return true
    if (parts.chunkBytes !== this.#arena.chunkBytes) throw new Error(`MemoryStore: parts of ${parts.chunkBytes}-byte chunks into ${this.#arena.chunkBytes}-byte ones`)
    const newest = this.#heights.length - 1
    if (newest >= this.#blockHead) {
      const tip: LedgerTip = { block_height: this.#heights[newest] as U64, last_version: this.#lastVersions[newest] as U64 }
      try {
        checkContinuity({ block_height: parts.heights[0] as U64, first_version: parts.firstVersions[0] as U64, last_version: parts.lastVersions[0] as U64 }, tip)
      } catch {
        return false
      }
    }
    for (let a = 0; a < parts.addresses.length; a++) {
      const account = this.#accounts.get(parts.addresses[a] as string)
      if (account !== undefined && account.next !== parts.firstSeqs[a]) return false
    }

    const firstBlock = this.#heights.length
    for (let i = 0; i < blocks; i++) {
      this.#heights.push(parts.heights[i] as U64)
      this.#firstVersions.push(parts.firstVersions[i] as U64)
      this.#lastVersions.push(parts.lastVersions[i] as U64)
      this.#timestamps.push(parts.timestamps[i] as U64)
      this.#epochs.push(parts.epochs[i] as U64)
    }
    const hashesEnd = (firstBlock + blocks) * 32
    if (hashesEnd > this.#hashBytes.length) {
      const grown = Buffer.alloc(Math.max(this.#hashBytes.length * 2, hashesEnd))
      this.#hashBytes.copy(grown)
      this.#hashBytes = grown
    }
    this.#hashBytes.set(parts.hashBytes, firstBlock * 32)
    for (const [i, hash] of parts.oddHashes) this.#oddHashes.set(this.#blockBase + firstBlock + i, hash)

    const base = this.#arena.adopt(
      parts.chunks.map((c) => Buffer.from(c)),
      parts.written,
    )
    const firstTxn = this.#txnBase + this.#txnAddress.length
    for (let t = 0; t < parts.txnAddress.length; t++) {
      this.#txnAddress.push(base + (parts.txnAddress[t] as number))
      this.#txnLength.push(parts.txnLength[t] as number)
      this.#txnAccount.push(null)
    }
    let k = 0
    for (let a = 0; a < parts.addresses.length; a++) {
      const address = parts.addresses[a] as string
      const end = parts.accountEnds[a] as number
      let account = this.#accounts.get(address)
      if (account === undefined) {
        const first = firstTxn + (parts.accountTxns[k] as number)
        account = { txns: first, head: 0, firstSeq: parts.firstSeqs[a] as U64, next: 0 }
        this.#accounts.set(address, account)
        this.#txnAccount[first - this.#txnBase] = account
        k++
      }
      if (k < end) {
        let list = account.txns
        if (typeof list === 'number') list = account.txns = [list]
        for (; k < end; k++) {
          const txn = firstTxn + (parts.accountTxns[k] as number)
          list.push(txn)
          this.#txnAccount[txn - this.#txnBase] = account
        }
      }
      account.next = parts.nexts[a] as U64
    }
    return true
  }

  /** The JSON text of the transaction at position `t` of the transaction arrays. */
  #json(t: number): string {
    const address = this.#txnAddress[t] as number
    const start = address % this.#arena.chunkBytes
    return unpackJson(this.#arena.chunkOf(address), start, start + (this.#txnLength[t] as number))
  }

  #putHash(index: number, hash: string): void {
    const at = (index - this.#blockBase) * 32
    if (at + 32 > this.#hashBytes.length) {
      const grown = Buffer.alloc(Math.max(this.#hashBytes.length * 2, at + 32))
      this.#hashBytes.copy(grown)
      this.#hashBytes = grown
    }
    if (CANONICAL_HASH.test(hash)) this.#hashBytes.write(hash.slice(2), at, 'hex')
    else this.#oddHashes.set(index, hash)
  }

  #hashOf(i: number): string {
    return this.#oddHashes.get(this.#blockBase + i) ?? `0x${this.#hashBytes.toString('hex', i * 32, i * 32 + 32)}`
  }

  /**
   * Drops whole blocks whose `last_version` is below `version`, oldest first. The newest block is
   * always kept, so the ledger info and the continuity rule survive any prune. O(pruned txns).
   */
  pruneBelow(version: U64): void {
    const last = this.#heights.length - 1
    while (this.#blockHead < last) {
      const i = this.#blockHead
      if (!((this.#lastVersions[i] as U64) < version)) break
      const count = u64Distance(this.#firstVersions[i] as U64, this.#lastVersions[i] as U64) + 1
      for (let k = 0; k < count; k++) {
        const account = this.#txnAccount[this.#txnHead + k]
        if (account === null || account === undefined) continue
        // Accounts' lists are in version order, so the pruned txn is the front of its list.
        account.head++
        if (typeof account.txns !== 'number' && account.head >= COMPACT_MIN && account.head * 2 > account.txns.length) {
          account.txns.splice(0, account.head)
          account.firstSeq = addU64(account.firstSeq, account.head) as U64
          account.head = 0
        }
      }
      this.#oddHashes.delete(this.#blockBase + i)
      this.#txnHead += count
      this.#blockHead++
    }
    const kept = this.#txnAddress[this.#txnHead]
    if (kept !== undefined) this.#arena.releaseBefore(kept)
    if (this.#blockHead >= COMPACT_MIN && this.#blockHead * 2 > this.#heights.length) {
      const dead = this.#blockHead
      for (const list of [this.#heights, this.#firstVersions, this.#lastVersions, this.#timestamps, this.#epochs]) list.splice(0, dead)
      this.#hashBytes.copy(this.#hashBytes, 0, dead * 32, this.#heights.length * 32 + dead * 32)
      this.#blockBase += dead
      this.#blockHead = 0
    }
    if (this.#txnHead >= COMPACT_MIN && this.#txnHead * 2 > this.#txnAddress.length) {
      const dead = this.#txnHead
      this.#txnAddress.splice(0, dead)
      this.#txnLength.splice(0, dead)
      this.#txnAccount.splice(0, dead)
      this.#txnBase += dead
      this.#txnHead = 0
    }
  }

  close(): void {}
}

/**
 * `MemoryStore.fromJsonLines` with every option of the threaded load, `runner` included: tests
 * load the ranges on the calling thread with it. Not part of the package's API.
 */
export async function loadMemoryStore(source: string, options: StoreOptions & Omit<ThreadedLoadOptions, 'maxBlockTransactions'> = {}): Promise<MemoryStore> {
  const store = new MemoryStore(options)
  await loadJsonLinesThreaded(source, store, (parts) => adoptInto(store, parts), { ...options, maxBlockTransactions: store.maxBlockTransactions })
  return store
}

/**
 * Internal to the threaded load (`load-range.ts`): everything `store` holds as `StoreParts`,
 * its arena's chunks included, so `store` is not to be used after they are transferred. Not part
 * of the package's API.
 */
export function memoryStoreParts(store: MemoryStore): StoreParts {
  return partsOf(store)
}
