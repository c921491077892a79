/** What a request asked to receive: JSON (the default) or BCS. */
export type AcceptType = 'json' | 'bcs'

const JSON_MIME = 'application/json'
const BCS_MIME = 'application/x-bcs'

/**
 * The node's `parse_accept` (api/src/accept_type.rs): of the `Accept` media ranges, by
 * descending `q` (header order among equals), the first that is exactly `application/json` or
 * `application/x-bcs` decides; none of them (or no header, or only `*\/*`) → JSON. A range with
 * `q=0` is refused, so it never decides.
 *
 * @example acceptTypeOf('application/x-bcs, application/json;q=0.5') // 'bcs'
 */
export function acceptTypeOf(header: string | undefined): AcceptType {
  // Most requests name no BCS at all: one scan and done.
  if (header === undefined || !header.toLowerCase().includes(BCS_MIME)) return 'json'
  const ranges = header.split(',').map((part, index) => {
    const [type = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    return { type, weight: Number.isFinite(weight) ? weight : 0, index }
  })
  ranges.sort((a, b) => b.weight - a.weight || a.index - b.index)
  for (const r of ranges) {
    if (r.weight <= 0) continue
    if (r.type === JSON_MIME) return 'json'
    if (r.type === BCS_MIME) return 'bcs'
  }
  return 'json'
}
