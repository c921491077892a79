/** Options of a ledger store. */
export interface StoreOptions {
  /** Chain id reported in the ledger info; default 4 (the id of a local testnet). */
  chainId?: number
  /** Most transactions a block may carry to be appended (default `DEFAULT_MAX_BLOCK_TRANSACTIONS`, 20,000). */
  maxBlockTransactions?: number
}

/** Default chain id: 4, what a local Aptos testnet reports. */
export const DEFAULT_CHAIN_ID = 4
