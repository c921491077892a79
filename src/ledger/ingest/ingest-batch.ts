import type { U64 } from '../../core/u64.js'
import type { AccountEntry, CheckedBlock } from '../store/append-rules.js'
import type { ParsedBlock } from '../store/parse-block.js'
import type { IngestBlock } from '../store/store.js'

/**
 * Ingest blocks as a scanning worker hands them to the main thread (`scan-threads.ts`,
 * `ingestJsonLines`): every transaction's JSON back to back in one buffer, transferred without
 * copying, and per block only what a store's `appendChecked` and the ingest read (heights,
 * versions, epoch, hash, timestamp, transaction count, the account entries), cloned.
 */
export interface IngestBatch {
  count: number
  /** The line of each block, counted from the first line of the worker's byte range (1-based). */
  lines: Int32Array
  heads: IngestHead[]
  /** Per transaction of the batch, in order: where its JSON ends in `bytes` (the first starts at 0). */
  ends: Int32Array
  bytes: Uint8Array
}

/** A block's part of `CheckedBlock` that crosses the thread: not its transactions, only their count. */
interface IngestHead {
  block_height: U64
  epoch: U64
  first_version: U64
  last_version: U64
  block_hash: string
  block_timestamp: U64
  txns: number
  entries: AccountEntry[]
}

/**
 * Collects ingest blocks into an `IngestBatch`. The transaction JSON is copied once, into a
 * buffer of the batch's own that `take` hands over whole (transferred, not copied again); the
 * next batch starts in a new one of `capacity` bytes.
 */
export class IngestBatchWriter {
  private lines: number[] = []
  private heads: IngestHead[] = []
  /** `ends[0, txns)` is the batch's part; it grows by doubling. */
  private ends = new Int32Array(1024)
  private txns = 0
  private readonly capacity: number
  private bytes: Uint8Array
  private size = 0

  /** `capacity`: bytes a batch is expected to reach (it grows past them as needed). */
  constructor(capacity = 1 << 20) {
    this.capacity = capacity
    this.bytes = freshBytes(capacity)
  }

  get count(): number {
    return this.lines.length
  }

  /** Bytes of transaction JSON held so far: a batch is sent before it grows large. */
  get byteLength(): number {
    return this.size
  }

  add(line: number, block: IngestBlock): void {
    const { checked, transactionJson } = block
    const { parsed } = checked
    this.lines.push(line)
    this.heads.push({
      block_height: parsed.block_height,
      epoch: parsed.epoch,
      first_version: parsed.first_version,
      last_version: parsed.last_version,
      block_hash: checked.block_hash,
      block_timestamp: checked.block_timestamp,
      txns: transactionJson.length,
      entries: checked.entries,
    })
    let need = this.size
    for (const json of transactionJson) need += json.length
    if (need > this.bytes.length) {
      const grown = freshBytes(Math.max(2 * this.bytes.length, need))
      grown.set(this.bytes.subarray(0, this.size))
      this.bytes = grown
    }
    if (this.txns + transactionJson.length > this.ends.length) {
      const grown = new Int32Array(Math.max(2 * this.ends.length, this.txns + transactionJson.length))
      grown.set(this.ends.subarray(0, this.txns))
      this.ends = grown
    }
    for (const json of transactionJson) {
      this.bytes.set(json, this.size)
      this.size += json.length
      this.ends[this.txns++] = this.size
    }
  }

  /** The batch so far, and the buffers to transfer with it; the writer starts empty again. */
  take(): { batch: IngestBatch; transfer: ArrayBuffer[] } {
    const bytes = this.bytes.subarray(0, this.size)
    const batch: IngestBatch = { count: this.lines.length, lines: Int32Array.from(this.lines), heads: this.heads, ends: this.ends.slice(0, this.txns), bytes }
    this.lines = []
    this.heads = []
    this.txns = 0
    this.bytes = freshBytes(this.capacity)
    this.size = 0
    return { batch, transfer: [batch.lines.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer, bytes.buffer as ArrayBuffer] }
  }
}

/**
 * A batch's own buffer, not zero-filled (every byte of it that is sent was written first) and
 * never a slice of Node's shared pool, since it is transferred whole.
 */
function freshBytes(size: number): Uint8Array {
  return Buffer.allocUnsafeSlow(size)
}

/**
 * The ingest blocks of a batch, in order: each as `appendChecked` and `ingestJsonLines` read it.
 * Its `checked.parsed` holds the heights, versions and epoch only, and `checked.transactions`
 * only has the right length: a store writes `transactionJson`, whose entries are views of the
 * batch's buffer.
 */
export function ingestBlocksOfBatch(batch: IngestBatch): IngestBlock[] {
  const out: IngestBlock[] = new Array<IngestBlock>(batch.count)
  const { ends, bytes } = batch
  let t = 0
  let start = 0
  for (let i = 0; i < batch.count; i++) {
    const h = batch.heads[i] as IngestHead
    const transactionJson: Uint8Array[] = new Array<Uint8Array>(h.txns)
    for (let k = 0; k < h.txns; k++, t++) {
      const end = ends[t] as number
      transactionJson[k] = bytes.subarray(start, end)
      start = end
    }
    const parsed = { block_height: h.block_height, epoch: h.epoch, first_version: h.first_version, last_version: h.last_version } as ParsedBlock
    const checked: CheckedBlock = { parsed, block_hash: h.block_hash, block_timestamp: h.block_timestamp, transactions: new Array(h.txns), entries: h.entries }
    out[i] = { checked, transactionJson }
  }
  return out
}
