import { addU64, u64Distance, type U64 } from '../../core/u64.js'
import { prepareAppend, type PreparedBlock } from '../store/append-rules.js'
import { checkLimitOption, DEFAULT_MAX_BLOCK_TRANSACTIONS } from '../store/limits.js'
import { blockJsonHead, type BatchAppendResult, type BatchAppendStore, type BlockBytes, type LedgerInfo, type TransactionPageBytes } from '../store/store.js'
import { DEFAULT_CHAIN_ID, type StoreOptions } from '../store/store-options.js'
import type { BlockJson, TransactionJson } from '../store/types.js'
import type { ParsedBlock } from '../store/parse-block.js'
import { MemoryColumns, type AccountRecord } from './memory-columns.js'
import { LinePacker } from './pack-line.js'
import type { ChunkSource } from './page-toucher.js'

/** Options of a memory store. */
export interface MemoryStoreOptions extends StoreOptions {
  /** Where the blocks came from, for messages (`BatchAppendStore.path`); default `memory`. */
  path?: string
  /**
   * How many of the newest blocks appended from a chain file's lines the store keeps as its
   * append checks parsed them, for `parsedBlockByHeight` (default `DEFAULT_PARSED_BLOCKS`,
   * 1,000: the span the estimators read by default). About 100 bytes plus 20 per user
   * transaction each.
   */
  parsedBlocks?: number
}

/** Blocks a memory store keeps parsed by default: the estimate feed's default span, the calibrated window (1,000 blocks). */
export const DEFAULT_PARSED_BLOCKS = 1000

/**
 * How many times `parsedBlocks` lines of the load's average length must still follow a line for
 * the load not to keep it parsed (`MemoryLedger.expectLoad`): room for the newest blocks to be
 * that much longer than the average before one of them goes unkept.
 */
const KEEP_MARGIN = 4

/**
 * The in-memory ledger: every read is O(1) apart from writing out the transactions asked for.
 * `MemoryStore` is this store with its file loaders (`memory-store.ts`).
 *
 * Transactions are kept as the JSON text `JSON.stringify` writes of them, packed by
 * `txn-code.ts` (hex as bytes, keys and common values as one byte) into a chunked `ByteArena`,
 * not as objects: a chain takes well under half of its JSON Lines size in memory
 * (docs/benchmarks.md). `transactionJsonByVersion` and `accountTransactionsJson` unpack that
 * text, which is what the API sends, without building objects; `transactionByVersion` and the
 * other object reads parse it, so each answer is a fresh object,
 * `JSON.parse(JSON.stringify(txn))` of the transaction appended. A chain file's line can be
 * appended straight from its bytes (`appendJsonLine`); any line that way does not take is parsed
 * and appended as any block, which words every error.
 *
 * The blocks and transactions sit in `MemoryColumns` (parallel arrays in height/version order);
 * pruning advances a head index, compacts when half the arrays are dead and releases the arena's
 * chunks before the oldest retained transaction.
 *
 * @example
 * const store = new MemoryLedger()
 * store.appendBlock(block)
 * store.transactionJsonByVersion(42) // '{"version":"42",…}'
 */
export class MemoryLedger implements BatchAppendStore {
  readonly chainId: number
  readonly maxBlockTransactions: number
  readonly path: string
  readonly #columns = new MemoryColumns()
  /** Reads chain-file lines and packs transactions for this store. */
  readonly #packer = new LinePacker()
  /**
   * `parseBlockJson` of each of the newest blocks, at its block index (`blockBase` + position)
   * modulo the length; `undefined` for a block appended as an object (`appendBlock`), whose
   * caller may hold a value that `JSON.stringify` writes otherwise than it reads.
   */
  readonly #parsed: (ParsedBlock | undefined)[]
  /**
   * While a load of a file of known size runs (`expectLoad`): its bytes, and the bytes and lines
   * of it appended from lines so far; `#loadBytes` is -1 otherwise.
   */
  #loadBytes = -1
  #loadedBytes = 0
  #loadedLines = 0

  constructor(options: MemoryStoreOptions = {}) {
    this.chainId = options.chainId ?? DEFAULT_CHAIN_ID
    this.maxBlockTransactions = checkLimitOption('maxBlockTransactions', options.maxBlockTransactions ?? DEFAULT_MAX_BLOCK_TRANSACTIONS)
    this.path = options.path ?? 'memory'
    this.#parsed = new Array<ParsedBlock | undefined>(checkLimitOption('parsedBlocks', options.parsedBlocks ?? DEFAULT_PARSED_BLOCKS))
  }

  /** Bytes of the packed transactions in the chunks still held (pruned ones count until their chunk is released), for benchmarks. */
  get packedBytes(): number {
    return this.#columns.arena.retainedBytes
  }

  ledgerInfo(): LedgerInfo | null {
    const c = this.#columns
    const newest = c.heights.length - 1
    const oldest = c.blockHead
    if (newest < oldest) return null
    return {
      chain_id: this.chainId,
      epoch: c.epochs[newest] as U64,
      ledger_version: c.lastVersions[newest] as U64,
      oldest_ledger_version: c.firstVersions[oldest] as U64,
      ledger_timestamp_usec: c.timestamps[newest] as U64,
      block_height: c.heights[newest] as U64,
      oldest_block_height: c.heights[oldest] as U64,
    }
  }

  transactionByVersion(version: U64): TransactionJson | null {
    const json = this.transactionJsonByVersion(version)
    return json === null ? null : (JSON.parse(json) as TransactionJson)
  }

  /** `JSON.stringify(transactionByVersion(version))`, or `null`, written out without building the object. */
  transactionJsonByVersion(version: U64): string | null {
    const t = this.#position(version)
    return t === -1 ? null : this.#columns.json(t)
  }

  /** The UTF-8 bytes of `transactionJsonByVersion(version)`, or `null`, written out without a string in between. */
  transactionBytesByVersion(version: U64): Buffer | null {
    const t = this.#position(version)
    return t === -1 ? null : this.#columns.bytes(t)
  }

  /** Position of the transaction of `version` in the columns' transaction arrays, or -1 when it is not retained. */
  #position(version: U64): number {
    const c = this.#columns
    const oldest = c.firstVersions[c.blockHead]
    if (oldest === undefined) return -1
    const offset = u64Distance(oldest, version)
    return offset >= 0 && offset < c.txnCount - c.txnHead ? c.txnHead + offset : -1
  }

  accountTransactions(address: string, start: U64, limit: number): TransactionJson[] {
    return this.accountTransactionsJson(address, start, limit).map((json) => JSON.parse(json) as TransactionJson)
  }

  /** `accountTransactions(…)` with each transaction as `JSON.stringify` writes it, written out without building objects. */
  accountTransactionsJson(address: string, start: U64, limit: number): string[] {
    const c = this.#columns
    const page: string[] = []
    const span = this.#pageSpan(address, start, limit)
    if (span === null) return page
    const { txns, begin, end } = span
    for (let i = begin; i < end; i++) page.push(c.json((typeof txns === 'number' ? txns : (txns[i] as number)) - c.txnBase))
    return page
  }

  /**
   * `accountTransactionsJson(…)` as the UTF-8 bytes of the JSON array the API sends, written out
   * in one buffer without a string in between (`LedgerStore.accountTransactionsBytes`).
   */
  accountTransactionsBytes(address: string, start: U64, limit: number): TransactionPageBytes {
    const c = this.#columns
    const span = this.#pageSpan(address, start, limit)
    if (span === null) return { body: Buffer.from('[]'), count: 0, firstSequenceNumber: null }
    const { txns, begin, end, account } = span
    c.pageStart()
    for (let i = begin; i < end; i++) c.pageAdd((typeof txns === 'number' ? txns : (txns[i] as number)) - c.txnBase)
    // The account's list holds sequence number `firstSeq + i` at `i` (AccountRecord's invariant).
    return { body: c.pageEnd(), count: end - begin, firstSequenceNumber: addU64(account.firstSeq, begin) as U64 }
  }

  /**
   * Tells the store that nothing reads `body` (an `accountTransactionsBytes` or
   * `blockBytesByHeight` answer) any more, so its buffer may be written again for a later page
   * (`LedgerStore.releaseBytes`); anything else is ignored.
   */
  releaseBytes(body: Uint8Array): void {
    if (Buffer.isBuffer(body)) this.#columns.pageRelease(body)
  }

  /** Where the page `[start, start + limit)` of `address` lies in its list (`AccountRecord`), or `null` when it is empty. */
  #pageSpan(address: string, start: U64, limit: number): { account: AccountRecord; txns: number[] | number; begin: number; end: number } | null {
    const account = this.#columns.accounts.get(address)
    if (account === undefined) return null
    const txns = account.txns
    const count = typeof txns === 'number' ? 1 : txns.length
    const from = u64Distance(account.firstSeq, start)
    const begin = Math.max(from, account.head)
    const end = Math.min(from + limit, count)
    return begin < end ? { account, txns, begin, end } : null
  }

  accountSequenceNumber(address: string): U64 {
    return this.#columns.accounts.get(address)?.next ?? 0
  }

  blockByHeight(height: U64, withTransactions: boolean): BlockJson | null {
    const i = this.#blockIndex(height)
    if (i === -1) return null
    const header = this.#header(i)
    // The node omits `transactions` when with_transactions=false; BlockJson types it as required.
    if (!withTransactions) return header as BlockJson
    const c = this.#columns
    const transactions: TransactionJson[] = []
    for (let t = this.#firstTxn(i), end = t + this.#txnsOf(i); t < end; t++) transactions.push(JSON.parse(c.json(t)) as TransactionJson)
    return { ...header, transactions }
  }

  /**
   * `LedgerStore.blockBytesByHeight`: the block's header and its transactions' texts written as
   * UTF-8 into one buffer, as the account pages are (`accountTransactionsBytes`), with no object
   * built; a body with transactions may be given back (`releaseBytes`). O(bytes).
   */
  blockBytesByHeight(height: U64, withTransactions: boolean): BlockBytes | null {
    const i = this.#blockIndex(height)
    if (i === -1) return null
    const c = this.#columns
    const firstVersion = c.firstVersions[i] as U64
    const lastVersion = c.lastVersions[i] as U64
    const head = blockJsonHead(this.#header(i))
    if (!withTransactions) return { body: Buffer.from(`${head}null}`), firstVersion, lastVersion, count: 0 }
    const count = this.#txnsOf(i)
    c.pageStart(head)
    for (let t = this.#firstTxn(i), end = t + count; t < end; t++) c.pageAdd(t)
    return { body: c.pageEnd('}'), firstVersion, lastVersion, count }
  }

  /** Position of the block at `height` in the columns' block arrays, or -1 when it is not retained. */
  #blockIndex(height: U64): number {
    const c = this.#columns
    const oldest = c.heights[c.blockHead]
    if (oldest === undefined) return -1
    const offset = u64Distance(oldest, height)
    return offset >= 0 && offset < c.heights.length - c.blockHead ? c.blockHead + offset : -1
  }

  /** The block at position `i` without its transactions, as the node writes it. */
  #header(i: number): Omit<BlockJson, 'transactions'> {
    const c = this.#columns
    return {
      block_height: String(c.heights[i]),
      block_hash: c.hashOf(i),
      block_timestamp: String(c.timestamps[i]),
      first_version: String(c.firstVersions[i]),
      last_version: String(c.lastVersions[i]),
    }
  }

  /** Position of the first transaction of the block at position `i` in the transaction arrays. */
  #firstTxn(i: number): number {
    const c = this.#columns
    return c.txnHead + u64Distance(c.firstVersions[c.blockHead] as U64, c.firstVersions[i] as U64)
  }

  /** Transactions of the block at position `i`. */
  #txnsOf(i: number): number {
    const c = this.#columns
    return u64Distance(c.firstVersions[i] as U64, c.lastVersions[i] as U64) + 1
  }

  /**
   * `parseBlockJson(blockByHeight(height, true))`, kept from the checks of the block's append,
   * when the block is retained, among the newest `parsedBlocks` and was appended from a chain
   * file's line (`appendJsonLine`); else `undefined`. The same object each call: read it only.
   * O(1).
   */
  parsedBlockByHeight(height: U64): ParsedBlock | undefined {
    const c = this.#columns
    const oldest = c.heights[c.blockHead]
    if (oldest === undefined) return undefined
    const offset = u64Distance(oldest, height)
    const newest = c.heights.length - 1 - c.blockHead
    if (!(offset >= 0 && offset <= newest && newest - offset < this.#parsed.length)) return undefined
    return this.#parsed[(c.blockBase + c.blockHead + offset) % this.#parsed.length]
  }

  /** Keeps `parsed` (or forgets the slot, for `undefined`) as the block just committed. */
  #keepParsed(parsed: ParsedBlock | undefined): void {
    const c = this.#columns
    this.#parsed[(c.blockBase + c.heights.length - 1) % this.#parsed.length] = parsed
  }

  /**
   * Appends the next block after checking every append rule (see `prepareAppend`); nothing
   * changes when it throws. The transactions are kept as `JSON.stringify` writes them, so one
   * that it cannot write (a bigint) refuses the block.
   */
  appendBlock(block: BlockJson): void {
    const prepared = this.#prepare(block)
    // Every record is made before anything is written, so a throw leaves the store as it was.
    const records = prepared.transactions.map((txn) => Buffer.from(this.#packer.txn.packText(JSON.stringify(txn))))
    const ends: number[] = []
    let end = 0
    for (const r of records) ends.push((end += r.length))
    this.#columns.commit(prepared, Buffer.concat(records), 0, ends)
    this.#keepParsed(undefined)
  }

  /**
   * Appends `blocks` in order as `appendBlock` does one by one, stopping at the first it
   * refuses, whose error is returned (`BatchAppendStore`). Readers are synchronous, so they see
   * the batch's blocks all at once.
   */
  appendBlocks(blocks: readonly BlockJson[]): BatchAppendResult {
    for (let i = 0; i < blocks.length; i++) {
      try {
        this.appendBlock(blocks[i] as BlockJson)
      } catch (refused) {
        return { appended: i, refused }
      }
    }
    return { appended: blocks.length }
  }

  /**
   * Appends the block of one line of a chain file (UTF-8 bytes, no newline) if it can be read
   * without parsing (`LinePacker.pack`) and passes every append rule; returns `false`, with nothing
   * changed, when it cannot or does not, and the caller parses the line and calls `appendBlock`,
   * which appends it or throws the error worded for it. What a chain file is loaded with.
   */
  appendJsonLine(line: Buffer): boolean {
    // Every line given counts towards where a load is (`expectLoad`), whether it is appended here or not.
    this.#loadedBytes += line.length + 1
    this.#loadedLines++
    // The records go straight into the arena's chunk, past what is committed (the records are
    // never longer than the line), so they are not copied a second time; a refused line leaves
    // them uncommitted. The room is made first, in a fresh chunk when the line may not fit the
    // one being filled: a block's records are then always written the one way, and the load's
    // compiled code never meets a chunk's end as a case of its own. Only a line longer than a
    // chunk goes to a scratch buffer, and `commit` copies its records.
    const arena = this.#columns.arena
    if (line.length <= arena.chunkBytes) arena.reserve(line.length)
    const read = arena.offset + line.length <= arena.chunk.length ? this.#packer.pack(line, arena.chunk, arena.offset) : this.#packer.pack(line)
    if (read === undefined) return false
    let prepared: PreparedBlock
    try {
      prepared = this.#prepare(read.skeleton)
    } catch {
      return false
    }
    this.#columns.commit(prepared, read.packed, read.start, read.ends)
    // The law of `LinePacker.pack`: the skeleton parses as the line does, so as `blockByHeight` answers.
    this.#keepParsed(this.#mayBeNewest() ? prepared.parsed : undefined)
    return true
  }

  /**
   * Tells the store that the lines it is about to be given are those of a file of `bytes` bytes
   * (`-1`: the load is over, or its size is unknown), so that it keeps parsed (`parsedBlockByHeight`)
   * only the lines that may be among the newest `parsedBlocks`. A parsed block kept lives on
   * through many collections of the young generation and is copied by each, and the
   * survivors make V8 grow that generation onto fresh pages, each a page fault; a load keeping
   * every block parsed pays that for blocks that are dropped as soon as `parsedBlocks` more come.
   * @internal the loaders' (`MemoryStore.fromJsonLines`).
   */
  expectLoad(bytes: number): void {
    this.#loadBytes = bytes
    this.#loadedBytes = 0
    this.#loadedLines = 0
  }

  /**
   * Whether the line just appended may be among the newest `parsedBlocks` of
   * the load: always when no load of known size runs; else unless the bytes still to come hold
   * `KEEP_MARGIN` times `parsedBlocks` lines of the average length so far. A guess, not a rule:
   * a block it leaves unkept that turns out to be among the newest is parsed from its JSON by
   * whoever asks (`parsedBlockByHeight` answers `undefined`), to the same answer.
   */
  #mayBeNewest(): boolean {
    if (this.#loadBytes < 0) return true
    const average = this.#loadedBytes / this.#loadedLines
    return this.#loadBytes - this.#loadedBytes < KEEP_MARGIN * this.#parsed.length * average
  }

  /**
   * Takes the arena's new chunks from `source` (a load's `PageToucher`), or again allocates them
   * itself (`undefined`).
   * @internal the loaders' (`MemoryStore.fromJsonLines`).
   */
  useChunkSource(source: ChunkSource | undefined): void {
    this.#columns.arena.source = source
  }

  #prepare(block: BlockJson): PreparedBlock {
    this.#columns.forgetLookups()
    return prepareAppend(block, this.#columns.tip(), this.#nextOf, this.maxBlockTransactions)
  }

  /** An account's next sequence number, or `undefined` for one not seen (`MemoryColumns.nextOf`): made once, not per block. */
  readonly #nextOf = (address: string): U64 | undefined => this.#columns.nextOf(address)

  /**
   * Drops whole blocks whose `last_version` is below `version`, oldest first. The newest block is
   * always kept, so the ledger info and the continuity rule survive any prune. O(pruned txns).
   */
  pruneBelow(version: U64): void {
    this.#columns.pruneBelow(version)
  }

  close(): void {}
}
