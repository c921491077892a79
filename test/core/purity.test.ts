import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = fileURLToPath(new URL('../../src/', import.meta.url))
const LAYERS = ['core', 'ledger', 'service', 'api', 'replay', 'sim', 'follow', 'cli'] as const
/** Which layers each layer may import (core → ledger → service → api / replay / sim / follow → cli). */
const ALLOWED: Record<string, string[]> = {
  core: ['core'],
  ledger: ['core', 'ledger'],
  service: ['core', 'ledger', 'service'],
  api: ['core', 'ledger', 'service', 'api'],
  replay: ['core', 'ledger', 'replay'],
  sim: ['core', 'ledger', 'sim'],
  follow: ['core', 'ledger', 'follow'],
  cli: ['core', 'ledger', 'service', 'api', 'replay', 'sim', 'follow', 'cli'],
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => `${d.parentPath ?? (d as unknown as { path: string }).path}/${d.name}`)
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!)
}

describe('layers', () => {
  it('src/core has no I/O, no node: modules, no runtime dependencies, no clock', () => {
    for (const f of files(`${SRC}core`)) {
      // only core's own modules: a relative path that stays inside src/core (no package, no node: module)
      for (const spec of imports(f)) expect(spec.startsWith('.') && new URL(spec, `file://${f}`).pathname.startsWith(`${SRC}core/`), `${f} imports ${spec}`).toBe(true)
      const text = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
      expect(/\b(Date\.now|new Date|performance\.now|Math\.random|process\.)/.test(text), `${f} uses a clock, randomness or process`).toBe(false)
    }
  })
  it.each(LAYERS)('src/%s imports only the layers below it, and nothing imports cli', (layer) => {
    for (const f of files(`${SRC}${layer}`)) {
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) continue
        const target = new URL(spec, `file://${f}`).pathname.slice(SRC.length).split('/')[0]!
        if (target === 'index.ts') continue
        expect(ALLOWED[layer], `${f} imports ${spec}`).toContain(target)
      }
    }
  })
})
