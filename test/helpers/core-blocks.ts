import type { BlockInput } from '../../src/core/block.js'

/** A block of `n` user txns at `price` (defaults: height set by caller, epoch 1). */
export function block(height: number, opts: { n?: number; price?: number | bigint; prices?: (number | bigint)[]; epoch?: number; gas?: number[]; contracts?: (string | null)[]; endInfo?: BlockInput['block_end_info'] } = {}): BlockInput {
  const prices = opts.prices ?? Array<number | bigint>(opts.n ?? 0).fill(opts.price ?? 100)
  return {
    block_height: height,
    epoch: opts.epoch ?? 1,
    gas_unit_prices: prices,
    gas_used: opts.gas ?? null,
    contract_addresses: opts.contracts ?? null,
    block_end_info: opts.endInfo ?? null,
  }
}

/** A full block (250 txns) whose cheapest price is `cheapest`. */
export function fullBlock(height: number, cheapest: number | bigint, epoch = 1): BlockInput {
  const other = typeof cheapest === 'bigint' || cheapest > 5000 ? cheapest : 5000
  return block(height, { prices: [other, cheapest, ...Array<number | bigint>(248).fill(other)], epoch })
}

export const emptyBlock = (height: number, epoch = 1): BlockInput => block(height, { epoch })
