/**
 * The Aptos Transaction Stream (`aptos.indexer.v1.RawData/GetTransactions`) as a ledger source:
 * the client and ingest, the proto -> node JSON conversion, and a local server for tests and
 * benchmarks.
 * @module
 */
export { BlockAssembler } from './assemble-blocks.js'
export { transactionJson } from './convert/transaction.js'
export { transactionProtoJson } from './convert/to-proto.js'
export { encodeChain, type EncodedChain } from './encode-chain.js'
export { parseStreamEndpoint, type StreamEndpoint } from './endpoint.js'
export { StreamChainError, StreamResponseError, StreamUnavailableError } from './errors.js'
export { ingestFromStream, type IngestStreamOptions, type IngestStreamSummary, type StreamAppend, type StreamRetry } from './ingest-stream.js'
export { startStreamServer, type ResponseSlot, type StreamFault, type StreamServer, type StreamServerOptions } from './stream-server.js'
