import { InvalidBlockError } from '../../core/errors.js'
import { addU64, parseU64, type U64 } from '../../core/u64.js'
import { parseAddress, toShortAddress } from './address.js'
import { BlockContinuityError } from './errors.js'
import { DEFAULT_MAX_BLOCK_TRANSACTIONS } from './limits.js'
import { parseBlockJson, type ParsedBlock } from './parse-block.js'
import { ReadTxnFields } from '../read/txn-fields.js'
import type { BlockJson, TransactionJson } from './types.js'
import { u64Distance } from '../../core/u64.js'

/** The newest block of a ledger, all the continuity rule needs. */
export interface LedgerTip {
  block_height: U64
  last_version: U64
}

/** A sequence-number transaction of a block, as the account index keeps it. */
export interface AccountEntry {
  /** Canonical long address of the sender. */
  address: string
  sequence_number: U64
  version: U64
  /** Position in the block's `transactions`. */
  index: number
}

/** A block that passed every check that does not depend on the ledger it joins. */
export interface CheckedBlock {
  parsed: ParsedBlock
  block_hash: string
  block_timestamp: U64
  transactions: TransactionJson[]
  /** Sequence-number user transactions in block order; orderless ones are not here. */
  entries: AccountEntry[]
}

type Obj = Record<string, unknown>

const HASH = /^0x[0-9a-fA-F]{64}$/

function show(v: unknown): string {
  return v === undefined ? 'nothing (missing)' : (JSON.stringify(v) ?? String(v))
}

/** `checkBlock`'s refusal of block `name` at `field`: a module function, not a closure made per block checked. */
function failBlock(name: string, field: string, message: string): never {
  throw new InvalidBlockError(name, field, message)
}

/**
 * Refuses a block with more than `maxTransactions` transactions, before anything reads them.
 *
 * @throws InvalidBlockError naming the block and `transactions`.
 */
export function checkBlockSize(block: unknown, maxTransactions: number): void {
  const b = (typeof block === 'object' && block !== null ? block : {}) as Obj
  const txns = b.transactions
  if (Array.isArray(txns) && txns.length > maxTransactions) {
    const name = typeof b.block_height === 'string' ? b.block_height.slice(0, 24) : '?'
    throw new InvalidBlockError(name, 'transactions', `has ${txns.length} transactions, more than the limit of ${maxTransactions} per block (max block transactions)`)
  }
}

/**
 * Validates a block on its own: at most `maxTransactions` transactions (`checkBlockSize`),
 * `parseBlockJson`'s checks, plus `block_hash` (`0x` + 64 hex),
 * `block_timestamp` (u64), one transaction per version of `first_version..last_version` with
 * each `version` written exactly as `first_version + index`, and for each user transaction a
 * valid `sender`, a u64 `sequence_number` and a `replay_protection_nonce` that is absent, null
 * (sequence-number txn) or a u64 (orderless txn).
 *
 * @throws InvalidBlockError naming the block and the field.
 */
export function checkBlock(block: unknown, maxTransactions: number = DEFAULT_MAX_BLOCK_TRANSACTIONS): CheckedBlock {
  checkBlockSize(block, maxTransactions)
  const parsed = parseBlockJson(block)
  const b = block as Obj
  const name = String(parsed.block_height)
  if (typeof b.block_hash !== 'string' || !HASH.test(b.block_hash)) failBlock(name, 'block_hash', `must be 0x followed by 64 hex digits, got ${show(b.block_hash)}`)
  const block_timestamp = typeof b.block_timestamp === 'string' ? parseU64(b.block_timestamp) : undefined
  if (block_timestamp === undefined) failBlock(name, 'block_timestamp', `must be a u64 decimal string, got ${show(b.block_timestamp)}`)

  const txns = b.transactions as Obj[]
  const { first_version, last_version } = parsed
  const span = u64Distance(first_version, last_version) + 1
  if (span !== txns.length) {
    failBlock(name, 'transactions', `has ${txns.length} transactions but first_version..last_version (${first_version}..${last_version}) spans ${span} versions`)
  }
  const entries: AccountEntry[] = []
  for (let i = 0; i < txns.length; i++) {
    const txn = txns[i] as Obj
    // addU64, not `+`: a number sum past 2^53 − 1 would round, and refuse the versions after it.
    const version = addU64(first_version, i) as U64
    // A version a reader proved to be the decimal of a number is compared as that number
    // (`ReadTxnFields.versionValue`), without writing the expected one out as text.
    const versionOk = txn instanceof ReadTxnFields && txn.versionValue >= 0 ? txn.versionValue === version : txn.version === String(version)
    if (!versionOk) failBlock(name, `transactions[${i}].version`, `must be "${version}" (first_version + ${i}), got ${show(txn.version)}`)
    if (txn.type !== 'user_transaction') continue
    const sender = txn.sender
    // A sender a reader proved to be `0x` and 64 lowercase hex digits is its own canonical
    // address, as `parseAddress` would answer, without reading its 64 digits again.
    const address = typeof sender !== 'string' ? undefined : sender.length === 66 && txn instanceof ReadTxnFields && txn.senderIsLowerHex ? sender : parseAddress(sender)
    if (address === undefined) failBlock(name, `transactions[${i}].sender`, `must be an address (0x and 1 to 64 hex digits), got ${show(txn.sender)}`)
    const sequence_number = typeof txn.sequence_number === 'string' ? parseU64(txn.sequence_number) : undefined
    if (sequence_number === undefined) failBlock(name, `transactions[${i}].sequence_number`, `must be a u64 decimal string, got ${show(txn.sequence_number)}`)
    const nonce = txn.replay_protection_nonce
    if (nonce !== undefined && nonce !== null) {
      if (typeof nonce !== 'string' || parseU64(nonce) === undefined) failBlock(name, `transactions[${i}].replay_protection_nonce`, `must be null or a u64 decimal string, got ${show(nonce)}`)
      continue
    }
    entries.push({ address: address as string, sequence_number: sequence_number as U64, version, index: i })
  }
  return { parsed, block_hash: b.block_hash as string, block_timestamp: block_timestamp as U64, transactions: txns as unknown as TransactionJson[], entries }
}

/**
 * The continuity rule: after `tip`, a block must have height `tip.block_height + 1` and first
 * version `tip.last_version + 1`. Any block may follow an empty ledger (`tip` null): a store may
 * begin at any height, as a pruned node does. `tipIs` words the message: `tip` is the newest
 * block of the ledger, or that of the previous line of an input file.
 *
 * @throws BlockContinuityError saying gap or duplicate, naming `block_height` or `first_version`.
 */
export function checkContinuity(parsed: Pick<ParsedBlock, 'block_height' | 'first_version' | 'last_version'>, tip: LedgerTip | null, tipIs: 'ledger' | 'previous line' = 'ledger'): void {
  if (tip === null) return
  const { block_height: height, first_version: first, last_version: last } = parsed
  const name = String(height)
  const inLedger = tipIs === 'ledger'
  const nextHeight = addU64(tip.block_height, 1)
  if (height !== nextHeight) {
    const detail =
      height <= tip.block_height
        ? `duplicate: block ${height} is ${inLedger ? 'already in the ledger or pruned (newest block' : 'repeated in the input (the previous line has block'} ${tip.block_height}; expected ${nextHeight ?? 'none'})`
        : `gap: block ${height} cannot follow block ${tip.block_height} (missing ${rangeText(nextHeight as U64, height, -1)})`
    throw new BlockContinuityError(name, 'block_height', detail)
  }
  const nextVersion = addU64(tip.last_version, 1)
  if (first !== nextVersion) {
    const at = `${inLedger ? 'ledger version' : 'the previous line ends at version'} ${tip.last_version}; expected first_version ${nextVersion ?? 'none'}`
    const detail =
      first <= tip.last_version
        ? `duplicate: versions ${first}..${last < tip.last_version ? last : tip.last_version} are ${inLedger ? 'already in the ledger' : 'repeated in the input'} (${at})`
        : `gap: versions ${rangeText(nextVersion as U64, first, -1)} are missing (${at})`
    throw new BlockContinuityError(name, 'first_version', detail)
  }
}

/** `a..(b + offset)` for messages, exact for any u64. */
function rangeText(a: U64, b: U64, offset: number): string {
  const end = BigInt(b) + BigInt(offset)
  return BigInt(a) === end ? String(a) : `${a}..${end}`
}

/**
 * The per-account rule: each sender's sequence-number transactions continue its sequence
 * (`next = previous + 1`, also within the block). An account the ledger has not seen may start
 * at any sequence number, since the ledger may begin after its earlier transactions were pruned.
 * `nextOf(address)` is the account's next sequence number in the ledger, or `undefined`.
 *
 * @returns each sender's next sequence number after the block.
 * @throws BlockContinuityError naming `transactions[i].sequence_number`.
 */
export function checkSequenceNumbers(checked: CheckedBlock, nextOf: (address: string) => U64 | undefined): Map<string, U64> {
  const next = new Map<string, U64>()
  const name = String(checked.parsed.block_height)
  for (const e of checked.entries) {
    // A sender's next sequence number is never undefined once set, so one lookup tells both.
    const expected = next.get(e.address) ?? nextOf(e.address)
    // The field's name is built only for an error: this runs for every user transaction.
    if (expected !== undefined && e.sequence_number !== expected) {
      const kind = e.sequence_number < expected ? 'duplicate' : 'gap'
      throw new BlockContinuityError(name, `transactions[${e.index}].sequence_number`, `${kind}: sender ${toShortAddress(e.address)} is at sequence number ${expected}, got ${e.sequence_number}`)
    }
    const after = addU64(e.sequence_number, 1)
    if (after === undefined) throw new InvalidBlockError(name, `transactions[${e.index}].sequence_number`, `${e.sequence_number} leaves no next sequence number for sender ${toShortAddress(e.address)}`)
    next.set(e.address, after)
  }
  return next
}

/** A block checked against a ledger: ready to be written. */
export interface PreparedBlock extends CheckedBlock {
  /** Each sender's next sequence number after the block. */
  nextSequenceNumbers: Map<string, U64>
}

/**
 * Every append rule, in the order the stores apply them: the block on its own (at most
 * `maxTransactions` transactions), continuity with
 * `tip`, then the senders' sequence numbers. Reads the ledger only through `tip` and `nextOf`,
 * so a store can call it before writing anything.
 */
export function prepareAppend(block: BlockJson, tip: LedgerTip | null, nextOf: (address: string) => U64 | undefined, maxTransactions: number = DEFAULT_MAX_BLOCK_TRANSACTIONS): PreparedBlock {
  const checked = checkBlock(block, maxTransactions)
  checkContinuity(checked.parsed, tip)
  // Written out rather than spread: one object of one shape per block.
  const { parsed, block_hash, block_timestamp, transactions, entries } = checked
  return { parsed, block_hash, block_timestamp, transactions, entries, nextSequenceNumbers: checkSequenceNumbers(checked, nextOf) }
}
