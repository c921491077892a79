/**
 * ledger-gas: an Aptos-compatible gas-price estimation engine and the ledger layer that feeds it.
 * @module
 */
export * from './core/index.js'
export { isSpecialAddress, parseAddress, toShortAddress } from './ledger/store/address.js'
export { InvalidDataError, LedgerContinuityError } from './ledger/store/errors.js'
export type { LedgerErrorCode } from './ledger/store/errors.js'
export type { Line, LineOptions } from './ledger/read/lines.js'
export { readLines } from './ledger/read/lines.js'
export type { BlockLine } from './ledger/read/read-blocks.js'
export { readBlocks, toBlockInput } from './ledger/read/read-blocks.js'
export type { ParsedBlock } from './ledger/store/parse-block.js'
export { parseBlockJson } from './ledger/store/parse-block.js'
export type { LedgerInfo, LedgerStore, MaybePromise } from './ledger/store/store.js'
export type * from './ledger/store/types.js'
