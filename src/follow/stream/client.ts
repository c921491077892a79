import { create, fromBinary, toBinary } from '@bufbuild/protobuf'
import * as grpc from '@grpc/grpc-js'
import type { StreamEndpoint } from './endpoint.js'
import { GetTransactionsRequestSchema, TransactionsResponseSchema, type TransactionsResponse } from './gen/aptos/indexer/v1/raw_data_pb.js'

/** The method path of `aptos.indexer.v1.RawData/GetTransactions`. */
export const GET_TRANSACTIONS = '/aptos.indexer.v1.RawData/GetTransactions'

/**
 * Largest response accepted. A response holds at most 1000 transactions (the service's batch
 * limit); a few mainnet transactions are megabytes of write set, so the cap is generous.
 */
const MAX_RECEIVE_BYTES = 256 * 1024 * 1024

/** One `GetTransactions` call: its responses in order, and a way to end it early. */
export interface TransactionsCall {
  responses: AsyncIterable<TransactionsResponse>
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

  constructor(endpoint: StreamEndpoint, apiKey: string | undefined) {
    const credentials = endpoint.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure()
    this.#client = new grpc.Client(endpoint.target, credentials, { 'grpc.max_receive_message_length': MAX_RECEIVE_BYTES, 'grpc.keepalive_time_ms': 60_000 })
    this.#metadata = new grpc.Metadata()
    if (apiKey !== undefined && apiKey !== '') this.#metadata.set('authorization', `Bearer ${apiKey}`)
  }

  /** Starts a `GetTransactions` call. Errors surface from iterating `responses` as grpc-js `ServiceError`s. */
  getTransactions(request: TransactionsRequest): TransactionsCall {
    const message = create(GetTransactionsRequestSchema, {
      ...(request.startingVersion === undefined ? {} : { startingVersion: String(request.startingVersion) }),
      ...(request.transactionsCount === undefined ? {} : { transactionsCount: String(request.transactionsCount) }),
      ...(request.batchSize === undefined ? {} : { batchSize: request.batchSize }),
    })
    const call = this.#client.makeServerStreamRequest(
      GET_TRANSACTIONS,
      (m: typeof message) => Buffer.from(toBinary(GetTransactionsRequestSchema, m)),
      (bytes: Buffer) => fromBinary(TransactionsResponseSchema, bytes),
      message,
      this.#metadata,
      {},
    )
    return { responses: call as AsyncIterable<TransactionsResponse>, cancel: () => call.cancel() }
  }

  close(): void {
    this.#client.close()
  }
}
