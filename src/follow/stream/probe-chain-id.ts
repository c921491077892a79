import { startStream } from './stream-start.js'

/**
 * The chain id a stream serves, read from the first response of a one-transaction call (at the
 * stream's newest block), for a caller that needs it and does not ingest
 * (`serve --follow-stream` into memory names the chain before it serves). An ingest takes it
 * from its own first call instead (`startStream`). `null` when the stream sends no chain id.
 *
 * @throws StreamResponseError (a refused key names the endpoint, never the key), StreamUnavailableError.
 */
export async function probeChainId(endpoint: string, apiKey: string | undefined): Promise<number | null> {
  const start = await startStream(endpoint, { apiKey, transactionsCount: 1n, batchSize: 1n })
  start.close()
  return start.chainId
}
