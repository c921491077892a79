import type { BlockEpilogueTransactionJson, BlockJson, BlockMetadataTransactionJson, UserTransactionJson } from '../../src/ledger/store/types.js'
import { DEFAULT_LIMITS, ORDERLESS_SEQUENCE_NUMBER, type BlockLimits } from '../../src/sim/index.js'

/** Counts a test can compare across chains. */
export interface ChainFacts {
  blocks: number
  userTxns: number
  orderless: number
  epochs: Set<string>
  /** Blocks whose end info says the gas limit was reached. */
  gasLimitBlocks: number
  /** Blocks with at least 250 user transactions (Aptos `full_block_txns`). */
  bigBlocks: number
  checkpointBlocks: number
  epilogueBlocks: number
}

/**
 * Checks the laws every generated chain must obey, across the whole chain: consecutive heights;
 * contiguous versions (block to block and transaction to transaction); metadata first, then user
 * transactions, then exactly one epilogue or checkpoint; increasing timestamps shared by a
 * block's transactions; non-decreasing epochs with rounds increasing within one (a gap equal to
 * the failed proposers); per-sender sequence numbers 0, 1, 2, … without gaps; orderless txns
 * carrying a nonce and `u64::MAX` and expiring within 60 s; no txn included at or after its
 * expiration second; end info consistent with the user txns' gas. Returns at most 20 problems.
 */
export function checkChainLaws(blocks: readonly BlockJson[], limits: BlockLimits = DEFAULT_LIMITS, firstVersion?: number): { problems: string[]; facts: ChainFacts } {
  const problems: string[] = []
  const fail = (b: BlockJson, message: string) => {
    if (problems.length < 20) problems.push(`block ${b.block_height}: ${message}`)
  }
  const facts: ChainFacts = { blocks: blocks.length, userTxns: 0, orderless: 0, epochs: new Set(), gasLimitBlocks: 0, bigBlocks: 0, checkpointBlocks: 0, epilogueBlocks: 0 }
  const nextSequence = new Map<string, bigint>()
  let prev: { height: bigint; last: bigint; time: bigint; epoch: bigint; round: bigint } | null = null
  for (const b of blocks) {
    const height = BigInt(b.block_height)
    const first = BigInt(b.first_version)
    const last = BigInt(b.last_version)
    const time = BigInt(b.block_timestamp)
    const txns = b.transactions
    if (prev === null && firstVersion !== undefined && first !== BigInt(firstVersion)) fail(b, `first_version ${first}, expected ${firstVersion}`)
    if (prev !== null) {
      if (height !== prev.height + 1n) fail(b, `height follows ${prev.height}`)
      if (first !== prev.last + 1n) fail(b, `first_version ${first} does not follow last_version ${prev.last}`)
      if (time <= prev.time) fail(b, `timestamp ${time} not after ${prev.time}`)
    }
    if (BigInt(txns.length) !== last - first + 1n) fail(b, `${txns.length} txns for versions ${first}..${last}`)
    txns.forEach((t, i) => {
      if (BigInt(t.version) !== first + BigInt(i)) fail(b, `txn ${i} has version ${t.version}`)
      if ('timestamp' in t && t.timestamp !== b.block_timestamp) fail(b, `txn ${i} timestamp ${t.timestamp}`)
      if ((t.state_checkpoint_hash === null) !== (i < txns.length - 1)) fail(b, `txn ${i} state_checkpoint_hash ${t.state_checkpoint_hash}`)
    })
    const meta = txns[0] as BlockMetadataTransactionJson | undefined
    const end = txns[txns.length - 1]
    if (meta?.type !== 'block_metadata_transaction') {
      fail(b, 'does not start with block metadata')
      continue
    }
    if (meta.id !== b.block_hash) fail(b, 'block_hash is not the metadata id')
    const epoch = BigInt(meta.epoch)
    const round = BigInt(meta.round)
    facts.epochs.add(meta.epoch)
    if (prev !== null) {
      if (epoch < prev.epoch) fail(b, `epoch ${epoch} after ${prev.epoch}`)
      if (epoch === prev.epoch && round !== prev.round + 1n + BigInt(meta.failed_proposer_indices.length)) {
        fail(b, `round ${round} after ${prev.round} with ${meta.failed_proposer_indices.length} failed proposers`)
      }
    }
    if (end?.type === 'block_epilogue_transaction') facts.epilogueBlocks++
    else if (end?.type === 'state_checkpoint_transaction') facts.checkpointBlocks++
    else fail(b, `ends with ${end?.type}`)
    const users = txns.slice(1, -1) as UserTransactionJson[]
    if (users.some((u) => u.type !== 'user_transaction')) fail(b, 'a non-user transaction between metadata and the end')
    if (users.length > limits.max_block_txns) fail(b, `${users.length} user txns, above ${limits.max_block_txns}`)
    facts.userTxns += users.length
    if (users.length >= 250) facts.bigBlocks++
    const nowSecs = time / 1_000_000n
    let gas = 0n
    for (const u of users) {
      gas += BigInt(u.gas_used)
      if (BigInt(u.gas_used) > BigInt(u.max_gas_amount)) fail(b, `${u.version}: gas_used above max_gas_amount`)
      const exp = BigInt(u.expiration_timestamp_secs)
      if (nowSecs >= exp) fail(b, `${u.version}: included at ${nowSecs}s, expired at ${exp}s`)
      const orderless = u.replay_protection_nonce !== null && u.replay_protection_nonce !== undefined
      if (orderless) {
        facts.orderless++
        if (u.sequence_number !== ORDERLESS_SEQUENCE_NUMBER) fail(b, `${u.version}: orderless with sequence_number ${u.sequence_number}`)
        if (exp - nowSecs > 60n) fail(b, `${u.version}: orderless expiring ${exp - nowSecs}s ahead`)
      } else {
        const expected = nextSequence.get(u.sender) ?? 0n
        if (BigInt(u.sequence_number) !== expected) fail(b, `${u.version}: ${u.sender} sequence_number ${u.sequence_number}, expected ${expected}`)
        nextSequence.set(u.sender, expected + 1n)
      }
    }
    if (end?.type === 'block_epilogue_transaction') {
      const info = (end as BlockEpilogueTransactionJson).block_end_info
      if (info === null) fail(b, 'epilogue without end info')
      else {
        if (BigInt(info.block_effective_block_gas_units) !== gas) fail(b, `effective gas ${info.block_effective_block_gas_units} but users used ${gas}`)
        if (info.block_gas_limit_reached !== gas >= BigInt(limits.block_gas_limit)) fail(b, `gas limit flag ${info.block_gas_limit_reached} with gas ${gas}`)
        if (info.block_gas_limit_reached) facts.gasLimitBlocks++
      }
    }
    prev = { height, last, time, epoch, round }
  }
  return { problems, facts }
}

/** Parses JSON Lines text into blocks. */
export function parseLines(text: string): BlockJson[] {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as BlockJson)
}
