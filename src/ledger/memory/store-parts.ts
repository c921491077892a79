import type { U64 } from '../../core/u64.js'

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
