import { fromBinary } from '@bufbuild/protobuf'
import * as grpc from '@grpc/grpc-js'
import { once } from 'node:events'
import { GET_TRANSACTIONS } from './client.js'
import type { EncodedChain } from './encode-chain.js'
import { GetTransactionsRequestSchema, type GetTransactionsRequest } from './gen/aptos/indexer/v1/raw_data_pb.js'

/** What a fault hook may make of one response. */
export type StreamFault =
  /** End the call with this status (a cut stream, an expired key, an overloaded service). */
  | { kind: 'fail'; status: grpc.status; details: string }
  /** End the call cleanly, as a server that stops early does. */
  | { kind: 'end' }
  /** Send these versions (indices into the chain) instead: overlaps, repeats and gaps. */
  | { kind: 'send'; from: bigint; to: bigint }

/** Where a call stands when the fault hook is asked about its next response. */
export interface ResponseSlot {
  /** Calls before this one. */
  call: number
  /** Responses this call has sent. */
  response: number
  /** Versions the response would carry. */
  from: bigint
  to: bigint
}

/** Options of `startStreamServer`. */
export interface StreamServerOptions {
  chain: EncodedChain
  chainId: number
  /** Required `authorization: Bearer <key>`; a call without it ends UNAUTHENTICATED. */
  apiKey?: string | undefined
  /** End the call after the chain's last transaction (default false: idle like a live stream at its tip until cancelled). */
  endAtTip?: boolean | undefined
  /** Most transactions per response whatever the call asks (default 1000, the hosted service's limit). */
  maxBatchSize?: number | undefined
  /** Test seam: called before each response. */
  fault?: ((slot: ResponseSlot) => StreamFault | undefined) | undefined
}

/** A running local stream server. */
export interface StreamServer {
  /** `http://127.0.0.1:PORT`. */
  url: string
  /** Calls received, and responses written (counting those still buffered). */
  readonly stats: { calls: number; responses: number }
  close(): Promise<void>
}

function varint(n: number | bigint): number[] {
  const out: number[] = []
  let v = BigInt(n)
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return out
}

/**
 * Wire bytes of a `TransactionsResponse` from transactions already encoded: field 1 (repeated
 * `Transaction`, length-delimited, tag 0x0a) per transaction, then `chain_id` (field 2,
 * varint, tag 0x10). Written by hand so the server spends nothing re-encoding.
 */
export function responseBytes(transactions: readonly Uint8Array[], chainId: number): Buffer {
  const parts: Uint8Array[] = []
  for (const t of transactions) parts.push(Uint8Array.from([0x0a, ...varint(t.length)]), t)
  parts.push(Uint8Array.from([0x10, ...varint(chainId)]))
  return Buffer.concat(parts)
}

/**
 * A local Transaction Stream server (`aptos.indexer.v1.RawData/GetTransactions` over plaintext
 * HTTP/2) serving an encoded chain: from `starting_version` (absent: the newest block's first
 * version), `batch_size` transactions per response (default 1000), `transactions_count` in all,
 * honouring HTTP/2 flow control (a response waits for the previous one to drain). For tests and
 * benchmarks; `fault` injects the failures a hosted stream shows.
 */
export async function startStreamServer(options: StreamServerOptions): Promise<StreamServer> {
  const { chain, chainId } = options
  const stats = { calls: 0, responses: 0 }
  const server = new grpc.Server()
  const last = chain.firstVersion + BigInt(chain.transactions.length) - 1n
  const handler = async (call: grpc.ServerWritableStream<GetTransactionsRequest, Buffer>) => {
    const n = stats.calls++
    let cancelled = false
    call.on('cancelled', () => {
      cancelled = true
    })
    if (options.apiKey !== undefined && call.metadata.get('authorization')[0] !== `Bearer ${options.apiKey}`) {
      call.emit('error', { code: grpc.status.UNAUTHENTICATED, details: 'API key expired or unknown' })
      return
    }
    const req = call.request
    const newestStart = chain.firstVersion + BigInt(chain.blockStarts.at(-1) ?? 0)
    let v = req.startingVersion === undefined ? newestStart : BigInt(req.startingVersion)
    const end = req.transactionsCount === undefined ? last : BigInt(req.startingVersion ?? newestStart) + BigInt(req.transactionsCount) - 1n
    const cap = BigInt(options.maxBatchSize ?? 1000)
    const asked = req.batchSize === undefined || req.batchSize === 0n ? cap : req.batchSize
    const batch = asked < cap ? asked : cap
    let response = 0
    while (!cancelled && v <= end && v <= last) {
      let from = v
      let to = v + batch - 1n
      if (to > end) to = end
      if (to > last) to = last
      const fault = options.fault?.({ call: n, response, from, to })
      if (fault?.kind === 'fail') {
        call.emit('error', { code: fault.status, details: fault.details })
        return
      }
      if (fault?.kind === 'end') break
      if (fault?.kind === 'send') ({ from, to } = fault)
      const slice = chain.transactions.slice(Number(from - chain.firstVersion), Number(to - chain.firstVersion) + 1)
      stats.responses++
      response++
      if (!call.write(responseBytes(slice, chainId))) await Promise.race([once(call, 'drain'), once(call, 'cancelled')])
      v = to + 1n
    }
    if (cancelled) return
    if (options.endAtTip || v <= end) call.end()
    // else: at the tip a live stream idles until the client goes away.
  }
  server.addService(
    {
      getTransactions: {
        path: GET_TRANSACTIONS,
        requestStream: false,
        responseStream: true,
        requestSerialize: () => Buffer.alloc(0),
        requestDeserialize: (bytes: Buffer) => fromBinary(GetTransactionsRequestSchema, bytes),
        responseSerialize: (bytes: Buffer) => bytes,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    },
    { getTransactions: handler as grpc.handleServerStreamingCall<GetTransactionsRequest, Buffer> },
  )
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))))
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve())
        // Calls idling at the tip never end on their own.
        setTimeout(() => server.forceShutdown(), 200).unref()
      }),
  }
}
