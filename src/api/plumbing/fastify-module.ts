import { createRequire } from 'node:module'
import { missingPackage } from '../../ledger/optional-peer.js'

// Fastify and fastify-plugin are CommonJS packages. Importing one from an ES module goes through
// Node's translation of CommonJS for ES modules, which made loading Fastify's dependency graph
// markedly slower than `require` in a fresh process, and the server pays it on every start
// before its first answer. `require` gives the same module object (an ES import's default export
// of a CommonJS module is its `module.exports`).
const requireFromHere = createRequire(import.meta.url)

/**
 * `require(pkg)`, or `undefined` when `pkg` is not installed: the caller then imports it, so a
 * missing package fails with the same error an ES import of it gives (which the CLI reports as a
 * missing dependency, and which library users have always seen).
 */
function requireInstalled(pkg: string): unknown {
  try {
    return requireFromHere(pkg)
  } catch (error) {
    if (missingPackage(error) === pkg) return undefined
    throw error
  }
}

const fastifyExports = (requireInstalled('fastify') ?? (await import('fastify'))) as typeof import('fastify')
const pluginExports = (requireInstalled('fastify-plugin') ?? (await import('fastify-plugin'))) as typeof import('fastify-plugin')

/**
 * Fastify's factory: the `fastify` package's `module.exports` (also its `fastify` and `default` exports).
 *
 * @example const app = fastify({ logger: false })
 */
export const fastify = fastifyExports.fastify

/**
 * fastify-plugin's wrapper, which lifts a plugin's hooks out of its encapsulation context: the
 * package's `module.exports` (also its `fastifyPlugin` and `default` exports).
 *
 * @example export const plugin = fastifyPlugin(install, { name: 'x' })
 */
export const fastifyPlugin = pluginExports.fastifyPlugin
