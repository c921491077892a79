import { addU64, u64Distance, type U64 } from '../../core/u64.js'
import type { LedgerTip, PreparedBlock } from '../store/append-rules.js'
import { ByteArena } from './byte-arena.js'
import { TxnUnpacker } from './txn-unpack.js'

/**
 * An account's sequence-number transactions, by the index of each in the store's transaction
 * list (`MemoryColumns.json`). Invariant: `txns[i]` has sequence number `firstSeq + i`, and
 * `txns[0..head)` have been pruned. An account with one transaction holds the bare index (most
 * senders of a chain file send once or twice, and an array costs ten times the number).
 */
export interface AccountRecord {
  txns: number[] | number
  /** Position in `MemoryColumns.accountList` (what `txnAccount` holds). */
  id: number
  head: number
  firstSeq: U64
  next: U64
}

/** Below this many dead slots at the front, a list is not compacted (keeps pruning amortised O(1)). */
const COMPACT_MIN = 1024

/** The value of a lowercase hex digit's char code, else -1. */
function hexDigit(c: number): number {
  return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
}

/**
 * What a memory store holds, as parallel arrays in height/version order: a height or version is
 * an offset from the oldest retained one. Blocks and transactions before `blockHead`/`txnHead`
 * are pruned (dead until compacted); `blockBase`/`txnBase` count what compaction dropped, so
 * indices survive it. The store (`MemoryLedger`) checks every rule before it calls `commit`.
 */
export class MemoryColumns {
  heights: U64[] = []
  firstVersions: U64[] = []
  lastVersions: U64[] = []
  timestamps: U64[] = []
  epochs: U64[] = []
  /**
   * 32 bytes per block of each canonical hash; `oddHashes` holds the others by block index.
   * Starts at a few blocks, so that it first grows (a rare path) while a load's first blocks
   * still run unoptimised: grown first once `commit` is compiled, it would throw that code away.
   */
  hashBytes = Buffer.alloc(32 * 16)
  oddHashes = new Map<number, string>()
  /** Block index of `heights[0]` since the store began. */
  blockBase = 0
  blockHead = 0
  /** Transactions: address and length of each packed text in the arena, and its account (for pruning). */
  arena = new ByteArena()
  // Typed columns grown by doubling, `txnCount` of them used: a JS array grown by push copies
  // itself about three times over and is rescanned by the collector.
  txnAddress = new Float64Array(1024)
  txnLength = new Uint32Array(1024)
  /** `id` of the transaction's account (`accountList`), or -1. */
  txnAccount = new Int32Array(1024)
  /** Transactions in the columns (pruned ones before `txnHead` included). */
  txnCount = 0
  /** Every account by its `id`. */
  accountList: AccountRecord[] = []
  /** Index of `txnAddress[0]` since the store began. */
  txnBase = 0
  txnHead = 0
  accounts = new Map<string, AccountRecord>()
  /** Decodes the records for `json`. */
  readonly #unpacker = new TxnUnpacker()
  /**
   * What `nextOf` found since `forgetLookups`, in call order: the address asked and its record
   * (`undefined`: none then), `#lookups` of them. `commit` takes a sender's record from here
   * rather than looking it up a second time in the account map, whose lookups are a load's
   * largest cost after reading the bytes.
   */
  readonly #lookedUp: (AccountRecord | undefined)[] = []
  readonly #lookedUpAddress: string[] = []
  #lookups = 0

  /** The newest block's height and last version, or `null` while nothing is retained. */
  tip(): LedgerTip | null {
    const newest = this.heights.length - 1
    return newest < this.blockHead ? null : { block_height: this.heights[newest] as U64, last_version: this.lastVersions[newest] as U64 }
  }

  /** The next sequence number of the account at `address`, or `undefined` for one not seen; kept for `commit`. */
  nextOf(address: string): U64 | undefined {
    const account = this.accounts.get(address)
    const k = this.#lookups++
    this.#lookedUp[k] = account
    this.#lookedUpAddress[k] = address
    return account?.next
  }

  /** Drops what `nextOf` found: a block's lookups start afresh, whether the block before was committed or refused. */
  forgetLookups(): void {
    this.#lookups = 0
  }

  /**
   * Writes a prepared block whose transactions' records lie back to back in `packed` from
   * `start`, record `i` ending at `ends[i]`; only pushes and copies, so nothing can throw
   * half-way. Records already in place in the arena's chunk (`packed` is the chunk, `start` its
   * write position) are committed without a copy.
   */
  commit(prepared: PreparedBlock, packed: Buffer, start: number, ends: readonly number[]): void {
    const { parsed } = prepared
    const index = this.blockBase + this.heights.length
    this.heights.push(parsed.block_height)
    this.firstVersions.push(parsed.first_version)
    this.lastVersions.push(parsed.last_version)
    this.timestamps.push(prepared.block_timestamp)
    this.epochs.push(parsed.epoch)
    this.putHash(index, prepared.block_hash)
    const arena = this.arena
    const firstTxn = this.txnBase + this.txnCount
    const count = prepared.transactions.length
    this.#growTxns(this.txnCount + count)
    const addresses = this.txnAddress
    const lengths = this.txnLength
    const accountOf = this.txnAccount
    let t = this.txnCount
    const total = count === 0 ? 0 : (ends[count - 1] as number) - start
    if (arena.offset + total <= arena.chunk.length) {
      // The common case: the block fits the chunk being filled, so it is there already or one copy writes it.
      const base = arena.reserve(total) - start
      if (packed !== arena.chunk || start !== arena.offset) packed.copy(arena.chunk, arena.offset, start, start + total)
      arena.commit(arena.offset + total)
      for (let i = 0; i < count; i++) {
        const s = i === 0 ? start : (ends[i - 1] as number)
        addresses[t] = base + s
        lengths[t] = (ends[i] as number) - s
        accountOf[t++] = -1
      }
    } else {
      for (let i = 0; i < count; i++) {
        const s = i === 0 ? start : (ends[i - 1] as number)
        const n = (ends[i] as number) - s
        const address = arena.reserve(n)
        packed.copy(arena.chunk, arena.offset, s, s + n)
        arena.commit(arena.offset + n)
        addresses[t] = address
        lengths[t] = n
        accountOf[t++] = -1
      }
    }
    this.txnCount = t
    const nexts = prepared.nextSequenceNumbers
    const lookedUp = this.#lookedUp
    const lookedUpAddress = this.#lookedUpAddress
    // The append rules ask `nextOf` for each sender's first transaction in the block, in block
    // order, so walking the entries meets those lookups in the same order. A record found stays
    // the account's record (none is ever replaced), so it is used as it is; a sender met without
    // its lookup, or looked up before it had a record, is looked up here.
    let k = 0
    for (const e of prepared.entries) {
      const txn = firstTxn + e.index
      let account: AccountRecord | undefined
      if (k < this.#lookups && lookedUpAddress[k] === e.address) account = lookedUp[k++] ?? this.accounts.get(e.address)
      else account = this.accounts.get(e.address)
      if (account === undefined) {
        account = { txns: txn, id: this.accountList.length, head: 0, firstSeq: e.sequence_number, next: 0 }
        this.accounts.set(e.address, account)
        this.accountList.push(account)
      } else if (typeof account.txns === 'number') account.txns = [account.txns, txn]
      else account.txns.push(txn)
      accountOf[txn - this.txnBase] = account.id
      // The sender's next sequence number after the block, set through the record in hand
      // rather than looked up again per sender in the (large) account map.
      account.next = nexts.get(e.address) as U64
    }
    this.#lookups = 0
  }

  /** Makes room in the transaction columns for `count` transactions, doubling them. */
  #growTxns(count: number): void {
    if (count <= this.txnAddress.length) return
    const size = Math.max(this.txnAddress.length * 2, count)
    const addresses = new Float64Array(size)
    addresses.set(this.txnAddress.subarray(0, this.txnCount))
    this.txnAddress = addresses
    const lengths = new Uint32Array(size)
    lengths.set(this.txnLength.subarray(0, this.txnCount))
    this.txnLength = lengths
    const accounts = new Int32Array(size)
    accounts.set(this.txnAccount.subarray(0, this.txnCount))
    this.txnAccount = accounts
  }

  /** The JSON text of the transaction at position `t` of the transaction arrays. */
  json(t: number): string {
    const address = this.txnAddress[t] as number
    const start = address % this.arena.chunkBytes
    return this.#unpacker.json(this.arena.chunkOf(address), start, start + (this.txnLength[t] as number))
  }

  /** The UTF-8 bytes of `json(t)`, in a buffer of their own. */
  bytes(t: number): Buffer {
    const address = this.txnAddress[t] as number
    const start = address % this.arena.chunkBytes
    return this.#unpacker.bytes(this.arena.chunkOf(address), start, start + (this.txnLength[t] as number))
  }

  /** Starts a JSON array of transactions' texts as UTF-8 bytes, after `head` (`pageAdd`, `pageEnd`; see `TxnUnpacker.pageStart`). */
  pageStart(head?: string): void {
    this.#unpacker.pageStart(head)
  }

  /** Adds `json(t)` to the page begun by `pageStart`. */
  pageAdd(t: number): void {
    const address = this.txnAddress[t] as number
    const start = address % this.arena.chunkBytes
    this.#unpacker.pageAdd(this.arena.chunkOf(address), start, start + (this.txnLength[t] as number))
  }

  /** The page begun by `pageStart`, closed by `]` and `tail`, in a buffer handed over (see `TxnUnpacker.pageEnd`). */
  pageEnd(tail?: string): Buffer {
    return this.#unpacker.pageEnd(tail)
  }

  /** Gives back a page `pageEnd` returned once nothing reads it any more (`TxnUnpacker.release`). */
  pageRelease(page: Buffer): void {
    this.#unpacker.release(page)
  }

  /** Makes room in `hashBytes` for the hashes of blocks up to position `blocks` (exclusive). */
  growHashes(blocks: number): void {
    const end = blocks * 32
    if (end <= this.hashBytes.length) return
    const grown = Buffer.alloc(Math.max(this.hashBytes.length * 2, end))
    this.hashBytes.copy(grown)
    this.hashBytes = grown
  }

  putHash(index: number, hash: string): void {
    const at = (index - this.blockBase) * 32
    this.growHashes(index - this.blockBase + 1)
    if (!this.#writeHash(hash, at)) this.oddHashes.set(index, hash)
  }

  /**
   * Writes a block hash that is `0x` + 64 lowercase hex digits as 32 bytes at `hashBytes[at]`
   * and returns true; false for any other hash (bytes written before a bad digit are left, and
   * `hashOf` reads such a block's hash from `oddHashes`). Decoded here rather than by a RegExp
   * and `Buffer.write` of a sliced string, once per block of a load.
   */
  #writeHash(hash: string, at: number): boolean {
    if (hash.length !== 66 || hash.charCodeAt(0) !== 48 || hash.charCodeAt(1) !== 120) return false
    const bytes = this.hashBytes
    for (let i = 0; i < 32; i++) {
      const hi = hexDigit(hash.charCodeAt(2 + 2 * i))
      const lo = hexDigit(hash.charCodeAt(3 + 2 * i))
      if ((hi | lo) < 0) return false
      bytes[at + i] = (hi << 4) | lo
    }
    return true
  }

  hashOf(i: number): string {
    return this.oddHashes.get(this.blockBase + i) ?? `0x${this.hashBytes.toString('hex', i * 32, i * 32 + 32)}`
  }

  /**
   * Drops whole blocks whose `last_version` is below `version`, oldest first. The newest block is
   * always kept, so the ledger info and the continuity rule survive any prune. O(pruned txns).
   */
  pruneBelow(version: U64): void {
    const last = this.heights.length - 1
    while (this.blockHead < last) {
      const i = this.blockHead
      if (!((this.lastVersions[i] as U64) < version)) break
      const count = u64Distance(this.firstVersions[i] as U64, this.lastVersions[i] as U64) + 1
      for (let k = 0; k < count; k++) {
        const id = this.txnAccount[this.txnHead + k] as number
        if (id < 0) continue
        const account = this.accountList[id] as AccountRecord
        // Accounts' lists are in version order, so the pruned txn is the front of its list.
        account.head++
        if (typeof account.txns !== 'number' && account.head >= COMPACT_MIN && account.head * 2 > account.txns.length) {
          account.txns.splice(0, account.head)
          account.firstSeq = addU64(account.firstSeq, account.head) as U64
          account.head = 0
        }
      }
      this.oddHashes.delete(this.blockBase + i)
      this.txnHead += count
      this.blockHead++
    }
    if (this.txnHead < this.txnCount) this.arena.releaseBefore(this.txnAddress[this.txnHead] as number)
    if (this.blockHead >= COMPACT_MIN && this.blockHead * 2 > this.heights.length) {
      const dead = this.blockHead
      for (const list of [this.heights, this.firstVersions, this.lastVersions, this.timestamps, this.epochs]) list.splice(0, dead)
      this.hashBytes.copy(this.hashBytes, 0, dead * 32, this.heights.length * 32 + dead * 32)
      this.blockBase += dead
      this.blockHead = 0
    }
    if (this.txnHead >= COMPACT_MIN && this.txnHead * 2 > this.txnCount) {
      const dead = this.txnHead
      this.txnAddress.copyWithin(0, dead, this.txnCount)
      this.txnLength.copyWithin(0, dead, this.txnCount)
      this.txnAccount.copyWithin(0, dead, this.txnCount)
      this.txnCount -= dead
      this.txnBase += dead
      this.txnHead = 0
    }
  }
}
