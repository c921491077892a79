/**
 * Following a node over HTTP: the engine fed from `GET /blocks/by_height/{h}`, kept current by
 * polling, with retries, backoff and skips of what the node no longer has.
 * @module
 */
export type { RetryPolicy } from './backoff.js'
export { DEFAULT_RETRY_POLICY, backoffDelay } from './backoff.js'
export { NodeResponseError, NodeUnavailableError } from './errors.js'
export type { EstimateUpdate, FollowEvent, RetryEvent, SkipReason } from './events.js'
export { formatFollowEvent } from './events.js'
export type { Follower, FollowModeTypes } from './follow-node.js'
export type { FollowMode, FollowOptions } from './follow-options.js'
export { followNode } from './follow-node.js'
export type { IngestNodeOptions, IngestNodeSummary } from './ingest-node.js'
export { ingestFromNode } from './ingest-node.js'
export { DEFAULT_HEADER_PREFIXES } from './ledger-info.js'
export { parseRetryAfter } from './retry-after.js'
export type { IngestStreamOptions, IngestStreamSummary, StreamAppend, StreamRetry } from './stream/ingest-stream.js'
export { StreamChainError, StreamResponseError, StreamUnavailableError } from './stream/errors.js'
export { ingestFromStream } from './stream-source.js'
