import { GAS_SCHEMAS } from './gas.js'
import { PRIMITIVES } from './primitives.js'
import type { Schema } from './ref.js'
import { RESPONSE_SCHEMAS } from './responses.js'
import { TRANSACTION_SCHEMAS } from './transaction.js'

/** Every named schema of the served OpenAPI document (`components.schemas`). */
export const COMPONENT_SCHEMAS: Readonly<Record<string, Schema>> = Object.freeze({ ...PRIMITIVES, ...TRANSACTION_SCHEMAS, ...RESPONSE_SCHEMAS, ...GAS_SCHEMAS })
