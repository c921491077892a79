import { ref, type Schema } from '../schema/ref.js'

/** The response map of a route schema: the 200 body and the spec error object for each error status. */
export function responses(ok: Schema, errorStatuses: readonly number[]): Record<number, Schema> {
  const out: Record<number, Schema> = { 200: ok }
  for (const status of errorStatuses) out[status] = ref('AptosError')
  return out
}
