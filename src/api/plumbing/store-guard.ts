import { addU64, parseU64, u64Distance, type U64 } from '../../core/u64.js'
import { parseAddress } from '../../ledger/store/address.js'
import { LedgerUnavailableError } from '../../ledger/store/database-error.js'
import type { BlockBytes, LedgerInfo, LedgerStore, MaybePromise, RangeBlock, TransactionPageBytes } from '../../ledger/store/store.js'
import type { ParsedBlock } from '../../ledger/store/parse-block.js'
import type { BlockJson, TransactionJson } from '../../ledger/store/types.js'
import { ApiError } from './errors.js'

/** Default of `storeTimeoutMs`: long enough for a slow disk, short enough that a client gets an answer. */
export const DEFAULT_STORE_TIMEOUT_MS = 3000

function isThenable<T>(value: MaybePromise<T>): value is Promise<T> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
}

/**
 * `promise`, or an `ApiError('store_timeout')` (503) once `ms` have passed without it settling.
 * The work behind `promise` is not cancelled (a store has no way to be told); only the request
 * stops waiting for it.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError('store_timeout', `The ledger store did not answer within ${ms} ms`, { cause: what })), ms)
  })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

/** A store answer that breaks the store contract: a 500 whose message (logged, never sent) says how. */
function garbage(what: string, detail: string): ApiError {
  return new ApiError('internal_error', `store answered ${what} with ${detail}`)
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** A u64 in the canonical form the core holds (`parseU64` returns it unchanged). */
const isU64 = (v: unknown): v is U64 => (typeof v === 'number' || typeof v === 'bigint') && parseU64(v) === v

function checkInfo(info: unknown): LedgerInfo | null {
  if (info === null) return null
  const what = 'ledgerInfo()'
  if (!isObject(info)) throw garbage(what, typeof info)
  const c = info.chain_id
  if (!(typeof c === 'number' && Number.isInteger(c) && c >= 0 && c <= 255)) throw garbage(what, 'a chain_id that is not a u8')
  for (const key of ['epoch', 'ledger_version', 'oldest_ledger_version', 'ledger_timestamp_usec', 'block_height', 'oldest_block_height'] as const) {
    if (!isU64(info[key])) throw garbage(what, `a ${key} that is not a u64`)
  }
  const i = info as unknown as LedgerInfo
  if (i.oldest_ledger_version > i.ledger_version || i.oldest_block_height > i.block_height) throw garbage(what, 'an oldest version or height above the newest')
  return i
}

function checkTxn(txn: unknown, version: U64): TransactionJson | null {
  if (txn === null) return null
  const what = `transactionByVersion(${version})`
  if (!isObject(txn) || typeof txn.type !== 'string') throw garbage(what, 'something that is not a transaction')
  if (txn.version !== String(version)) throw garbage(what, `the transaction of version ${JSON.stringify(txn.version)}`)
  return txn as unknown as TransactionJson
}

function checkPage(page: unknown, address: string, start: U64, limit: number): TransactionJson[] {
  const what = `accountTransactions(${address}, ${start}, ${limit})`
  if (!Array.isArray(page)) throw garbage(what, typeof page)
  if (page.length > limit) throw garbage(what, `${page.length} transactions`)
  let next: U64 | undefined
  for (const txn of page as unknown[]) {
    if (!isObject(txn) || txn.type !== 'user_transaction') throw garbage(what, 'an item that is not a user transaction')
    const seq = parseU64(txn.sequence_number)
    // Sequence numbers of an account's page are consecutive from `start` on (a pruned head may be missing).
    if (seq === undefined || seq < start || (next !== undefined && seq !== next)) throw garbage(what, `sequence number ${JSON.stringify(txn.sequence_number)} out of order`)
    // Nodes write senders in the long form: compare as is, parse only when they differ.
    if (txn.sender !== address && (typeof txn.sender !== 'string' || parseAddress(txn.sender) !== address)) throw garbage(what, 'a transaction of another sender')
    next = addU64(seq, 1)
  }
  return page as TransactionJson[]
}

/**
 * A transaction's JSON text: checked without parsing it (the point of the text is to spare the
 * parse), so only its shape and its version, which the node writes as `"version":"N"` (one
 * search of one transaction's text).
 */
function checkTxnJson(json: unknown, version: U64): string | null {
  if (json === null) return null
  const what = `transactionJsonByVersion(${version})`
  if (typeof json !== 'string' || !json.startsWith('{') || !json.endsWith('}')) throw garbage(what, 'something that is not a JSON object')
  if (!json.includes(`"version":"${version}"`)) throw garbage(what, 'the text of another version')
  return json
}

const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** `checkTxnJson` of a transaction's UTF-8 bytes. */
function checkTxnBytes(bytes: unknown, version: U64): Uint8Array | null {
  if (bytes === null) return null
  const what = `transactionBytesByVersion(${version})`
  if (!(bytes instanceof Uint8Array) || bytes[0] !== OPEN_BRACE || bytes[bytes.length - 1] !== CLOSE_BRACE) throw garbage(what, 'something that is not a JSON object')
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(`"version":"${version}"`) === -1) throw garbage(what, 'the bytes of another version')
  return bytes
}

/**
 * A page of JSON texts: its size, and each one JSON object (not parsed, nor searched). That each
 * is a user transaction of the account, in sequence-number order, is the store's index: the
 * append rules checked every transaction as the store took it, and the index holds only those.
 */
function checkPageJson(page: unknown, address: string, start: U64, limit: number): string[] {
  const what = `accountTransactionsJson(${address}, ${start}, ${limit})`
  if (!Array.isArray(page)) throw garbage(what, typeof page)
  if (page.length > limit) throw garbage(what, `${page.length} transactions`)
  for (const json of page as unknown[]) {
    if (typeof json !== 'string' || !json.startsWith('{') || !json.endsWith('}')) throw garbage(what, 'an item that is not a JSON object')
  }
  return page as string[]
}

/** A page of bytes (`TransactionPageBytes`) that `what` answered: one JSON array of at most `limit` items from `start` on, in O(1) (see `checkPageJson`). */
function checkPageBytes(page: unknown, what: string, start: U64, limit: number): TransactionPageBytes {
  if (!isObject(page)) throw garbage(what, typeof page)
  const { body, count, firstSequenceNumber: first } = page
  if (!(body instanceof Uint8Array) || body[0] !== OPEN_BRACKET || body[body.length - 1] !== CLOSE_BRACKET) throw garbage(what, 'a body that is not a JSON array')
  if (!(typeof count === 'number' && Number.isInteger(count) && count >= 0 && count <= limit)) throw garbage(what, `${String(count)} transactions`)
  if (count === 0 ? first !== null || body.length !== 2 : !isU64(first) || first < start) throw garbage(what, `first sequence number ${String(first)} for ${count} transactions`)
  return page as unknown as TransactionPageBytes
}

function checkSequenceNumber(seq: unknown, address: string): U64 {
  if (!isU64(seq)) throw garbage(`accountSequenceNumber(${address})`, 'a value that is not a u64')
  return seq
}

function checkBlock(block: unknown, height: U64, withTransactions: boolean, what = `blockByHeight(${height})`): BlockJson | null {
  if (block === null) return null
  if (!isObject(block)) throw garbage(what, typeof block)
  if (block.block_height !== String(height)) throw garbage(what, `the block at height ${JSON.stringify(block.block_height)}`)
  const first = parseU64(block.first_version)
  const last = parseU64(block.last_version)
  if (first === undefined || last === undefined || last < first) throw garbage(what, 'a block without a version range')
  if (!withTransactions) return block as unknown as BlockJson
  const txns = block.transactions
  // A whole block or none: one transaction per version of first..last, in order.
  if (!Array.isArray(txns) || BigInt(txns.length) !== BigInt(last) - BigInt(first) + 1n) throw garbage(what, 'a block missing transactions')
  const base = BigInt(first)
  for (let i = 0; i < txns.length; i++) {
    const t: unknown = txns[i]
    if (!isObject(t) || t.version !== String(base + BigInt(i))) throw garbage(what, `transactions[${i}] out of place`)
  }
  return block as unknown as BlockJson
}

/** Whether `bytes` end with the ASCII text `tail`. */
function endsWith(bytes: Buffer, tail: string): boolean {
  return bytes.length >= tail.length && bytes.toString('latin1', bytes.length - tail.length) === tail
}

/**
 * A block's bytes (`BlockBytes`), checked without reading its transactions (see `checkPageBytes`):
 * one JSON object that opens as the block at `height` does, whose header names the version range
 * the store reports, closed by its transactions' array, or by `null` when they were not asked
 * for; and a whole block, `count` transactions for the versions `first..last`. That each
 * transaction is the one of its version, the append rules checked as the store took it.
 */
function checkBlockBytes(answer: unknown, height: U64, withTransactions: boolean): BlockBytes | null {
  if (answer === null) return null
  const what = `blockBytesByHeight(${height}, ${withTransactions})`
  if (!isObject(answer)) throw garbage(what, typeof answer)
  const { body, firstVersion: first, lastVersion: last, count } = answer
  if (!(body instanceof Uint8Array)) throw garbage(what, 'a body that is not bytes')
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.length)
  const open = `{"block_height":"${height}",`
  if (bytes.toString('latin1', 0, open.length) !== open) throw garbage(what, 'the bytes of another block')
  if (!isU64(first) || !isU64(last) || last < first) throw garbage(what, 'a block without a version range')
  // The header comes first, so a right header is found in its first bytes: only a wrong one has the search read on.
  const range = bytes.indexOf(`"first_version":"${first}","last_version":"${last}","transactions":`)
  if (range === -1) throw garbage(what, `a header without versions ${first}..${last}`)
  if (!endsWith(bytes, withTransactions ? ']}' : 'null}')) throw garbage(what, `a body that is not a block ${withTransactions ? 'with' : 'without'} transactions`)
  if (count !== (withTransactions ? u64Distance(first, last) + 1 : 0)) throw garbage(what, `${String(count)} transactions for versions ${first}..${last}`)
  return answer as unknown as BlockBytes
}

function checkParsedBlock(block: unknown, height: U64): ParsedBlock | undefined {
  if (block === undefined) return undefined
  if (!isObject(block) || block.block_height !== height) throw garbage(`parsedBlockByHeight(${height})`, isObject(block) ? `the block at height ${String(block.block_height)}` : typeof block)
  return block as unknown as ParsedBlock
}

/**
 * A range read's answer (`parsedBlocks`): at least one height and at most `count`, each `null`,
 * the block at that height parsed, or its JSON as `checkBlock` takes it. O(heights) but for a
 * block answered as JSON (one the engine cannot read), whose transactions are walked.
 */
function checkRange(answer: unknown, from: U64, count: number): RangeBlock[] {
  const what = `parsedBlocks(${from}, ${count})`
  if (!Array.isArray(answer)) throw garbage(what, typeof answer)
  if (answer.length > Math.max(count, 0) || (count >= 1 && answer.length === 0)) throw garbage(what, `${answer.length} heights`)
  const base = BigInt(from)
  for (let i = 0; i < answer.length; i++) {
    const block: unknown = answer[i]
    if (block === null) continue
    const height = parseU64(base + BigInt(i)) as U64
    if (isObject(block) && 'transactions' in block) checkBlock(block, height, true, `${what} at height ${height}`)
    else if (!isObject(block) || block.block_height !== height) throw garbage(what, `${isObject(block) ? `the block at height ${String(block.block_height)}` : typeof block} for height ${height}`)
  }
  return answer as RangeBlock[]
}

/** A store that cannot reach its database is a 503 like a timeout, not a 500: it is expected to come back. */
function unreachable(error: unknown): never {
  if (error instanceof LedgerUnavailableError) throw new ApiError('ledger_unavailable', 'The ledger database cannot be reached', { cause: error })
  throw error
}

/**
 * The store as the API reads it. Every read answer is checked against the store contract (a
 * transaction of the version asked for, a whole block, a page of the account's consecutive
 * sequence numbers, u64 values), so a store returning garbage gets a 500 rather than a wrong
 * answer; and an asynchronous read that does not settle within `timeoutMs` becomes a 503, so a
 * hanging store cannot hang a request, and one that cannot reach its database
 * (`LedgerUnavailableError`) gets a 503 too. Synchronous answers stay synchronous (no timer, no
 * promise): the hot paths over an in-process store pay a few type checks. Writes pass through.
 *
 * @example const store = guardStore(SqliteStore.open('ledger.db'), 3000)
 */
export function guardStore(inner: LedgerStore, timeoutMs: number): LedgerStore {
  function read<T>(answer: MaybePromise<unknown>, what: string, check: (value: unknown) => T): MaybePromise<T> {
    return isThenable(answer) ? withDeadline(answer, timeoutMs, what).then(check, unreachable) : check(answer)
  }
  const txnJson = inner.transactionJsonByVersion?.bind(inner)
  const pageJson = inner.accountTransactionsJson?.bind(inner)
  const txnBytes = inner.transactionBytesByVersion?.bind(inner)
  const pageBytes = inner.accountTransactionsBytes?.bind(inner)
  const latestBytes = inner.latestAccountTransactionsBytes?.bind(inner)
  const releaseBytes = inner.releaseBytes?.bind(inner)
  const parsedBlock = inner.parsedBlockByHeight?.bind(inner)
  const blockBytes = inner.blockBytesByHeight?.bind(inner)
  const parsedBlocks = inner.parsedBlocks?.bind(inner)
  return {
    // The JSON text and byte reads only where the store has them, so routes fall back to the parsed ones.
    ...(txnJson === undefined ? {} : { transactionJsonByVersion: (version: U64) => read(txnJson(version), 'transactionJsonByVersion', (t) => checkTxnJson(t, version)) }),
    ...(pageJson === undefined
      ? {}
      : { accountTransactionsJson: (address: string, start: U64, limit: number) => read(pageJson(address, start, limit), 'accountTransactionsJson', (p) => checkPageJson(p, address, start, limit)) }),
    ...(txnBytes === undefined ? {} : { transactionBytesByVersion: (version: U64) => read(txnBytes(version), 'transactionBytesByVersion', (t) => checkTxnBytes(t, version)) }),
    ...(pageBytes === undefined
      ? {}
      : {
          accountTransactionsBytes: (address: string, start: U64, limit: number) =>
            read(pageBytes(address, start, limit), 'accountTransactionsBytes', (p) => checkPageBytes(p, `accountTransactionsBytes(${address}, ${start}, ${limit})`, start, limit)),
        }),
    ...(latestBytes === undefined
      ? {}
      : {
          latestAccountTransactionsBytes: (address: string, limit: number) =>
            read(latestBytes(address, limit), 'latestAccountTransactionsBytes', (p) => checkPageBytes(p, `latestAccountTransactionsBytes(${address}, ${limit})`, 0, limit)),
        }),
    ...(blockBytes === undefined
      ? {}
      : { blockBytesByHeight: (height: U64, withTransactions: boolean) => read(blockBytes(height, withTransactions), 'blockBytesByHeight', (b) => checkBlockBytes(b, height, withTransactions)) }),
    ...(releaseBytes === undefined ? {} : { releaseBytes }),
    ...(parsedBlock === undefined ? {} : { parsedBlockByHeight: (height: U64) => read(parsedBlock(height), 'parsedBlockByHeight', (b) => checkParsedBlock(b, height)) }),
    ...(parsedBlocks === undefined
      ? {}
      : { parsedBlocks: (from: U64, count: number, maxTransactions: number) => read(parsedBlocks(from, count, maxTransactions), 'parsedBlocks', (r) => checkRange(r, from, count)) }),
    ledgerInfo: () => read(inner.ledgerInfo(), 'ledgerInfo', checkInfo),
    transactionByVersion: (version) => read(inner.transactionByVersion(version), 'transactionByVersion', (t) => checkTxn(t, version)),
    accountTransactions: (address, start, limit) => read(inner.accountTransactions(address, start, limit), 'accountTransactions', (p) => checkPage(p, address, start, limit)),
    accountSequenceNumber: (address) => read(inner.accountSequenceNumber(address), 'accountSequenceNumber', (s) => checkSequenceNumber(s, address)),
    blockByHeight: (height, withTransactions) => read(inner.blockByHeight(height, withTransactions), 'blockByHeight', (b) => checkBlock(b, height, withTransactions)),
    appendBlock: (block) => inner.appendBlock(block),
    pruneBelow: (version) => inner.pruneBelow(version),
    close: () => inner.close(),
  }
}
