import type { BlockEndInfo, BlockInput } from '../../core/block.js'
import { InvalidBlockError } from '../../core/errors.js'
import { parseU64, type U64 } from '../../core/u64.js'
import { isSpecialAddress, parseAddress } from './address.js'
import type { BlockJson } from './types.js'

/** A block as the engine needs it, plus the version range the ledger layer checks. */
export interface ParsedBlock extends BlockInput {
  block_height: U64
  epoch: U64
  first_version: U64
  last_version: U64
  gas_unit_prices: number[] | (number | bigint)[]
  gas_used: (number | bigint)[]
  contract_addresses: (string | null)[]
  block_end_info: BlockEndInfo | null
}

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function show(v: unknown): string {
  return v === undefined ? 'nothing (missing)' : (JSON.stringify(v) ?? String(v))
}

function failAt(name: string, field: string, message: string): never {
  throw new InvalidBlockError(name, field, message)
}

/** A u64 decimal string of block `name` at `field`. */
function u64At(name: string, v: unknown, field: string): U64 {
  if (typeof v !== 'string') return failAt(name, field, `must be a u64 decimal string, got ${show(v)}`)
  const parsed = parseU64(v)
  if (parsed === undefined) return failAt(name, field, `must be a u64 decimal string (0..18446744073709551615), got ${show(v)}`)
  return parsed
}

/** `u64At` of `transactions[i].<suffix>`, whose field name is built only for an error: this runs for every transaction. */
function txnU64(name: string, v: unknown, i: number, suffix: string): U64 {
  const parsed = typeof v === 'string' ? parseU64(v) : undefined
  return parsed !== undefined ? parsed : u64At(name, v, `transactions[${i}].${suffix}`)
}

/**
 * Parses one block of the node's block JSON (`GET /v1/blocks/by_height/{h}?with_transactions=true`)
 * into the core's compact form. Reads `block_height`, `first_version`, `last_version`, the epoch
 * of the `block_metadata_transaction` (a genesis block without one has epoch 0), each
 * `user_transaction`'s `gas_unit_price`, `gas_used` and entry-function module address, and the
 * `block_epilogue_transaction`'s `block_end_info`. u64 fields must be decimal strings.
 *
 * @throws InvalidBlockError naming the block and the field path (e.g. `transactions[4].gas_used`).
 */
export function parseBlockJson(value: unknown): ParsedBlock {
  if (!isObj(value)) throw new InvalidBlockError('(unknown)', '(root)', `block must be a JSON object, got ${show(value)}`)
  const rawHeight = value.block_height
  const heightOk = typeof rawHeight === 'string' ? parseU64(rawHeight) : undefined
  const name = heightOk === undefined ? '(unreadable height)' : String(heightOk)
  // Module-level helpers, not closures: this runs once per block on the replay path.
  const block_height = u64At(name, rawHeight, 'block_height')
  const first_version = u64At(name, value.first_version, 'first_version')
  const last_version = u64At(name, value.last_version, 'last_version')
  if (last_version < first_version) failAt(name, 'last_version', `(${last_version}) is below first_version (${first_version})`)
  const txns = value.transactions
  if (!Array.isArray(txns)) failAt(name, 'transactions', `must be an array (fetch the block with_transactions=true), got ${show(txns)}`)

  let epoch: U64 | undefined
  let block_end_info: BlockEndInfo | null = null
  const gas_unit_prices: (number | bigint)[] = []
  const gas_used: (number | bigint)[] = []
  const contract_addresses: (string | null)[] = []
  const list = txns as unknown[]
  for (let i = 0; i < list.length; i++) {
    const t = list[i]
    if (!isObj(t)) failAt(name, `transactions[${i}]`, `must be a transaction object, got ${show(t)}`)
    const txn = t as Obj
    switch (txn.type) {
      case 'user_transaction': {
        gas_unit_prices.push(txnU64(name, txn.gas_unit_price, i, 'gas_unit_price'))
        gas_used.push(txnU64(name, txn.gas_used, i, 'gas_used'))
        contract_addresses.push(contractOf(txn.payload, i, name))
        break
      }
      case 'block_metadata_transaction':
        if (epoch !== undefined) failAt(name, `transactions[${i}]`, 'a block has one block_metadata_transaction')
        epoch = txnU64(name, txn.epoch, i, 'epoch')
        break
      case 'block_epilogue_transaction': {
        const info = txn.block_end_info
        if (info === null || info === undefined) break
        if (!isObj(info)) failAt(name, `transactions[${i}].block_end_info`, `must be an object or null, got ${show(info)}`)
        const o = info as Obj
        for (const k of ['block_gas_limit_reached', 'block_output_limit_reached'] as const) {
          if (typeof o[k] !== 'boolean') failAt(name, `transactions[${i}].block_end_info.${k}`, `must be true or false, got ${show(o[k])}`)
        }
        for (const k of ['block_effective_block_gas_units', 'block_approx_output_size'] as const) {
          const n = o[k]
          if (n !== undefined && (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)) {
            failAt(name, `transactions[${i}].block_end_info.${k}`, `must be a non-negative JSON integer, got ${show(n)}`)
          }
        }
        block_end_info = { block_gas_limit_reached: o.block_gas_limit_reached as boolean, block_output_limit_reached: o.block_output_limit_reached as boolean }
        break
      }
      case 'genesis_transaction':
        epoch ??= 0
        break
      case 'state_checkpoint_transaction':
      case 'validator_transaction':
        break
      default:
        failAt(name, `transactions[${i}].type`, `unknown transaction type ${show(txn.type)}`)
    }
  }
  if (epoch === undefined) failAt(name, 'transactions', 'no block_metadata_transaction (epoch unknown)')
  return {
    block_height,
    epoch: epoch as U64,
    first_version,
    last_version,
    gas_unit_prices,
    gas_used,
    contract_addresses,
    block_end_info,
  }
}

/**
 * Entry function (`{address}::{module}::{function}`) → `contractOf`'s answer. Entry functions come
 * from a few modules, and the hex checks were half of parsing a block (bench/replay.ts); keyed by
 * the whole string, which the block scanner hands over as one cached string per distinct value.
 * Bounded by clearing.
 */
const CONTRACTS = new Map<string, string | null>()
const CONTRACTS_LIMIT = 4096

/**
 * The module address of an entry-function payload when it is not a framework address (Aptos
 * `parse_use_case` → `ContractAddress`), else `null` (framework → Platform; scripts, multisig and
 * other payloads → Others).
 */
function contractOf(payload: unknown, index: number, name: string): string | null {
  if (!isObj(payload)) return failAt(name, `transactions[${index}].payload`, `must be a payload object, got ${show(payload)}`)
  if (payload.type !== 'entry_function_payload') return null
  const fn = payload.function
  if (typeof fn !== 'string') return failAt(name, `transactions[${index}].payload.function`, `must be a string, got ${show(fn)}`)
  const known = CONTRACTS.get(fn)
  if (known !== undefined) return known
  const sep = fn.indexOf('::')
  const address = sep > 0 ? parseAddress(fn.slice(0, sep)) : undefined
  if (address === undefined) return failAt(name, `transactions[${index}].payload.function`, `must be {address}::{module}::{function}, got ${show(fn)}`)
  const contract = isSpecialAddress(address) ? null : address
  if (CONTRACTS.size >= CONTRACTS_LIMIT) CONTRACTS.clear()
  CONTRACTS.set(fn, contract)
  return contract
}

/**
 * A stored block as a range read answers it (`RangeBlock`): `parseBlockJson` of `header` with the
 * transactions whose JSON texts `txns` joins with `,`, or that block's JSON when parsing throws,
 * so that the reader reports why as it does for a block read alone.
 *
 * @throws SyntaxError when `txns` is not JSON (a row changed behind the store's back).
 */
export function parseStoredBlock(header: Omit<BlockJson, 'transactions'>, txns: string): ParsedBlock | BlockJson {
  const block: BlockJson = { ...header, transactions: JSON.parse(`[${txns}]`) as BlockJson['transactions'] }
  try {
    return parseBlockJson(block)
  } catch (error) {
    if (!(error instanceof InvalidBlockError)) throw error
    return block
  }
}

/**
 * `parsedBlocks`' answer from the rows a range read found (ascending heights within
 * `from .. from + count − 1`, as its statement orders and bounds them): one entry per height
 * from `from` to the newest row's, `null` where no row was found; `count` nulls when none was.
 * Each row is parsed as it comes, so rows read one at a time (a SQLite statement's iterator)
 * are dropped once parsed rather than all held at once. O(count).
 *
 * @throws RangeError when a row's height is out of order or outside the range (a broken statement).
 */
export function rangeAnswer<Row>(from: U64, count: number, rows: Iterable<Row>, heightOf: (row: Row) => U64, blockOf: (row: Row) => ParsedBlock | BlockJson): (ParsedBlock | BlockJson | null)[] {
  const start = BigInt(from)
  const answer: (ParsedBlock | BlockJson | null)[] = []
  for (const row of rows) {
    const height = heightOf(row)
    const at = Number(BigInt(height) - start)
    if (at < answer.length || at >= count) throw new RangeError(`a range read from height ${from} for ${count} heights found height ${height} out of place`)
    while (answer.length < at) answer.push(null)
    answer.push(blockOf(row))
  }
  return answer.length === 0 ? new Array<null>(count).fill(null) : answer
}
