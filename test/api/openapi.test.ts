import { describe, expect, it } from 'vitest'
import { ChainBuilder } from '../helpers/chain-builder.js'
import { validatorOf } from '../helpers/api-schemas.js'
import { get, serverOf } from '../helpers/api-server.js'

type Doc = {
  openapi: string
  servers: { url: string }[]
  paths: Record<string, Record<string, { operationId: string; parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[]; responses: Record<string, { headers: Record<string, { required: boolean }>; content: Record<string, { schema: unknown }> }> }>>
  components: { schemas: Record<string, unknown> }
}

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out)
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v)
      else refs(v, out)
    }
  }
  return out
}

describe('GET /v1/spec.json', () => {
  it('documents every route from its route schema, with parameters, statuses and ledger headers', async () => {
    const server = await serverOf(new ChainBuilder().blocks(1), { headerPrefix: 'X-APTOS-' })
    const res = await get(server, '/v1/spec.json')
    expect(res.statusCode).toBe(200)
    const doc = res.json() as Doc
    expect(doc.openapi).toBe('3.0.3')
    expect(doc.servers).toEqual([{ url: '/v1' }])
    const ops = Object.fromEntries(Object.entries(doc.paths).map(([p, item]) => [p, item.get?.operationId]))
    expect(ops).toEqual({
      '/': 'get_ledger_info',
      '/accounts/{address}/transactions': 'get_account_transactions',
      '/blocks/by_height/{block_height}': 'get_block_by_height',
      '/estimate_gas_price': 'estimate_gas_price',
      '/spec.json': 'spec',
      '/transactions/by_version/{txn_version}': 'get_transaction_by_version',
      '/gas/estimate': 'get_gas_estimate',
      '/gas/explain': 'get_gas_explain',
      '/gas/history': 'get_gas_history',
      '/gas/inclusion': 'get_gas_inclusion',
      '/gas/price': 'get_gas_price',
      '/gas/stream': 'get_gas_stream',
      '/-/healthy': 'healthy',
    })
    // The routes that speak BCS say so; the others offer JSON only.
    const types = (path: string) => Object.keys((doc.paths[path]?.get as unknown as { responses: Record<string, { content: object }> }).responses['200']?.content ?? {})
    expect(types('/estimate_gas_price')).toEqual(['application/json', 'application/x-bcs'])
    expect(types('/-/healthy')).toEqual(['application/json', 'application/x-bcs'])
    expect(types('/gas/estimate')).toEqual(['application/json'])
    const params = (path: string) => doc.paths[path]?.get?.parameters.map((p) => [p.name, p.in, p.required, p.schema.type, p.schema.minimum, p.schema.maximum])
    expect(params('/gas/inclusion')).toEqual([
      ['price', 'query', true, 'string', undefined, undefined],
      ['k', 'query', true, 'integer', 1, 10000],
      ['kind', 'query', false, 'string', undefined, undefined],
    ])
    expect(params('/gas/price')).toEqual([
      ['k', 'query', true, 'integer', 1, 10000],
      ['q', 'query', true, 'number', 0, 1],
      ['kind', 'query', false, 'string', undefined, undefined],
    ])
    expect(params('/gas/estimate')).toEqual([['kind', 'query', false, 'string', undefined, undefined]])
    expect(params('/gas/history')).toEqual([['blocks', 'query', false, 'integer', 1, 65535]])
    const gasSchemas = { '/gas/estimate': 'CalibratedGasEstimate', '/gas/inclusion': 'InclusionProbability', '/gas/price': 'PriceForInclusion', '/gas/explain': 'GasExplain' }
    for (const [path, name] of Object.entries(gasSchemas)) {
      const responses = doc.paths[path]?.get?.responses ?? {}
      expect(Object.keys(responses), path).toEqual(['200', '400', '403', '500', '503'])
      expect(responses['200']?.content['application/json']?.schema).toEqual({ $ref: `#/components/schemas/${name}` })
      expect(responses['200']?.headers['X-APTOS-BLOCK-HEIGHT']?.required).toBe(true)
    }
    expect(doc.paths['/gas/history']?.get?.responses['200']?.content['application/json']?.schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/GasHistoryBlock' } })
    const account = doc.paths['/accounts/{address}/transactions']?.get
    expect(account?.parameters.map((p) => [p.name, p.in, p.required, p.schema.type, p.schema.format])).toEqual([
      ['address', 'path', true, 'string', 'hex'],
      ['start', 'query', false, 'string', 'uint64'],
      ['limit', 'query', false, 'integer', 'uint16'],
    ])
    expect(JSON.stringify(doc)).not.toContain('x-parse')
    expect(Object.keys(account?.responses ?? {})).toEqual(['200', '400', '403', '404', '410', '500', '503'])
    expect(Object.keys(doc.paths['/estimate_gas_price']?.get?.responses ?? {})).toEqual(['200', '400', '403', '404', '500', '503'])
    expect(account?.responses['200']?.headers['X-APTOS-LEDGER-VERSION']?.required).toBe(true)
    expect(account?.responses['410']?.headers['X-APTOS-LEDGER-VERSION']?.required).toBe(false)
    expect(Object.keys(account?.responses['200']?.headers ?? {})).toHaveLength(7)
  })

  it('resolves every $ref to a component, and every component compiles', async () => {
    const server = await serverOf(new ChainBuilder().blocks(1))
    const doc = (await get(server, '/v1/spec.json')).json() as Doc
    for (const r of refs(doc)) {
      expect(r).toMatch(/^#\/components\/schemas\//)
      expect(doc.components.schemas[r.slice('#/components/schemas/'.length)]).toBeDefined()
    }
    for (const name of Object.keys(doc.components.schemas)) expect(typeof validatorOf(name)).toBe('function')
  })
})

describe('the response schemas', () => {
  const txn = () => ({
    type: 'user_transaction',
    version: '1',
    hash: `0x${'a'.repeat(64)}`,
    state_change_hash: `0x${'b'.repeat(64)}`,
    event_root_hash: `0x${'c'.repeat(64)}`,
    state_checkpoint_hash: null,
    gas_used: '9',
    success: true,
    vm_status: 'Executed successfully',
    accumulator_root_hash: `0x${'d'.repeat(64)}`,
    changes: [],
    sender: '0x1',
    sequence_number: '0',
    max_gas_amount: '200000',
    gas_unit_price: '100',
    expiration_timestamp_secs: '1700000600',
    payload: { type: 'entry_function_payload', function: '0x1::coin::transfer', type_arguments: [], arguments: [] },
    signature: { type: 'ed25519_signature', public_key: `0x${'1'.repeat(64)}`, signature: `0x${'2'.repeat(128)}` },
    replay_protection_nonce: null,
    events: [],
    timestamp: '1700000000000000',
  })

  it('accept a node-shaped user transaction and reject what the node would never send', () => {
    const v = validatorOf('Transaction')
    expect(v(txn())).toBe(true)
    const broken: [string, (t: Record<string, unknown>) => void][] = [
      ['u64 as a JSON number', (t) => (t.gas_unit_price = 100)],
      ['u64 above 2^64-1', (t) => (t.version = '18446744073709551616')],
      ['missing sender', (t) => delete t.sender],
      ['unknown type', (t) => (t.type = 'mystery_transaction')],
      ['bad signature variant', (t) => (t.signature = { type: 'ed25519_signature' })],
      ['bad hash', (t) => (t.hash = '0x12')],
    ]
    for (const [why, breakIt] of broken) {
      const t = txn() as Record<string, unknown>
      breakIt(t)
      expect(v(t), why).toBe(false)
    }
  })

  it('accept only the spec’s error codes and integer gas estimates', () => {
    expect(validatorOf('AptosError')({ message: 'x', error_code: 'version_pruned' })).toBe(true)
    expect(validatorOf('AptosError')({ message: 'x', error_code: 'rate_limited' })).toBe(false)
    expect(validatorOf('AptosError')({ message: 'x' })).toBe(false)
    expect(validatorOf('GasEstimation')({ gas_estimate: 100, deprioritized_gas_estimate: 100, prioritized_gas_estimate: 150 })).toBe(true)
    expect(validatorOf('GasEstimation')({ gas_estimate: '100' })).toBe(false)
    expect(validatorOf('GasEstimation')({ gas_estimate: 1.5 })).toBe(false)
  })
})
