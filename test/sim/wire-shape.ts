/**
 * A strict checker of the node's block JSON as `src/ledger/types.ts` and the notes §3.7 describe
 * it: exact keys in the node's order (`type` last), u64 values as canonical decimal strings,
 * hashes `0x` + 64 hex, addresses in display form (leading zeros stripped), end info integers
 * as JSON numbers. Returns the problems found, each naming the path; empty means the block
 * conforms.
 */

const PREFIX = ['version', 'hash', 'state_change_hash', 'event_root_hash', 'state_checkpoint_hash', 'gas_used', 'success', 'vm_status', 'accumulator_root_hash', 'changes']

/** Keys of each transaction variant, in the node's order. */
export const VARIANT_KEYS: Readonly<Record<string, readonly string[]>> = {
  block_metadata_transaction: [...PREFIX, 'id', 'epoch', 'round', 'events', 'previous_block_votes_bitvec', 'proposer', 'failed_proposer_indices', 'timestamp', 'type'],
  user_transaction: [...PREFIX, 'sender', 'sequence_number', 'max_gas_amount', 'gas_unit_price', 'expiration_timestamp_secs', 'payload', 'signature', 'replay_protection_nonce', 'events', 'timestamp', 'type'],
  block_epilogue_transaction: [...PREFIX, 'timestamp', 'block_end_info', 'type'],
  state_checkpoint_transaction: [...PREFIX, 'timestamp', 'type'],
}

const BLOCK_KEYS = ['block_height', 'block_hash', 'block_timestamp', 'first_version', 'last_version', 'transactions']
const U64_MAX = 18446744073709551615n
const HASH = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x(0|[1-9a-f][0-9a-f]{0,63})$/
const ENTRY_FUNCTION = /^0x(0|[1-9a-f][0-9a-f]{0,63})::[a-z_][a-z0-9_]*::[a-z_][a-z0-9_]*$/

type Obj = Record<string, unknown>

export function checkBlockShape(block: unknown): string[] {
  const problems: string[] = []
  const fail = (path: string, message: string): undefined => {
    problems.push(`${path}: ${message}`)
    return undefined
  }
  const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
  const keys = (v: unknown, path: string, expected: readonly string[]): v is Obj => {
    if (!isObj(v)) {
      fail(path, `not an object: ${JSON.stringify(v)}`)
      return false
    }
    const actual = Object.keys(v)
    if (actual.join(',') !== expected.join(',')) fail(path, `keys [${actual.join(', ')}], expected [${expected.join(', ')}]`)
    return true
  }
  const u64 = (v: unknown, path: string) => {
    if (typeof v !== 'string' || !/^(0|[1-9][0-9]*)$/.test(v) || BigInt(v) > U64_MAX) fail(path, `not a u64 string: ${JSON.stringify(v)}`)
  }
  const hash = (v: unknown, path: string) => {
    if (typeof v !== 'string' || !HASH.test(v)) fail(path, `not a 32-byte hash: ${JSON.stringify(v)}`)
  }
  const hex = (v: unknown, path: string, bytes: number) => {
    if (typeof v !== 'string' || !new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`).test(v)) fail(path, `not ${bytes} hex bytes: ${JSON.stringify(v)}`)
  }
  const address = (v: unknown, path: string) => {
    if (typeof v !== 'string' || !ADDRESS.test(v)) fail(path, `not a display-form address: ${JSON.stringify(v)}`)
  }
  const integers = (v: unknown, path: string, max: number) => {
    if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x) && x >= 0 && x <= max)) fail(path, `not an array of integers 0..${max}: ${JSON.stringify(v)}`)
  }
  const events = (v: unknown, path: string) => {
    if (!Array.isArray(v)) return fail(path, 'not an array')
    v.forEach((e, i) => {
      const at = `${path}[${i}]`
      if (!keys(e, at, ['guid', 'sequence_number', 'type', 'data'])) return
      if (keys(e.guid, `${at}.guid`, ['creation_number', 'account_address'])) {
        u64((e.guid as Obj).creation_number, `${at}.guid.creation_number`)
        address((e.guid as Obj).account_address, `${at}.guid.account_address`)
      }
      u64(e.sequence_number, `${at}.sequence_number`)
      if (typeof e.type !== 'string') fail(`${at}.type`, 'not a string')
    })
  }

  if (!keys(block, '(block)', BLOCK_KEYS)) return problems
  for (const k of ['block_height', 'block_timestamp', 'first_version', 'last_version']) u64(block[k], k)
  hash(block.block_hash, 'block_hash')
  if (!Array.isArray(block.transactions)) return [...problems, 'transactions: not an array']
  block.transactions.forEach((t, i) => {
    const at = `transactions[${i}]`
    const type = isObj(t) ? t.type : undefined
    const expected = typeof type === 'string' ? VARIANT_KEYS[type] : undefined
    if (expected === undefined) return fail(`${at}.type`, `unexpected variant ${JSON.stringify(type)}`)
    if (!keys(t, at, expected)) return
    u64(t.version, `${at}.version`)
    for (const k of ['hash', 'state_change_hash', 'event_root_hash', 'accumulator_root_hash']) hash(t[k], `${at}.${k}`)
    if (t.state_checkpoint_hash !== null) hash(t.state_checkpoint_hash, `${at}.state_checkpoint_hash`)
    u64(t.gas_used, `${at}.gas_used`)
    if (typeof t.success !== 'boolean') fail(`${at}.success`, 'not a boolean')
    if (typeof t.vm_status !== 'string') fail(`${at}.vm_status`, 'not a string')
    if (!Array.isArray(t.changes)) fail(`${at}.changes`, 'not an array')
    u64(t.timestamp, `${at}.timestamp`)
    switch (type) {
      case 'block_metadata_transaction':
        hash(t.id, `${at}.id`)
        u64(t.epoch, `${at}.epoch`)
        u64(t.round, `${at}.round`)
        events(t.events, `${at}.events`)
        integers(t.previous_block_votes_bitvec, `${at}.previous_block_votes_bitvec`, 255)
        address(t.proposer, `${at}.proposer`)
        integers(t.failed_proposer_indices, `${at}.failed_proposer_indices`, 2 ** 32 - 1)
        break
      case 'user_transaction': {
        address(t.sender, `${at}.sender`)
        for (const k of ['sequence_number', 'max_gas_amount', 'gas_unit_price', 'expiration_timestamp_secs']) u64(t[k], `${at}.${k}`)
        if (keys(t.payload, `${at}.payload`, ['function', 'type_arguments', 'arguments', 'type'])) {
          const p = t.payload as Obj
          if (p.type !== 'entry_function_payload') fail(`${at}.payload.type`, JSON.stringify(p.type))
          if (typeof p.function !== 'string' || !ENTRY_FUNCTION.test(p.function)) fail(`${at}.payload.function`, JSON.stringify(p.function))
          if (!Array.isArray(p.type_arguments) || !p.type_arguments.every((x) => typeof x === 'string')) fail(`${at}.payload.type_arguments`, 'not an array of strings')
          if (!Array.isArray(p.arguments)) fail(`${at}.payload.arguments`, 'not an array')
        }
        if (keys(t.signature, `${at}.signature`, ['public_key', 'signature', 'type'])) {
          const s = t.signature as Obj
          hex(s.public_key, `${at}.signature.public_key`, 32)
          hex(s.signature, `${at}.signature.signature`, 64)
          if (s.type !== 'ed25519_signature') fail(`${at}.signature.type`, JSON.stringify(s.type))
        }
        if (t.replay_protection_nonce !== null) u64(t.replay_protection_nonce, `${at}.replay_protection_nonce`)
        events(t.events, `${at}.events`)
        break
      }
      case 'block_epilogue_transaction':
        if (t.block_end_info !== null && keys(t.block_end_info, `${at}.block_end_info`, ['block_gas_limit_reached', 'block_output_limit_reached', 'block_effective_block_gas_units', 'block_approx_output_size'])) {
          const e = t.block_end_info as Obj
          for (const k of ['block_gas_limit_reached', 'block_output_limit_reached']) if (typeof e[k] !== 'boolean') fail(`${at}.block_end_info.${k}`, 'not a boolean')
          for (const k of ['block_effective_block_gas_units', 'block_approx_output_size']) if (!Number.isSafeInteger(e[k]) || (e[k] as number) < 0) fail(`${at}.block_end_info.${k}`, `not a JSON integer: ${JSON.stringify(e[k])}`)
        }
        break
    }
  })
  return problems
}
