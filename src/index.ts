/**
 * ledger-gas: an Aptos-compatible gas-price estimation engine and the ledger layer that feeds it.
 * @module
 */
export * from './core/index.js'
export { isSpecialAddress, parseAddress, toShortAddress } from './ledger/address.js'
export { InvalidDataError, LedgerContinuityError } from './ledger/errors.js'
export type { Line, LineOptions } from './ledger/lines.js'
export { readLines } from './ledger/lines.js'
export type { BlockLine } from './ledger/read-blocks.js'
export { readBlocks, toBlockInput } from './ledger/read-blocks.js'
export type { ParsedBlock } from './ledger/parse-block.js'
export { parseBlockJson } from './ledger/parse-block.js'
export type { LedgerInfo, LedgerStore, MaybePromise } from './ledger/store.js'
export type * from './ledger/types.js'
