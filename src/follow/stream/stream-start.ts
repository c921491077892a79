import * as grpc from '@grpc/grpc-js'
import { DEFAULT_FLOW_CONTROL_WINDOW, StreamClient, type TransactionsCall, type TransactionsRequest } from './client.js'
import { responseChainId } from './decode/response-chain-id.js'
import { WireFormatError } from './decode/wire-reader.js'
import { parseStreamEndpoint, type StreamEndpoint } from './endpoint.js'
import { StreamResponseError, StreamUnavailableError } from './errors.js'

/**
 * A `GetTransactions` call already made, its first response read for the stream's chain id:
 * what a caller that must know the chain id before it opens the ledger (a new ledger is created
 * with it) hands to `ingestFromStream` as its first call, so that the ingest makes no other
 * connection or call to learn it.
 */
export interface StreamStart {
  endpoint: StreamEndpoint
  /** The one client (one connection) the call was made on; `ingestFromStream` makes its later calls on it and closes it. */
  client: StreamClient
  /** The version the call asked for first (`undefined`: the stream's newest block). */
  from: bigint | undefined
  /** Transactions per response the call asked for. */
  batchSize: bigint
  /** The stream's chain id, from the first response; `null` when it sent none, or no response. */
  chainId: number | null
  /** The call's responses as they came, the first one included. */
  call: TransactionsCall<Buffer>
  /** Ends the call and closes the client: for a caller that does not go on to ingest. */
  close(): void
}

/** What `startStream` asks for. */
export interface StreamStartOptions {
  apiKey?: string | undefined
  /** First version asked for; absent: the stream's newest block. */
  startingVersion?: bigint | undefined
  /** Versions wanted in all; absent: an endless stream. */
  transactionsCount?: bigint | undefined
  /** Transactions per response (default 1000, the service's limit). */
  batchSize?: bigint | undefined
  flowControlWindow?: number | undefined
}

/**
 * Opens the stream at `endpoint` and makes one `GetTransactions` call, waiting for its first
 * response to read the chain id (`responseChainId`, without decoding the transactions).
 *
 * @throws StreamResponseError (a refused key names the endpoint, never the key; a response that is not a message), StreamUnavailableError.
 */
export async function startStream(endpointUrl: string, options: StreamStartOptions = {}): Promise<StreamStart> {
  const endpoint = parseStreamEndpoint(endpointUrl)
  const { apiKey } = options
  const batchSize = options.batchSize ?? 1000n
  const client = new StreamClient(endpoint, apiKey, options.flowControlWindow ?? DEFAULT_FLOW_CONTROL_WINDOW)
  const request: TransactionsRequest = { startingVersion: options.startingVersion, transactionsCount: options.transactionsCount, batchSize }
  const raw = client.getRawTransactions(request)
  const close = () => {
    raw.cancel()
    client.close()
  }
  const responses = raw.responses[Symbol.asyncIterator]()
  let first: IteratorResult<Buffer>
  let chainId: string | undefined
  try {
    first = await responses.next()
    chainId = first.done === true ? undefined : responseChainId(first.value)
  } catch (error) {
    close()
    throw startError(error, endpoint.url, apiKey)
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (first.done === true) return
    yield first.value
    for (;;) {
      const step = await responses.next()
      if (step.done === true) return
      yield step.value
    }
  }
  return { endpoint, client, from: options.startingVersion, batchSize, chainId: chainId === undefined ? null : Number(chainId), call: { responses: all(), cancel: raw.cancel }, close }
}

/** A failure of the first response as the ingest reports its calls' failures: the endpoint named, the key never. */
function startError(error: unknown, endpoint: string, apiKey: string | undefined): unknown {
  if (error instanceof WireFormatError) return new StreamResponseError(endpoint, null, `a response is not a valid TransactionsResponse: ${error.message}`, { cause: error })
  const status = (error as { code?: unknown }).code
  if (typeof status !== 'number') return error
  const name = grpc.status[status] ?? String(status)
  const details = (error as grpc.ServiceError).details ?? ''
  const redacted = apiKey === undefined || apiKey === '' ? details : details.split(apiKey).join('<key>')
  if (status === grpc.status.UNAVAILABLE || status === grpc.status.RESOURCE_EXHAUSTED) return new StreamUnavailableError(endpoint, 1, `${name}: ${redacted}`)
  const refused = status === grpc.status.UNAUTHENTICATED || status === grpc.status.PERMISSION_DENIED
  return new StreamResponseError(endpoint, name, `${refused ? `the API key was refused (${name}); check --stream-api-key or LEDGER_GAS_STREAM_API_KEY` : `the call failed with ${name}`}: ${redacted}`)
}
