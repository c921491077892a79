/**
 * `ledger-gas/server`: the Chain Ledger Read API (Fastify) and the ledger stores it serves.
 * Kept apart from the main entry so engine users do not load Fastify or better-sqlite3.
 * @module
 */
export * from './api/index.js'
export type { LedgerInfo, LedgerStore, MaybePromise } from './ledger/store.js'
export type { StoreOptions } from './ledger/memory-store.js'
export { DEFAULT_CHAIN_ID, MemoryStore } from './ledger/memory-store.js'
export type { SqliteStoreOptions } from './ledger/sqlite-store.js'
export { LedgerDatabaseError, SqliteStore } from './ledger/sqlite-store.js'
export type { LoadOptions } from './ledger/load.js'
export { loadJsonLines } from './ledger/load.js'
export type { IngestOptions, IngestSummary } from './ledger/ingest.js'
export { ingestJsonLines } from './ledger/ingest.js'
