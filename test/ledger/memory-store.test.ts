import { MemoryStore } from '../../src/ledger/memory-store.js'
import { describeStoreContract } from './store-contract.js'

describeStoreContract('MemoryStore', (options) => new MemoryStore(options))
