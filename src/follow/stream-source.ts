import { MissingDependencyError, missingPackage } from '../ledger/optional-peer.js'
import type { IngestStreamOptions, IngestStreamSummary } from './stream/ingest-stream.js'

/** The optional peers the Transaction Stream source loads: gRPC and the protobuf runtime. */
const STREAM_PEERS = new Set(['@grpc/grpc-js', '@bufbuild/protobuf'])

/**
 * Fills `options.store` from the Aptos Transaction Stream (`aptos.indexer.v1.RawData/GetTransactions`):
 * see `./stream/ingest-stream.ts` for what it does. gRPC and the generated protobuf code are
 * imported on the first call, so `ledger-gas/follow` loads without those optional peers.
 *
 * @throws MissingDependencyError when `@grpc/grpc-js` or `@bufbuild/protobuf` is not installed.
 */
export async function ingestFromStream(options: IngestStreamOptions): Promise<IngestStreamSummary> {
  let source: typeof import('./stream/ingest-stream.js')
  try {
    source = await import('./stream/ingest-stream.js')
  } catch (error) {
    const pkg = missingPackage(error)
    if (pkg !== null && STREAM_PEERS.has(pkg)) throw new MissingDependencyError(pkg, 'the Transaction Stream source', { cause: error })
    throw error
  }
  return source.ingestFromStream(options)
}
