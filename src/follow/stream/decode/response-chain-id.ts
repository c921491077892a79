import { WireReader } from './wire-reader.js'

/**
 * The `chain_id` (field 2, varint) of a `TransactionsResponse`'s wire bytes, read without
 * decoding its transactions (each skipped by its length): the last one when sent twice, as
 * protobuf merges it; `undefined` when absent. O(fields of the response), not of its bytes.
 *
 * @throws WireFormatError for bytes that are not a message.
 */
export function responseChainId(bytes: Uint8Array): string | undefined {
  const r = new WireReader(bytes)
  const end = r.length
  let chainId: string | undefined
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((2 << 3) | 0)) chainId = r.uint64String(end)
    else r.skip(tag, end)
  }
  return chainId
}
