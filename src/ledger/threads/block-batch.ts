import type { BlockInput } from '../../core/block.js'
import type { U64 } from '../../core/u64.js'
import type { ParsedBlock } from '../store/parse-block.js'

/**
 * Blocks in the compact form a scanning worker hands to the main thread (`scan-threads.ts`):
 * typed arrays, transferred without copying, instead of an object graph per block that
 * `postMessage` would serialise. A u64 is a double when it is a safe integer; a bigint one is
 * NaN there and sits in the matching `wide` list. Blocks of another shape (compact summaries)
 * travel as they are in `others`.
 */
export interface BlockBatch {
  count: number
  /** The line of each block, counted from the first line of the worker's byte range (1-based). */
  lines: Int32Array
  /** Per block: block_height, epoch, first_version, last_version. */
  u64s: Float64Array
  /** Per block: the end of its user transactions in `prices`, `used` and `contracts`. */
  txnEnds: Int32Array
  prices: Float64Array
  used: Float64Array
  /** Index into `names`, or -1 for `null`. */
  contracts: Int32Array
  names: string[]
  /** Per block: 0 for no `block_end_info`, else 1 | block_gas_limit_reached << 1 | block_output_limit_reached << 2. */
  endInfo: Uint8Array
  /** Bigint u64s: position in the array named, and value. */
  wide: { array: 'u64s' | 'prices' | 'used'; at: number; value: bigint }[]
  /** Blocks not in `parseBlockJson`'s shape, by index, as they are. */
  others: { index: number; block: BlockInput }[]
}

/** The keys of `parseBlockJson`'s result, in its order: a block with exactly these is packed. */
const PARSED_KEYS = ['block_height', 'epoch', 'first_version', 'last_version', 'gas_unit_prices', 'gas_used', 'contract_addresses', 'block_end_info']

function isU64(v: unknown): v is U64 {
  return typeof v === 'number' || typeof v === 'bigint'
}

/** Whether `block` has exactly `parseBlockJson`'s shape, so that `unpackBlock` rebuilds it equal. */
function isParsedBlock(block: BlockInput): block is ParsedBlock {
  const keys = Object.keys(block)
  if (keys.length !== PARSED_KEYS.length || keys.some((k, i) => k !== PARSED_KEYS[i])) return false
  const b = block as ParsedBlock
  if (!isU64(b.block_height) || !isU64(b.epoch) || !isU64(b.first_version) || !isU64(b.last_version)) return false
  const n = b.gas_unit_prices.length
  if (!Array.isArray(b.gas_unit_prices) || !Array.isArray(b.gas_used) || !Array.isArray(b.contract_addresses) || b.gas_used.length !== n || b.contract_addresses.length !== n) return false
  for (let i = 0; i < n; i++) {
    const c = b.contract_addresses[i]
    if (!isU64(b.gas_unit_prices[i]) || !isU64(b.gas_used[i]) || !(c === null || typeof c === 'string')) return false
  }
  const info = b.block_end_info
  if (info === null) return true
  const infoKeys = Object.keys(info)
  return infoKeys.length === 2 && infoKeys[0] === 'block_gas_limit_reached' && infoKeys[1] === 'block_output_limit_reached' && typeof info.block_gas_limit_reached === 'boolean' && typeof info.block_output_limit_reached === 'boolean'
}

/** Collects blocks into a `BlockBatch`. */
export class BlockBatchWriter {
  private lines: number[] = []
  private u64s: number[] = []
  private txnEnds: number[] = []
  private prices: number[] = []
  private used: number[] = []
  private contracts: number[] = []
  private names: string[] = []
  private nameIds = new Map<string, number>()
  private endInfo: number[] = []
  private wide: BlockBatch['wide'] = []
  private others: BlockBatch['others'] = []

  get count(): number {
    return this.lines.length
  }

  /** User transactions held so far: a batch is sent before it grows large. */
  get txns(): number {
    return this.prices.length
  }

  add(line: number, block: BlockInput): void {
    const index = this.lines.length
    this.lines.push(line)
    if (!isParsedBlock(block)) {
      this.others.push({ index, block })
      this.u64s.push(0, 0, 0, 0)
      this.txnEnds.push(this.prices.length)
      this.endInfo.push(0)
      return
    }
    this.put('u64s', this.u64s, block.block_height)
    this.put('u64s', this.u64s, block.epoch)
    this.put('u64s', this.u64s, block.first_version)
    this.put('u64s', this.u64s, block.last_version)
    for (let i = 0; i < block.gas_unit_prices.length; i++) {
      this.put('prices', this.prices, block.gas_unit_prices[i] as U64)
      this.put('used', this.used, block.gas_used[i] as U64)
      const c = block.contract_addresses[i] as string | null
      let id = -1
      if (c !== null) {
        id = this.nameIds.get(c) ?? -1
        if (id < 0) {
          id = this.names.length
          this.names.push(c)
          this.nameIds.set(c, id)
        }
      }
      this.contracts.push(id)
    }
    this.txnEnds.push(this.prices.length)
    const info = block.block_end_info
    this.endInfo.push(info === null ? 0 : 1 | (info.block_gas_limit_reached ? 2 : 0) | (info.block_output_limit_reached ? 4 : 0))
  }

  private put(array: BlockBatch['wide'][number]['array'], to: number[], v: U64): void {
    if (typeof v === 'number') to.push(v)
    else {
      this.wide.push({ array, at: to.length, value: v })
      to.push(Number.NaN)
    }
  }

  /** The batch so far, and the buffers to transfer with it; the writer starts empty again. */
  take(): { batch: BlockBatch; transfer: ArrayBuffer[] } {
    const batch: BlockBatch = {
      count: this.lines.length,
      lines: Int32Array.from(this.lines),
      u64s: Float64Array.from(this.u64s),
      txnEnds: Int32Array.from(this.txnEnds),
      prices: Float64Array.from(this.prices),
      used: Float64Array.from(this.used),
      contracts: Int32Array.from(this.contracts),
      names: this.names,
      endInfo: Uint8Array.from(this.endInfo),
      wide: this.wide,
      others: this.others,
    }
    this.lines = []
    this.u64s = []
    this.txnEnds = []
    this.prices = []
    this.used = []
    this.contracts = []
    this.names = []
    this.nameIds = new Map()
    this.endInfo = []
    this.wide = []
    this.others = []
    const transfer = [batch.lines, batch.u64s, batch.txnEnds, batch.prices, batch.used, batch.contracts, batch.endInfo].map((a) => a.buffer as ArrayBuffer)
    return { batch, transfer }
  }
}

/** Reads the blocks of a batch back, each equal to the block that was added. */
export class BlockBatchReader {
  private readonly batch: BlockBatch
  private readonly wide: Map<string, bigint> | undefined
  private readonly others: Map<number, BlockInput> | undefined

  constructor(batch: BlockBatch) {
    this.batch = batch
    this.wide = batch.wide.length === 0 ? undefined : new Map(batch.wide.map((w) => [`${w.array}:${w.at}`, w.value]))
    this.others = batch.others.length === 0 ? undefined : new Map(batch.others.map((o) => [o.index, o.block]))
  }

  private u64(array: 'u64s' | 'prices' | 'used', values: Float64Array, at: number): U64 {
    const v = values[at] as number
    return v === v ? v : (this.wide?.get(`${array}:${at}`) as bigint)
  }

  /** Block `i` of the batch. */
  block(i: number): BlockInput {
    const other = this.others?.get(i)
    if (other !== undefined) return other
    const b = this.batch
    const from = i === 0 ? 0 : (b.txnEnds[i - 1] as number)
    const to = b.txnEnds[i] as number
    const gas_unit_prices: U64[] = []
    const gas_used: U64[] = []
    const contract_addresses: (string | null)[] = []
    for (let t = from; t < to; t++) {
      gas_unit_prices.push(this.u64('prices', b.prices, t))
      gas_used.push(this.u64('used', b.used, t))
      const c = b.contracts[t] as number
      contract_addresses.push(c < 0 ? null : (b.names[c] as string))
    }
    const info = b.endInfo[i] as number
    const block: ParsedBlock = {
      block_height: this.u64('u64s', b.u64s, 4 * i),
      epoch: this.u64('u64s', b.u64s, 4 * i + 1),
      first_version: this.u64('u64s', b.u64s, 4 * i + 2),
      last_version: this.u64('u64s', b.u64s, 4 * i + 3),
      gas_unit_prices,
      gas_used,
      contract_addresses,
      block_end_info: info === 0 ? null : { block_gas_limit_reached: (info & 2) !== 0, block_output_limit_reached: (info & 4) !== 0 },
    }
    return block
  }
}
