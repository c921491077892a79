import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The package root: the nearest directory above this module whose package.json is ledger-gas's
 * (the same from src/ under tsx and from a dist/ chunk of an installed package), not the working
 * directory.
 */
export function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && readManifest(manifest).name === 'ledger-gas') return dir
    const up = dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** The `version` of ledger-gas's package.json, or undefined when no package root is found. */
export function packageVersion(root = packageRoot()): string | undefined {
  return root === undefined ? undefined : readManifest(join(root, 'package.json')).version
}

function readManifest(path: string): { name?: string; version?: string } {
  return JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string }
}

/** The commit of the package's checkout, when it is one (`git_hash` of `GET /v1`). */
export function gitHash(root: string | undefined): string | undefined {
  if (root === undefined) return undefined
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim()
    if (!head.startsWith('ref: ')) return /^[0-9a-f]{40}$/.test(head) ? head : undefined
    const ref = head.slice(5)
    const loose = join(root, '.git', ref)
    if (existsSync(loose)) return readFileSync(loose, 'utf8').trim()
    const packed = readFileSync(join(root, '.git', 'packed-refs'), 'utf8')
    return packed.split('\n').find((l) => l.endsWith(` ${ref}`))?.slice(0, 40)
  } catch {
    return undefined
  }
}
