import type { U64 } from '../../core/u64.js'
import { checkContinuity, type LedgerTip } from '../store/append-rules.js'
import type { MemoryColumns } from './memory-columns.js'

/**
 * Everything a memory store holds, in the form a load worker hands to the thread that adopts
 * it (`load-worker.ts` → `load-threads.ts`): the arena's chunks and the indices as typed arrays
 * are transferred, not copied; the block columns and the accounts' keys are small beside them
 * and go by structured clone. Indices of blocks and transactions count from the parts' first.
 */
export interface StoreParts {
  /** Chunk size of the arena the records were written to; addresses are `chunk · chunkBytes + offset`. */
  chunkBytes: number
  /** The arena's chunks in order, and the bytes written to each. */
  chunks: ArrayBuffer[]
  written: number[]
  heights: U64[]
  firstVersions: U64[]
  lastVersions: U64[]
  timestamps: U64[]
  epochs: U64[]
  /** 32 bytes per block of each canonical block hash; the others are in `oddHashes` by block index. */
  hashBytes: Uint8Array
  oddHashes: [number, string][]
  /** Per transaction: address and length of its packed record in the chunks. */
  txnAddress: Float64Array
  txnLength: Uint32Array
  /** Per account (canonical address): the sequence number of its first transaction here, and its next after the last. */
  addresses: string[]
  firstSeqs: U64[]
  nexts: U64[]
  /** Account `a`'s transactions (indices, in version order) are `accountTxns[accountEnds[a - 1] (0 for the first) .. accountEnds[a])`. */
  accountEnds: Uint32Array
  accountTxns: Uint32Array
}

/** The buffers of `parts` that `postMessage` moves instead of copying. */
export function partsTransfer(parts: StoreParts): ArrayBuffer[] {
  return [...parts.chunks, ...[parts.hashBytes, parts.txnAddress, parts.txnLength, parts.accountEnds, parts.accountTxns].map((a) => a.buffer as ArrayBuffer)]
}

/**
 * Everything `columns` hold as `StoreParts`, what a load worker posts: the arena's chunks as
 * they are (transferred, so the columns are not to be used after) and the rest copied into typed
 * arrays. Only for columns nothing was pruned from.
 */
export function partsOf(columns: MemoryColumns): StoreParts {
  const c = columns
  if (c.blockBase !== 0 || c.blockHead !== 0 || c.txnBase !== 0 || c.txnHead !== 0) throw new Error('MemoryStore: parts of a pruned store')
  const { chunks, written } = c.arena.written()
  const blocks = c.heights.length
  const hashBytes = new Uint8Array(32 * blocks)
  hashBytes.set(c.hashBytes.subarray(0, 32 * blocks))
  let listed = 0
  for (const account of c.accounts.values()) listed += typeof account.txns === 'number' ? 1 : account.txns.length
  const addresses: string[] = []
  const firstSeqs: U64[] = []
  const nexts: U64[] = []
  const accountEnds = new Uint32Array(c.accounts.size)
  const accountTxns = new Uint32Array(listed)
  let k = 0
  for (const [address, account] of c.accounts) {
    addresses.push(address)
    firstSeqs.push(account.firstSeq)
    nexts.push(account.next)
    if (typeof account.txns === 'number') accountTxns[k++] = account.txns
    else for (const t of account.txns) accountTxns[k++] = t
    accountEnds[addresses.length - 1] = k
  }
  return {
    chunkBytes: c.arena.chunkBytes,
    // A chunk is a buffer of its own (`ByteArena.reserve`), so its ArrayBuffer is exactly its bytes.
    chunks: chunks.map((b) => (b.byteOffset === 0 && b.buffer.byteLength === b.length ? b.buffer : new Uint8Array(b).buffer) as ArrayBuffer),
    written,
    heights: c.heights,
    firstVersions: c.firstVersions,
    lastVersions: c.lastVersions,
    timestamps: c.timestamps,
    epochs: c.epochs,
    hashBytes,
    oddHashes: [...c.oddHashes],
    txnAddress: Float64Array.from(c.txnAddress),
    txnLength: Uint32Array.from(c.txnLength),
    addresses,
    firstSeqs,
    nexts,
    accountEnds,
    accountTxns,
  }
}

/**
 * Appends the blocks of `parts` (another store's, `partsOf`) after the newest of `columns`, if
 * the rules that join them hold: continuity of the parts' first block with the newest
 * (`checkContinuity`), and each sender's first sequence number in the parts equal to its next
 * here (`checkSequenceNumbers`'s rule). Every other rule the parts' store checked as it
 * appended them, and those rules read nothing before the block, so the result is the store
 * appending the same blocks one by one would build. Returns false, with nothing changed, when
 * a joining rule fails. Only pushes and copies after the checks.
 */
export function adoptParts(columns: MemoryColumns, parts: StoreParts): boolean {
  const c = columns
  const blocks = parts.heights.length
  if (blocks === 0) return true
  if (parts.chunkBytes !== c.arena.chunkBytes) throw new Error(`MemoryStore: parts of ${parts.chunkBytes}-byte chunks into ${c.arena.chunkBytes}-byte ones`)
  const tip: LedgerTip | null = c.tip()
  if (tip !== null) {
    try {
      checkContinuity({ block_height: parts.heights[0] as U64, first_version: parts.firstVersions[0] as U64, last_version: parts.lastVersions[0] as U64 }, tip)
    } catch {
      return false
    }
  }
  for (let a = 0; a < parts.addresses.length; a++) {
    const account = c.accounts.get(parts.addresses[a] as string)
    if (account !== undefined && account.next !== parts.firstSeqs[a]) return false
  }

  const firstBlock = c.heights.length
  for (let i = 0; i < blocks; i++) {
    c.heights.push(parts.heights[i] as U64)
    c.firstVersions.push(parts.firstVersions[i] as U64)
    c.lastVersions.push(parts.lastVersions[i] as U64)
    c.timestamps.push(parts.timestamps[i] as U64)
    c.epochs.push(parts.epochs[i] as U64)
  }
  c.growHashes(firstBlock + blocks)
  c.hashBytes.set(parts.hashBytes, firstBlock * 32)
  for (const [i, hash] of parts.oddHashes) c.oddHashes.set(c.blockBase + firstBlock + i, hash)

  const base = c.arena.adopt(
    parts.chunks.map((b) => Buffer.from(b)),
    parts.written,
  )
  const firstTxn = c.txnBase + c.txnAddress.length
  for (let t = 0; t < parts.txnAddress.length; t++) {
    c.txnAddress.push(base + (parts.txnAddress[t] as number))
    c.txnLength.push(parts.txnLength[t] as number)
    c.txnAccount.push(null)
  }
  let k = 0
  for (let a = 0; a < parts.addresses.length; a++) {
    const address = parts.addresses[a] as string
    const end = parts.accountEnds[a] as number
    let account = c.accounts.get(address)
    if (account === undefined) {
      const first = firstTxn + (parts.accountTxns[k] as number)
      account = { txns: first, head: 0, firstSeq: parts.firstSeqs[a] as U64, next: 0 }
      c.accounts.set(address, account)
      c.txnAccount[first - c.txnBase] = account
      k++
    }
    if (k < end) {
      let list = account.txns
      if (typeof list === 'number') list = account.txns = [list]
      for (; k < end; k++) {
        const txn = firstTxn + (parts.accountTxns[k] as number)
        list.push(txn)
        c.txnAccount[txn - c.txnBase] = account
      }
    }
    account.next = parts.nexts[a] as U64
  }
  return true
}
