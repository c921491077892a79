/** A schema object of OpenAPI 3.0 (a JSON Schema dialect with `nullable` and `discriminator`). */
export type Schema = Readonly<Record<string, unknown>>

/** Reference to a named component schema of the served OpenAPI document. */
export function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` }
}

/** An object schema; `required` lists the keys that must be present. */
export function object(properties: Record<string, Schema>, required: readonly string[] = [], extra: Schema = {}): Schema {
  return { type: 'object', required: [...required], properties, ...extra }
}

/**
 * One variant of a tagged union: the tag property fixed to `tag`, plus the variant's fields.
 * Written flat (not `allOf`) so validators can use the `discriminator`.
 */
export function variant(tagName: string, tag: string, properties: Record<string, Schema>, required: readonly string[]): Schema {
  return object({ [tagName]: { type: 'string', enum: [tag] }, ...properties }, [tagName, ...required])
}

/** A union discriminated by `tagName`, over named component variants. */
export function union(tagName: string, variants: readonly string[], description?: string): Schema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    oneOf: variants.map(ref),
    discriminator: { propertyName: tagName },
  }
}

/**
 * The same schema, also allowing `null` (the node writes absent optional values as `null`; its
 * generated document omits `nullable`). Takes an inline schema with a `type`, not a `$ref`,
 * because OpenAPI 3.0's `nullable` only widens the `type` beside it.
 */
export function nullable(schema: Schema): Schema {
  if (!('type' in schema)) throw new TypeError('nullable() needs an inline schema with a type')
  return { ...schema, nullable: true }
}
