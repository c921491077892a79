import { createRequire } from 'node:module'

// Fastify and fastify-plugin are CommonJS packages. Importing them from an ES module makes Node
// translate each: it reads the entry a second time and runs its CommonJS export lexer over it,
// on every start of the server, before the first request can be answered. `require` loads the
// same module object (an ES import's default export of a CommonJS module is its
// `module.exports`) without the translation, and a missing package still fails with Node's
// "Cannot find module" error, which the CLI reports as a missing dependency.
const requireFromHere = createRequire(import.meta.url)

/**
 * Fastify's factory: the `fastify` package's `module.exports` (also its `fastify` and `default` exports).
 *
 * @example const app = fastify({ logger: false })
 */
export const fastify = (requireFromHere('fastify') as typeof import('fastify')).fastify

/**
 * fastify-plugin's wrapper, which lifts a plugin's hooks out of its encapsulation context: the
 * package's `module.exports` (also its `fastifyPlugin` and `default` exports).
 *
 * @example export const plugin = fastifyPlugin(install, { name: 'x' })
 */
export const fastifyPlugin = (requireFromHere('fastify-plugin') as typeof import('fastify-plugin')).fastifyPlugin
