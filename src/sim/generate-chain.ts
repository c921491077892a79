import type { BlockJson } from '../ledger/store/types.js'
import { AccountPool } from './accounts.js'
import { blockJson, type BlockHeader } from './block-json.js'
import { between, poisson } from './distributions.js'
import { randomAddress, randomU64String } from './hex.js'
import { Mempool, type PendingTxn } from './mempool.js'
import { resolveChainOptions, type ChainOptions, type ChainOptionsInput } from './options.js'
import { sampleGasUnitPrice } from './prices.js'
import { createRng, type Rng } from './prng.js'
import { createSchedule } from './regime-chain.js'
import type { Regime } from './regimes.js'
import { createWorkload, pickClass, sampleGasUsed, type EntryFunctionProfile, type Workload } from './workload.js'

/** One generated block and what the model did to produce it (not part of the wire JSON). */
export interface GeneratedBlock {
  block: BlockJson
  regime: Regime
  /** Transactions submitted in the interval before this block. */
  arrivals: number
  /** Arrivals dropped because every sender drawn already had a transaction pending. */
  dropped: number
  /** Pending transactions that expired at this block. */
  expired: number
  /** Mempool size after this block. */
  pending: number
}

/** Independent random streams, so changing how one part draws does not shift the others. */
const STREAM = { setup: 0, demand: 1, bytes: 2, consensus: 3, regime: 4 } as const

/** Share of arrivals that are orderless (nonce-protected) transactions. */
const ORDERLESS_SHARE = 0.02

/**
 * Time to live senders give their transactions (`expiration_timestamp_secs` − now): 10 s for
 * bots that would rather drop a stale order, the TS SDK's 20 s default, a minute, and the 600 s
 * older SDKs and wallets use.
 */
function sampleTtlSecs(rng: Rng): number {
  const x = rng.float()
  return x < 0.15 ? 10 : x < 0.65 ? 20 : x < 0.87 ? 60 : 600
}

/** `max_gas_amount`: the SDK default 200,000, a round 100,000, or simulated gas × 1.5. */
function sampleMaxGas(rng: Rng, gasUsed: number): number {
  const x = rng.float()
  return x < 0.5 ? 200_000 : x < 0.7 ? 100_000 : Math.max(20, Math.ceil(gasUsed * 1.5))
}

function argumentsOf(rng: Rng, fn: EntryFunctionProfile, accounts: AccountPool): unknown[] {
  const amount = String(between(rng, 1, 5000) * 10 ** between(rng, 2, 6))
  switch (fn.arguments) {
    case 'transfer':
      return [accounts.addresses[accounts.pickAny(rng)] as string, amount]
    case 'amount':
      return [amount]
    case 'amounts':
      return [amount, String(between(rng, 0, 10 ** 6))]
  }
}

/**
 * Generates a synthetic chain from a mempool model, block by block (lazily: memory stays bounded
 * by the mempool, not the chain length).
 *
 * Before each block, transactions arrive (Poisson, mean set by the regime the scenario's
 * schedule gives the block, `regime-chain.ts`) from accounts with nothing pending, each with a
 * price, a gas use, a time to live and an entry function; a few are orderless. At the block, expired ones leave the mempool, then the block
 * takes pending transactions by price then arrival until its txn count or gas limit. Heights,
 * versions and timestamps are contiguous and increasing; the epoch rises every
 * `epoch_blocks` blocks and the round restarts with it.
 *
 * @throws InvalidConfigError for a bad option.
 * @example for (const { block } of generateChain({ blocks: 10, seed: 7 })) console.log(block.block_height)
 */
export function* generateChain(input: ChainOptionsInput): Generator<GeneratedBlock> {
  const o: ChainOptions = resolveChainOptions(input)
  const setup = createRng(o.seed, STREAM.setup)
  const demand = createRng(o.seed, STREAM.demand)
  const bytes = createRng(o.seed, STREAM.bytes)
  const consensus = createRng(o.seed, STREAM.consensus)
  const schedule = createSchedule(o.scenario, createRng(o.seed, STREAM.regime))
  const workload: Workload = createWorkload(setup)
  const validators = Array.from({ length: o.validators }, () => randomAddress(setup))
  const accounts = new AccountPool(setup, o.accounts)
  const mempool = new Mempool()
  const bitvecBytes = Math.ceil(o.validators / 8)
  // Bits past the last validator in the final byte stay zero (bits are most significant first).
  const lastByteMask = (0xff00 >>> (o.validators - (bitvecBytes - 1) * 8)) & 0xff

  let version = o.first_version
  let time = o.first_timestamp_us
  let round = 0
  let arrival = 0
  let lastGas = 0
  for (let b = 0; b < o.blocks; b++) {
    const epochIndex = Math.floor(b / o.epoch_blocks)
    if (b % o.epoch_blocks === 0) round = 0
    const failed: number[] = []
    const proposerIndex = consensus.int(o.validators)
    // About one round in a hundred times out: its proposer is reported failed and the block comes late.
    if (o.validators > 1 && consensus.float() < 0.01) failed.push((proposerIndex + 1 + consensus.int(o.validators - 1)) % o.validators)
    round += 1 + failed.length
    const previous = time
    // 180–300 ms between blocks, up to 400 ms more after a block that used its whole gas limit
    // (execution is pipelined behind consensus), and a round timeout's second per failed proposer.
    time += between(consensus, 180_000, 300_000) + Math.round(400_000 * Math.min(1, lastGas / o.limits.block_gas_limit)) + failed.length * 1_000_000
    const votes: number[] = []
    for (let i = 0; i < bitvecBytes; i++) {
      let byte = 0
      for (let bit = 0; bit < 8; bit++) if (consensus.float() < 0.93) byte |= 0x80 >>> bit
      votes.push(i === bitvecBytes - 1 ? byte & lastByteMask : byte)
    }

    const { regime, arrivals: mean, mix, prices, price_level } = schedule.next()
    const arrivals = poisson(demand, mean)
    let dropped = 0
    for (let k = 0; k < arrivals; k++) {
      // Arrivals spread evenly over the interval; only their second matters (expiry).
      const submittedSecs = Math.floor((previous + Math.floor(((k + 1) * (time - previous)) / (arrivals + 1))) / 1_000_000)
      const orderless = demand.float() < ORDERLESS_SHARE
      const sender = orderless ? accounts.pickAny(demand) : accounts.pickIdle(demand)
      if (sender < 0) {
        dropped++
        continue
      }
      const cls = pickClass(demand, mix)
      const fns = workload[cls]
      const fn = fns[demand.int(fns.length)] as EntryFunctionProfile
      const gasUsed = sampleGasUsed(demand, fn)
      const txn: PendingTxn = {
        arrival: arrival++,
        sender,
        sequence_number: orderless ? null : accounts.submit(sender),
        replay_protection_nonce: orderless ? randomU64String(demand) : null,
        gas_unit_price: sampleGasUnitPrice(demand, prices, price_level),
        max_gas_amount: sampleMaxGas(demand, gasUsed),
        gas_used: gasUsed,
        // Orderless transactions must expire within 60 s of submission (Aptos rejects longer).
        expiration_timestamp_secs: submittedSecs + (orderless ? between(demand, 20, 60) : sampleTtlSecs(demand)),
        function: fn.function,
        type_arguments: fn.type_arguments,
        arguments: argumentsOf(demand, fn, accounts),
        output_bytes: fn.output_bytes,
      }
      mempool.add(txn)
    }

    const expired = mempool.expire(Math.floor(time / 1_000_000))
    for (const t of expired) if (t.sequence_number !== null) accounts.settle(t.sender, false)
    const selection = mempool.take(o.limits)
    lastGas = selection.gas_used
    for (const t of selection.txns) if (t.sequence_number !== null) accounts.settle(t.sender, true)

    const header: BlockHeader = {
      block_height: o.first_height + b,
      epoch: o.first_epoch + epochIndex,
      round,
      timestamp_us: time,
      first_version: version,
      proposer: validators[proposerIndex] as string,
      failed_proposer_indices: failed,
      previous_block_votes_bitvec: votes,
      ending: epochIndex < o.checkpoint_epochs ? 'state_checkpoint' : 'block_epilogue',
    }
    const block = blockJson(header, selection, accounts.addresses, accounts.publicKeys, bytes)
    version += selection.txns.length + 2
    yield { block, regime, arrivals, dropped, expired: expired.length, pending: mempool.size }
  }
}

/**
 * The chain as JSON Lines: one block per string, newline-terminated. Same options → same bytes.
 *
 * @example const text = [...chainLines({ blocks: 3, seed: 1 })].join('')
 */
export function* chainLines(input: ChainOptionsInput): Generator<string> {
  for (const { block } of generateChain(input)) yield `${JSON.stringify(block)}\n`
}
