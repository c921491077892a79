import type { U64 } from '../../src/core/u64.js'
import type { LedgerInfo, LedgerStore, MaybePromise } from '../../src/ledger/store/store.js'
import type { BlockJson, TransactionJson } from '../../src/ledger/store/types.js'

/** The read methods of a store. */
export type ReadMethod = 'ledgerInfo' | 'transactionByVersion' | 'accountTransactions' | 'accountSequenceNumber' | 'blockByHeight'
export const READ_METHODS: readonly ReadMethod[] = ['ledgerInfo', 'transactionByVersion', 'accountTransactions', 'accountSequenceNumber', 'blockByHeight']

/**
 * How a read misbehaves: throw (synchronously), reject (asynchronously), hang (a promise that
 * never settles), answer garbage (`value(args, inner answer)`), or answer right but late.
 */
export type Fault =
  | { kind: 'throw' }
  | { kind: 'reject' }
  | { kind: 'hang' }
  | { kind: 'garbage'; value: (args: unknown[], right: unknown) => unknown }
  | { kind: 'delay'; ms: number }

/** Carries internals a server must never show a client. */
export const SECRET = 'SECRET /var/lib/ledger.db: disk I/O error at page 7'

/**
 * A store wrapper whose reads can be made to fail in the ways a real backend fails; `heal()`
 * puts everything back. `calls` counts reads per method (to fail the n-th one, see `failAfter`).
 */
export class FaultStore implements LedgerStore {
  readonly faults: Partial<Record<ReadMethod, Fault>> = {}
  readonly calls: Record<ReadMethod, number> = { ledgerInfo: 0, transactionByVersion: 0, accountTransactions: 0, accountSequenceNumber: 0, blockByHeight: 0 }
  /** Reads of a method allowed before its fault applies (default 0: at once). */
  readonly failAfter: Partial<Record<ReadMethod, number>> = {}
  /** Hanging reads not settled yet (they never will be). */
  hanging = 0

  constructor(readonly inner: LedgerStore) {}

  set(method: ReadMethod, fault: Fault): this {
    this.faults[method] = fault
    return this
  }

  heal(): void {
    for (const m of READ_METHODS) delete this.faults[m]
    for (const m of READ_METHODS) delete this.failAfter[m]
  }

  private read<T>(method: ReadMethod, args: unknown[], right: () => MaybePromise<T>): MaybePromise<T> {
    const n = this.calls[method]++
    const fault = this.faults[method]
    if (fault === undefined || n < (this.failAfter[method] ?? 0)) return right()
    switch (fault.kind) {
      case 'throw':
        throw new Error(SECRET)
      case 'reject':
        return Promise.reject(new Error(SECRET))
      case 'hang':
        this.hanging++
        return new Promise<T>(() => {})
      case 'garbage':
        return fault.value(args, right()) as T
      case 'delay':
        return new Promise<T>((resolve) => setTimeout(() => resolve(right() as T), fault.ms))
    }
  }

  ledgerInfo(): MaybePromise<LedgerInfo | null> {
    return this.read('ledgerInfo', [], () => this.inner.ledgerInfo())
  }
  transactionByVersion(version: U64): MaybePromise<TransactionJson | null> {
    return this.read('transactionByVersion', [version], () => this.inner.transactionByVersion(version))
  }
  accountTransactions(address: string, start: U64, limit: number): MaybePromise<TransactionJson[]> {
    return this.read('accountTransactions', [address, start, limit], () => this.inner.accountTransactions(address, start, limit))
  }
  accountSequenceNumber(address: string): MaybePromise<U64> {
    return this.read('accountSequenceNumber', [address], () => this.inner.accountSequenceNumber(address))
  }
  blockByHeight(height: U64, withTransactions: boolean): MaybePromise<BlockJson | null> {
    return this.read('blockByHeight', [height, withTransactions], () => this.inner.blockByHeight(height, withTransactions))
  }
  appendBlock(block: BlockJson): MaybePromise<void> {
    return this.inner.appendBlock(block)
  }
  pruneBelow(version: U64): MaybePromise<void> {
    return this.inner.pruneBelow(version)
  }
  close(): MaybePromise<void> {
    return this.inner.close()
  }
}
