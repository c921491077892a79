import { Ajv, type ValidateFunction } from 'ajv'
import { expect } from 'vitest'
import { ERROR_CODES } from '../../src/api/plumbing/error-map.js'
import { COMPONENT_SCHEMAS } from '../../src/api/schema/components.js'

const U64_MAX = 18446744073709551615n

/**
 * Ajv over the API's OpenAPI 3.0 component schemas (`nullable` and `discriminator` understood,
 * OpenAPI's formats checked), so a test can say "this body is a `Transaction`".
 */
const ajv = new Ajv({ discriminator: true, strict: true, allErrors: true, keywords: ['example', 'components'] })
ajv.addFormat('uint64', { type: 'string', validate: (s: string) => /^(0|[1-9][0-9]{0,19})$/.test(s) && BigInt(s) <= U64_MAX })
ajv.addFormat('hex', { type: 'string', validate: (s: string) => /^(0x)?[0-9a-fA-F]*$/.test(s) })
for (const [name, max] of [['uint8', 255], ['uint16', 65535], ['uint32', 4294967295]] as const) {
  ajv.addFormat(name, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= max })
}
ajv.addSchema({ $id: 'api', components: { schemas: COMPONENT_SCHEMAS } })

const compiled = new Map<string, ValidateFunction>()

/** The validator of a named component schema, or of `array<name>` with `[]` appended. */
export function validatorOf(name: string): ValidateFunction {
  let v = compiled.get(name)
  if (v === undefined) {
    const schema = name.endsWith('[]')
      ? { type: 'array', items: { $ref: `api#/components/schemas/${name.slice(0, -2)}` } }
      : { $ref: `api#/components/schemas/${name}` }
    v = ajv.compile(schema)
    compiled.set(name, v)
  }
  return v
}

/** Asserts that `body` is valid against the named schema, showing Ajv's errors when not. */
export function expectSchema(name: string, body: unknown): void {
  const validate = validatorOf(name)
  const ok = validate(body)
  expect(ok ? null : { schema: name, errors: validate.errors }).toBeNull()
}

/** Asserts an error response: the status, the spec's error object with an allowed code, JSON. */
export function expectError(res: { statusCode: number; headers: Record<string, unknown>; body: string }, status: number, error_code: string): { message: string; error_code: string } {
  expect(res.statusCode).toBe(status)
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/)
  const body = JSON.parse(res.body) as { message: string; error_code: string }
  expectSchema('AptosError', body)
  expect(ERROR_CODES).toContain(body.error_code)
  expect(body.error_code).toBe(error_code)
  return body
}
