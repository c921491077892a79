/**
 * `ledger-gas/server`: the Chain Ledger Read API (Fastify) and the ledger stores it serves.
 * Kept apart from the main entry so engine users do not load Fastify, better-sqlite3 or pg.
 * @module
 */
export * from './api/index.js'
export type { BatchAppendResult, BatchAppendStore, LedgerInfo, LedgerStore, MaybePromise } from './ledger/store/store.js'
export type { MemoryStoreOptions } from './ledger/memory-store.js'
export { MemoryStore } from './ledger/memory-store.js'
export type { StoreOptions } from './ledger/store/store-options.js'
export { DEFAULT_CHAIN_ID } from './ledger/store/store-options.js'
export type { SqliteStoreOptions } from './ledger/sqlite/sqlite-store.js'
export { SqliteStore } from './ledger/sqlite/sqlite-store.js'
export { LedgerDatabaseError, LedgerUnavailableError } from './ledger/store/database-error.js'
export type { PgStoreOptions } from './ledger/postgres/pg-store.js'
export { PgStore } from './ledger/postgres/pg-store.js'
export type { WatchOptions } from './ledger/postgres/pg-watch.js'
export type { LoadOptions } from './ledger/read/load.js'
export { loadJsonLines } from './ledger/read/load.js'
export type { IngestOptions, IngestSummary } from './ledger/ingest.js'
export { ingestJsonLines } from './ledger/ingest.js'
