import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { docFiles, readDoc, ROOT } from './doc-blocks.js'

// A doc that names a file of the repository (`src/api/error-map.ts`, `test/core/…`) names one
// that exists, so a move or a rename cannot leave the docs pointing at nothing.

describe('files the README and docs/ name exist', () => {
  for (const file of docFiles()) {
    it(file, () => {
      const named = [...readDoc(file).matchAll(/`((?:src|test|bench|data)\/[\w./-]+)`/g)].map((m) => (m[1] as string).replace(/\/$/, ''))
      expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([])
    })
  }
})

describe('the README stays a front page', () => {
  it('is at most 350 lines; the rest lives in docs/', () => {
    expect(readDoc('README.md').split('\n').length).toBeLessThanOrEqual(350)
  })
})
