import * as grpc from '@grpc/grpc-js'
import { StreamClient } from './client.js'
import { parseStreamEndpoint } from './endpoint.js'
import { StreamResponseError, StreamUnavailableError } from './errors.js'

/**
 * The chain id a stream serves, read from the first response of a one-transaction call (from
 * `startingVersion`, or the stream's newest), so a new ledger can be created with it before
 * anything is written. `null` when the stream sends no chain id.
 *
 * @throws StreamResponseError (a refused key names the endpoint, never the key), StreamUnavailableError.
 */
export async function probeChainId(endpoint: string, apiKey: string | undefined, startingVersion?: bigint | undefined): Promise<number | null> {
  const e = parseStreamEndpoint(endpoint)
  const client = new StreamClient(e, apiKey)
  const call = client.getTransactions({ startingVersion, transactionsCount: 1n, batchSize: 1n })
  try {
    for await (const response of call.responses) return response.chainId === undefined ? null : Number(response.chainId)
    return null
  } catch (error) {
    const status = (error as { code?: unknown }).code
    if (typeof status !== 'number') throw error
    const name = grpc.status[status] ?? String(status)
    const details = (error as grpc.ServiceError).details ?? ''
    const redacted = apiKey === undefined || apiKey === '' ? details : details.split(apiKey).join('<key>')
    if (status === grpc.status.UNAVAILABLE || status === grpc.status.RESOURCE_EXHAUSTED) throw new StreamUnavailableError(e.url, 1, `${name}: ${redacted}`)
    const refused = status === grpc.status.UNAUTHENTICATED || status === grpc.status.PERMISSION_DENIED
    throw new StreamResponseError(e.url, name, `${refused ? `the API key was refused (${name}); check --stream-api-key or LEDGER_GAS_STREAM_API_KEY` : `the call failed with ${name}`}: ${redacted}`)
  } finally {
    call.cancel()
    client.close()
  }
}
