import * as grpc from '@grpc/grpc-js'
import { InvalidConfigError } from '../../core/errors.js'
import { toU64, type U64 } from '../../core/u64.js'
import { checkBlock } from '../../ledger/store/append-rules.js'
import type { BatchAppendResult, BatchAppendStore, IngestBlock } from '../../ledger/store/store.js'
import type { BlockJson, TransactionJson } from '../../ledger/store/types.js'
import { backoffDelay, resolveRetryPolicy, type RetryPolicy } from '../backoff.js'
import { sleep as defaultSleep, type Sleep } from '../sleep.js'
import { BlockAssembler, type AssembledBlock } from './assemble-blocks.js'
import { decodeCall, DEFAULT_FLOW_CONTROL_WINDOW, StreamClient, type TransactionsCall } from './client.js'
import { hex } from './convert/hex.js'
import { TextWriter } from './decode/text-writer.js'
import { decodeTransactionsResponse } from './decode/transaction.js'
import { decodeTextResponse, textHash, type TextTransaction } from './decode/wire-text.js'
import { parseStreamEndpoint } from './endpoint.js'
import { StreamChainError, StreamResponseError, StreamUnavailableError } from './errors.js'
import type { StreamStart } from './stream-start.js'
import type { Transaction } from './gen/aptos/transaction/v1/transaction_pb.js'
import { appendThroughOutages, retryUnavailable, type BlockKey, type OutageOptions } from '../../ledger/ingest/outage.js'

/** Options of `ingestFromStream`. `endpoint` and `store` are required. */
export interface IngestStreamOptions {
  /** `https://host:port` (TLS) or `http://host:port` (plaintext), as Aptos processor configs write it. */
  endpoint: string
  /** Sent as `authorization: Bearer <key>`; never written to a message. */
  apiKey?: string | undefined
  /** The ledger to append to; it continues from its newest block. */
  store: BatchAppendStore
  /** The ledger's chain id, checked against the stream's; default the store's (`ledgerInfo().chain_id`, else its `chainId`). */
  chainId?: number | undefined
  /** First version asked for when the ledger is empty (the ingest starts at the first block that begins at or after it); default the stream's newest. */
  startingVersion?: U64 | string | undefined
  /** Stop once the block holding this version is appended. Default: follow until `signal` aborts. */
  toVersion?: U64 | string | undefined
  /** Stops the ingest (what was appended stays); `ingestFromStream` then resolves. */
  signal?: AbortSignal | undefined
  /** Transactions per response asked for (1..1000, the service's limit; default 1000). */
  batchSize?: number | undefined
  /** Most blocks per commit (default 4096, as `ingest --input`). Blocks of at most 16 MiB of transaction text (4 responses for a store without `appendChecked`) are held uncommitted; they commit before more is read. */
  batchBlocks?: number | undefined
  /**
   * HTTP/2 flow-control window in bytes (default 8 MiB, HTTP/2's minimum 65535): how far the
   * server may run ahead of a writer that is behind, so what bounds the memory the stream holds.
   */
  flowControlWindow?: number | undefined
  /** Backoff between calls after a dropped or refused-for-now call; `retries` bounds calls in a row without a new block. */
  retry?: Partial<RetryPolicy> | undefined
  /** After each commit. */
  onAppend?: ((progress: StreamAppend) => void) | undefined
  /** Before each new call after a failure. */
  onRetry?: ((event: StreamRetry) => void) | undefined
  /** Riding out database outages (a lost connection, a restart, SQLITE_BUSY): backoff and logging, as the other writers. */
  outage?: OutageOptions | undefined
  /**
   * A call already made on the stream (`startStream`, whose first response gave the chain id a
   * new ledger was created with): the ingest's first call when it asks for the version the
   * ingest starts from, else ended; either way its client is the one the ingest calls on and
   * closes, so no other connection is opened. `endpoint`, `apiKey`, `batchSize` and
   * `flowControlWindow` are then the start's.
   */
  start?: StreamStart | undefined
  /** Test seams. */
  sleep?: Sleep | undefined
  random?: (() => number) | undefined
}

/** One commit of `ingestFromStream`. */
export interface StreamAppend {
  block_height: U64
  ledger_version: U64
  /** Chain time (µs) of the newest block appended. */
  block_timestamp: U64
  blocks: number
  transactions: number
}

/** A call that failed and will be made again. */
export interface StreamRetry {
  attempt: number
  delay_ms: number
  reason: string
  from_version: U64 | null
}

/** What `ingestFromStream` did. */
export interface IngestStreamSummary {
  appended: number
  transactions: number
  /** The ledger's newest block at the end, `null` if it is still empty. */
  height: U64 | null
  ledger_version: U64 | null
  /** Versions passed over before the first block start (a starting version inside a block). */
  skipped: number
}

/** gRPC statuses that a later call may not meet: the service is restarting, overloaded, or the connection dropped. */
const RETRY = new Set([grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED, grpc.status.DEADLINE_EXCEEDED, grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.CANCELLED])

/**
 * Most transaction text (UTF-8 bytes) held uncommitted. A commit costs the SQLite writer a
 * fixed part (its account upserts, its journal) besides its rows, so the fewer commits the
 * better while catching up: this lets the sample chain's whole backfill go in one commit, as
 * `ingest --input` commits it, while what is held (and what a crash loses, to be read again)
 * stays bounded beside the flow-control window. A live stream at its tip commits sooner: when
 * nothing more is ready.
 */
const HOLD_BYTES = 16 * 1024 * 1024

/** Most responses held uncommitted for a store that takes the node's objects (their size is not counted). */
const HOLD_RESPONSES = 4

/** `p`, its rejection marked handled: it may be dropped unawaited when the call ends. */
function settledLater<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {})
  return p
}

/**
 * Whether `p` settles within one turn of the event loop: a response already buffered, or whose
 * bytes are already in the socket (the turn's poll phase reads them), not one still on the wire.
 * Two `setImmediate`s apart, so one poll phase runs between them, without waiting on a timer.
 */
function arrived(p: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve) => {
    let timer = setImmediate(() => {
      timer = setImmediate(() => resolve(false))
    })
    const done = () => {
      clearImmediate(timer)
      resolve(true)
    }
    p.then(done, done)
  })
}

interface Tip {
  height: bigint
  last: bigint
}

/**
 * Appends the Transaction Stream's blocks (`aptos.indexer.v1.RawData/GetTransactions`) to a
 * ledger store: every transaction turned into the node's REST JSON, whole blocks assembled
 * across responses and committed (`appendBlocks`, all or nothing per block, the store's
 * continuity rules) once the stream has nothing more ready or 16 MiB of their text is held,
 * before anything more is read, so a writer slower than the stream holds the stream back
 * through HTTP/2 flow control instead of filling memory.
 *
 * Resumable: every call asks for the version after the ledger's newest block, so an ingest that
 * crashed or was stopped is finished by starting it again. A dropped call (UNAVAILABLE,
 * RESOURCE_EXHAUSTED, a reset connection, a server that ends the stream) is made again from
 * there with jittered exponential backoff, the open block dropped and read again; a refused
 * key (UNAUTHENTICATED, PERMISSION_DENIED) stops with a message naming the endpoint. Versions
 * the ledger already holds are checked against it (hash) and skipped; a version past the next
 * one expected (a gap) is refused.
 *
 * @throws StreamChainError before writing anything when the stream's chain id is not the ledger's.
 * @throws StreamResponseError, StreamUnavailableError, the store's refusal (a chain that does not continue the ledger).
 * @example await ingestFromStream({ endpoint: 'https://grpc.mainnet.aptoslabs.com:443', apiKey, store, toVersion: '3000000000' })
 */
export async function ingestFromStream(options: IngestStreamOptions): Promise<IngestStreamSummary> {
  let start = options.start
  const endpoint = start?.endpoint ?? parseStreamEndpoint(options.endpoint)
  const store = options.store
  const batchSize = start?.batchSize ?? BigInt(bounded('batchSize', options.batchSize ?? 1000, 1, 1000))
  const batchBlocks = bounded('batchBlocks', options.batchBlocks ?? 4096, 1, 1_000_000)
  const flowControlWindow = bounded('flowControlWindow', options.flowControlWindow ?? DEFAULT_FLOW_CONTROL_WINDOW, 65_535, 2 ** 31 - 1)
  const policy = resolveRetryPolicy(options.retry)
  const sleep = options.sleep ?? defaultSleep
  const random = options.random ?? Math.random
  const toVersion = options.toVersion === undefined ? undefined : BigInt(options.toVersion)
  const controller = new AbortController()
  const onAbort = () => controller.abort(options.signal?.reason)
  if (options.signal?.aborted) controller.abort(options.signal.reason)
  else options.signal?.addEventListener('abort', onAbort, { once: true })

  // The database may drop under a writer that is meant to keep going: reads and commits retry
  // while it is unreachable, and a lost commit is checked against the ledger before it is resent.
  const outage: OutageOptions = { ...options.outage, signal: controller.signal }
  // A start handed in is ended here if the ingest stops before its loop, which ends it otherwise.
  const stored = await retryUnavailable(() => store.ledgerInfo(), outage).catch((error: unknown) => {
    start?.close()
    throw error
  })
  const ledgerChainId = options.chainId ?? stored?.chain_id ?? (store as { chainId?: number }).chainId
  let tip: Tip | null = stored === null ? null : { height: BigInt(stored.block_height), last: BigInt(stored.ledger_version) }
  if (tip !== null && options.startingVersion !== undefined && BigInt(options.startingVersion) > tip.last + 1n) {
    start?.close()
    throw new InvalidConfigError('startingVersion', `${options.startingVersion} would leave a gap: the ledger ends at version ${tip.last}, so it continues from ${tip.last + 1n}`)
  }
  const summary = { appended: 0, transactions: 0, skipped: 0 }
  const client = start?.client ?? new StreamClient(endpoint, options.apiKey, flowControlWindow)
  // A store that takes checked blocks is handed what bulk ingest hands it: each transaction's
  // JSON text, written straight from the message, and the few fields its check reads; it then
  // neither builds nor serializes the node's transaction objects.
  const appendChecked = store.appendChecked?.bind(store)
  const append: (some: readonly AssembledBlock<unknown>[]) => Promise<BatchAppendResult> | BatchAppendResult =
    appendChecked === undefined ? (some) => store.appendBlocks(some as readonly BlockJson[]) : (some) => appendTexts(appendChecked, some as readonly AssembledBlock<HeldTransaction>[], store.maxBlockTransactions)
  const redact = (text: string) => (options.apiKey === undefined || options.apiKey === '' ? text : text.split(options.apiKey).join('<key>'))
  let failures = 0
  // Blocks assembled but not yet committed: at most HOLD_BYTES of text (or HOLD_RESPONSES responses).
  let held: AssembledBlock<unknown>[] = []
  let heldResponses = 0
  let heldBytes = 0
  let committing = false
  const commitHeld = async (): Promise<void> => {
    const blocks = held
    held = []
    heldResponses = 0
    heldBytes = 0
    committing = true
    for (let i = 0; i < blocks.length; i += batchBlocks) {
      const chunk = blocks.slice(i, i + batchBlocks)
      const result = await appendThroughOutages(store, chunk, append, keyOfBlock, outage)
      if (result.appended > 0) {
        const last = chunk[result.appended - 1] as AssembledBlock<unknown>
        tip = { height: BigInt(last.block_height), last: BigInt(last.last_version) }
        let txns = 0
        for (let k = 0; k < result.appended; k++) txns += (chunk[k] as AssembledBlock<unknown>).transactions.length
        summary.appended += result.appended
        summary.transactions += txns
        failures = 0
        options.onAppend?.({ block_height: toU64(tip.height), ledger_version: toU64(tip.last), block_timestamp: toU64(BigInt(last.block_timestamp)), blocks: result.appended, transactions: txns })
      }
      if (result.appended < chunk.length) throw result.refused
    }
    committing = false
  }
  try {
    for (;;) {
      if (controller.signal.aborted) break
      if (toVersion !== undefined && tip !== null && tip.last >= toVersion) break
      const from = tip !== null ? tip.last + 1n : options.startingVersion === undefined ? undefined : BigInt(options.startingVersion)
      // A store that takes checked blocks gets each transaction's text written straight from
      // the response's bytes (decode/wire-text.ts); another gets the node's objects.
      const request = { startingVersion: from, batchSize }
      const writer = appendChecked === undefined ? undefined : new TextWriter()
      const decode = writer === undefined ? decodeTransactionsResponse : (bytes: Buffer) => decodeTextResponse(bytes, writer)
      // The start's call is the first call when it asks for what this one would; else it is ended unread.
      const made = start !== undefined && start.from === from ? start.call : undefined
      if (made === undefined) start?.call.cancel()
      start = undefined
      const call: TransactionsCall<{ chainId?: string | undefined; transactions: readonly StreamTransaction[] }> = decodeCall<{ chainId?: string | undefined; transactions: readonly StreamTransaction[] }>(made ?? client.getRawTransactions(request), endpoint.url, decode)
      const cancel = () => call.cancel()
      controller.signal.addEventListener('abort', cancel, { once: true })
      const assembler: BlockAssembler<unknown, StreamTransaction> =
        writer === undefined ? new BlockAssembler<unknown, StreamTransaction>() : new BlockAssembler<unknown, StreamTransaction>(heldTransaction, (t) => t as TextTransaction)
      let next = from
      let reason = 'the stream ended before the ledger reached the version asked for'
      const responses = call.responses[Symbol.asyncIterator]()
      try {
        // The next response is asked for before the blocks held are committed, so a commit
        // happens when the stream has nothing more ready (or enough is held), never while it
        // is catching up response by response.
        let coming = settledLater(responses.next())
        for (;;) {
          const step = await coming
          if (step.done === true) break
          const response = step.value
          if (response.chainId !== undefined && ledgerChainId !== undefined && Number(response.chainId) !== ledgerChainId) {
            throw new StreamChainError(endpoint.url, Number(response.chainId), ledgerChainId, store.path)
          }
          for (const tx of response.transactions) {
            const v = BigInt(tx.version)
            if (tip !== null && v <= tip.last) {
              await retryUnavailable(() => checkStored(endpoint.url, store, tx), outage)
              continue
            }
            if (next !== undefined && v !== next) {
              if (v > next) throw new StreamResponseError(endpoint.url, null, `gap: version ${v} came where ${next} was expected; nothing from ${next} on was written`)
              // A repeat of a version this call already delivered (overlapping responses): the first copy stands.
              continue
            }
            next = v + 1n
            try {
              for (const b of assembler.push(tx)) held.push(b)
            } catch (error) {
              throw new StreamResponseError(endpoint.url, null, (error as Error).message, { cause: error })
            }
          }
          summary.skipped += assembler.skipped
          assembler.skipped = 0
          heldResponses++
          if (writer !== undefined) for (const t of response.transactions) heldBytes += (t as TextTransaction).bytes.length
          coming = settledLater(responses.next())
          const last = held.at(-1)
          const reached = toVersion !== undefined && last !== undefined && BigInt(last.last_version) >= toVersion
          if (reached || held.length >= batchBlocks || (writer === undefined ? heldResponses >= HOLD_RESPONSES : heldBytes >= HOLD_BYTES) || !(await arrived(coming))) await commitHeld()
          if (toVersion !== undefined && tip !== null && tip.last >= toVersion) break
        }
      } catch (error) {
        // Whole blocks read before a failure of the stream are kept; a failed commit is not tried again here.
        if (!committing) await commitHeld()
        if (controller.signal.aborted) break
        const status = (error as { code?: unknown }).code
        if (typeof status !== 'number' || !('metadata' in (error as object))) throw error
        if (!RETRY.has(status)) {
          const name = grpc.status[status] ?? String(status)
          const refused = status === grpc.status.UNAUTHENTICATED || status === grpc.status.PERMISSION_DENIED
          const why = refused ? `the API key was refused (${name}); check --stream-api-key or LEDGER_GAS_STREAM_API_KEY` : `the call failed with ${name}`
          throw new StreamResponseError(endpoint.url, name, `${why}: ${redact((error as grpc.ServiceError).details ?? '')}`)
        }
        reason = `${grpc.status[status] ?? status}: ${redact((error as grpc.ServiceError).details ?? '')}`
      } finally {
        controller.signal.removeEventListener('abort', cancel)
        call.cancel()
      }
      await commitHeld()
      if (controller.signal.aborted) break
      if (toVersion !== undefined && tip !== null && tip.last >= toVersion) break
      if (failures >= policy.retries) throw new StreamUnavailableError(endpoint.url, failures + 1, reason)
      const delay = backoffDelay(failures, policy, random)
      failures++
      options.onRetry?.({ attempt: failures, delay_ms: delay, reason, from_version: tip === null ? null : toU64(tip.last + 1n) })
      try {
        await sleep(delay, controller.signal)
      } catch {
        break
      }
    }
  } finally {
    start?.call.cancel()
    controller.abort()
    options.signal?.removeEventListener('abort', onAbort)
    client.close()
  }
  return { ...summary, height: tip === null ? null : toU64(tip.height), ledger_version: tip === null ? null : toU64(tip.last) }
}

/** A transaction of the stream: the decoder's message, or its text written from the wire. */
type StreamTransaction = Transaction | TextTransaction

/** A version the ledger holds again: the stream's must be the same transaction (hash), else the stream is another chain or fork. */
async function checkStored(endpoint: string, store: BatchAppendStore, tx: StreamTransaction): Promise<void> {
  const have = await store.transactionByVersion(toU64(BigInt(tx.version)))
  if (have === null) return
  const theirs = 'skeleton' in tx ? textHash(tx) : hex(tx.info?.hash ?? new Uint8Array())
  if ((have as { hash?: string }).hash !== theirs) {
    throw new StreamResponseError(endpoint, null, `version ${tx.version} has hash ${theirs} on the stream but ${(have as { hash?: string }).hash} in the ledger: the stream serves another chain or fork`)
  }
}

function bounded(key: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new InvalidConfigError(key, `must be an integer from ${min} to ${max}, got ${value}`)
  return value
}

/** A transaction as the ingest holds it until its block is committed, for a store's `appendChecked`. */
interface HeldTransaction {
  skeleton: TransactionJson
  /** Its JSON text as UTF-8 (a view of a shared chunk). */
  bytes: Buffer
}

/** A transaction's text as its block holds it; one the node's REST API does not serve is refused here, where its block is assembled. */
function heldTransaction(tx: StreamTransaction): HeldTransaction {
  const t = tx as TextTransaction
  if (t.error !== undefined) throw t.error
  return t
}

/**
 * `appendBlocks` for a store's `appendChecked`: each block checked on its own (`checkBlock` of
 * its transactions' skeletons, which carry every field it reads, so its values and errors are
 * those of the whole block), up to the first refused one, whose refusal is returned when the
 * store took all before it.
 */
async function appendTexts(appendChecked: (blocks: readonly IngestBlock[]) => Promise<BatchAppendResult> | BatchAppendResult, blocks: readonly AssembledBlock<HeldTransaction>[], maxTransactions: number): Promise<BatchAppendResult> {
  const ready: IngestBlock[] = []
  let refused: unknown
  for (const b of blocks) {
    try {
      const checked = checkBlock({ ...b, transactions: b.transactions.map((t) => t.skeleton) }, maxTransactions)
      ready.push({ checked, transactionJson: b.transactions.map((t) => t.bytes) })
    } catch (error) {
      refused = error
      break
    }
  }
  const result = await appendChecked(ready)
  return result.refused === undefined && refused !== undefined ? { appended: result.appended, refused } : result
}

const keyOfBlock = (b: AssembledBlock<unknown>): BlockKey => ({ height: toU64(BigInt(b.block_height)), hash: b.block_hash })
