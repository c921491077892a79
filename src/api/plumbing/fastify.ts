import { createRequire } from 'node:module'

/**
 * Fastify's factory, loaded by `require`. Fastify is CommonJS, and an `import` of it first runs
 * Node's CommonJS export lexer over its source, long enough that V8 compiles the lexer on its
 * helper threads, which a server start on two cores waits for. A missing package still fails
 * the import of the server: `fastify-plugin` (`conventions.ts`) is imported, so it is resolved
 * before any module runs, and the error names it.
 */
export const Fastify = createRequire(import.meta.url)('fastify') as typeof import('fastify').default
