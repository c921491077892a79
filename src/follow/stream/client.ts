import { create, toBinary } from '@bufbuild/protobuf'
import * as grpc from '@grpc/grpc-js'
import { decodeTransactionsResponse } from './decode/transaction.js'
import { WireFormatError } from './decode/wire-reader.js'
import type { StreamEndpoint } from './endpoint.js'
import { StreamResponseError } from './errors.js'
import { GetTransactionsRequestSchema, type TransactionsResponse } from './gen/aptos/indexer/v1/raw_data_pb.js'

/** The method path of `aptos.indexer.v1.RawData/GetTransactions`. */
export const GET_TRANSACTIONS = '/aptos.indexer.v1.RawData/GetTransactions'

/**
 * Largest response accepted. A response holds at most 1000 transactions (the service's batch
 * limit); a few mainnet transactions are megabytes of write set, so the cap is generous.
 */
const MAX_RECEIVE_BYTES = 256 * 1024 * 1024

/**
 * HTTP/2 flow-control window of the connection and of each call, by default. HTTP/2's own
 * 64 KiB lets the server run only that far ahead of the reader, so while the writer commits
 * one response the next one trickles in a window update at a time, each a round trip to the
 * server. A window of a few responses lets the next one arrive during the commit; it is also
 * the most a stalled reader leaves unread in flight, so memory stays bounded by it.
 */
export const DEFAULT_FLOW_CONTROL_WINDOW = 8 * 1024 * 1024

/** One `GetTransactions` call: its responses in order, and a way to end it early. */
export interface TransactionsCall<R = TransactionsResponse> {
  responses: AsyncIterable<R>
  cancel(): void
}

/** What a call asks for. */
export interface TransactionsRequest {
  /** First version wanted; absent: the server picks (the stream's newest). */
  startingVersion?: bigint | undefined
  /** Versions wanted in all; absent: an endless stream. */
  transactionsCount?: bigint | undefined
  /** Transactions per response (the service's default and maximum is 1000). */
  batchSize?: bigint | undefined
}

/**
 * A gRPC client of one endpoint. Responses are read only as fast as they are consumed: grpc-js
 * asks HTTP/2 for the next message when the object-mode stream's buffer (`highWaterMark`
 * responses) has room, so a slow consumer stops the server through flow control rather than
 * filling memory.
 */
export class StreamClient {
  readonly #client: grpc.Client
  readonly #metadata: grpc.Metadata
  readonly #endpoint: string

  constructor(endpoint: StreamEndpoint, apiKey: string | undefined, flowControlWindow: number = DEFAULT_FLOW_CONTROL_WINDOW) {
    const credentials = endpoint.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure()
    this.#client = new grpc.Client(endpoint.target, credentials, {
      'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
      'grpc.keepalive_time_ms': 60_000,
      'grpc-node.flow_control_window': flowControlWindow,
    })
    this.#endpoint = endpoint.url
    this.#metadata = new grpc.Metadata()
    if (apiKey !== undefined && apiKey !== '') this.#metadata.set('authorization', `Bearer ${apiKey}`)
  }

  /**
   * Starts a `GetTransactions` call. Errors surface from iterating `responses`: the call's as
   * grpc-js `ServiceError`s, a response that is not a `TransactionsResponse` as a
   * `StreamResponseError` (decoded here rather than in grpc-js's deserializer, which would
   * turn it into a retried INTERNAL status: the same bytes would only come again). `decode`
   * turns each response's bytes into what `responses` yields (default the message decoder);
   * a `WireFormatError` it throws is that refusal.
   */
  getTransactions<R = TransactionsResponse>(request: TransactionsRequest, decode: (bytes: Buffer) => R = decodeTransactionsResponse as unknown as (bytes: Buffer) => R): TransactionsCall<R> {
    return decodeCall(this.getRawTransactions(request), this.#endpoint, decode)
  }

  /** `getTransactions` with each response's wire bytes as they came, to be decoded later (`decodeCall`). */
  getRawTransactions(request: TransactionsRequest): TransactionsCall<Buffer> {
    const message = create(GetTransactionsRequestSchema, {
      ...(request.startingVersion === undefined ? {} : { startingVersion: String(request.startingVersion) }),
      ...(request.transactionsCount === undefined ? {} : { transactionsCount: String(request.transactionsCount) }),
      ...(request.batchSize === undefined ? {} : { batchSize: request.batchSize }),
    })
    const call = this.#client.makeServerStreamRequest(
      GET_TRANSACTIONS,
      (m: typeof message) => Buffer.from(toBinary(GetTransactionsRequestSchema, m)),
      (bytes: Buffer) => bytes,
      message,
      this.#metadata,
      {},
    )
    return { responses: call as AsyncIterable<Buffer>, cancel: () => call.cancel() }
  }

  close(): void {
    this.#client.close()
  }
}

/** A call whose responses are `call`'s decoded by `decode`, a malformed one refused with `endpoint` named. */
export function decodeCall<R>(call: TransactionsCall<Buffer>, endpoint: string, decode: (bytes: Buffer) => R): TransactionsCall<R> {
  return { responses: decoded(call.responses, endpoint, decode), cancel: () => call.cancel() }
}

/** The responses of a call decoded by `decode`, a malformed one refused with the endpoint named. */
async function* decoded<R>(responses: AsyncIterable<Buffer>, endpoint: string, decode: (bytes: Buffer) => R): AsyncGenerator<R> {
  for await (const bytes of responses) {
    let response: R
    try {
      response = decode(bytes)
    } catch (error) {
      if (error instanceof WireFormatError) throw new StreamResponseError(endpoint, null, `a response is not a valid TransactionsResponse: ${error.message}`, { cause: error })
      throw error
    }
    yield response
  }
}
