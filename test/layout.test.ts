import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The shape of src/ that issue 22 set, held so it cannot drift back: files small enough to read,
// folders small enough to scan, no state hidden in modules, imports without circles. Each test
// names every offender at once, so a failure reads as a to-do list. The layers (core imports
// nothing above it, nothing imports cli) are held by test/core/purity.test.ts.

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

/** A hand-written file past this many lines is usually two concepts (docs/architecture.md). */
const MAX_LINES = 400
/** A folder past this many files is a hall, not a room: split it by concern. */
const MAX_FILES = 20

/**
 * Exempt from MAX_LINES: protoc-gen-es output (`npm run proto:gen`), never edited by hand;
 * test/follow/stream/gen.test.ts holds it equal to a fresh `buf generate`.
 */
const GENERATED = 'follow/stream/gen/'

/**
 * Module-level `let`s allowed, each with why the value must outlive a call. Anything else that a
 * call leaves for the next belongs to an object the caller owns.
 */
const MODULE_LETS: Record<string, string> = {
  // The id sequence is per process on purpose: two servers in one process must not hand out the
  // same request id, and the counter is the whole state (no buffer, no result read back later).
  'api/plumbing/request-id.ts counter': 'a per-process request-id sequence',
  // The live page's browser script: the module is the page, loaded once per page view, so its
  // module state is the page's state (one refresh in flight, polling started once).
  'api/live-page/browser/main.ts refreshing': 'the page script: one refresh in flight per page',
  'api/live-page/browser/main.ts polling': 'the page script: polling starts once per page',
}

/**
 * The one circle allowed: src/core's sliding-window implementations and the interface they
 * implement name each other's types. It is type-only (`import type`), so no module waits on
 * another's evaluation; any circle of runtime imports fails.
 */
const CORE = 'core/'

interface Dir {
  path: string
  files: string[]
}

function walk(dir: string, out: Dir[] = []): Dir[] {
  const entries = readdirSync(dir, { withFileTypes: true })
  out.push({ path: dir, files: entries.filter((e) => e.isFile()).map((e) => e.name) })
  for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name), out)
  return out
}

const DIRS = walk(SRC)
/** Every TypeScript file under src/, as a path relative to src/ (`api/server.ts`). */
const FILES = DIRS.flatMap((d) => d.files.filter((f) => f.endsWith('.ts')).map((f) => relative(SRC, join(d.path, f))))
const SOURCES = new Map(FILES.map((f) => [f, ts.createSourceFile(f, readFileSync(join(SRC, f), 'utf8'), ts.ScriptTarget.ES2022, true)]))

function lineCount(text: string): number {
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Top-level `let`/`var` declarations of a file: `{ name, exported }`. */
function moduleLets(source: ts.SourceFile): { name: string; exported: boolean }[] {
  const found: { name: string; exported: boolean }[] = []
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue
    if ((statement.declarationList.flags & ts.NodeFlags.BlockScoped) === ts.NodeFlags.Const) continue
    if ((statement.declarationList.flags & (ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing)) !== 0) continue
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false
    for (const d of statement.declarationList.declarations) found.push({ name: d.name.getText(source), exported })
  }
  return found
}

/**
 * The files under src/ a file imports at run time: static imports and re-exports that are not
 * `import type` / `export type`, and dynamic `import()`s with a literal path. Under
 * `verbatimModuleSyntax` an `import { type A }` still loads its module, so it counts.
 */
function runtimeImports(file: string, source: ts.SourceFile): string[] {
  const specs: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text)
    else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteralLike(node.arguments[0])) specs.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return specs.filter((s) => s.startsWith('.')).map((s) => resolveImport(file, s))
}

function resolveImport(file: string, spec: string): string {
  const target = join(dirname(file), spec).replace(/\.js$/, '.ts')
  return SOURCES.has(target) || !existsSync(join(SRC, target, 'index.ts')) ? target : join(target, 'index.ts')
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const connect = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) connect(v)
  return found
}

describe('src/ layout (issue 22)', () => {
  it(`no hand-written file passes ${MAX_LINES} lines (${GENERATED} is generated code)`, () => {
    const long = FILES.filter((f) => !f.startsWith(GENERATED))
      .map((f) => ({ f, lines: lineCount(SOURCES.get(f)!.text) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ f, lines }) => `src/${f}: ${lines} lines`)
    expect(long, `split these by concept, to at most ${MAX_LINES} lines each`).toEqual([])
  })

  it(`no folder holds more than ${MAX_FILES} files directly`, () => {
    const full = DIRS.filter((d) => d.files.length > MAX_FILES).map((d) => `src/${relative(SRC, d.path)}/: ${d.files.length} files`)
    expect(full, 'split these folders by concern').toEqual([])
  })

  it('no `export let` (a binding other modules read after a call changes it)', () => {
    const exported = FILES.flatMap((f) => moduleLets(SOURCES.get(f)!).filter((l) => l.exported).map((l) => `src/${f}: export let ${l.name}`))
    expect(exported, 'return the value, or keep it in an object the caller owns').toEqual([])
  })

  it('no module-level `let` or `var` carries state between calls, but the few listed with a reason', () => {
    const lets = FILES.flatMap((f) => moduleLets(SOURCES.get(f)!).map((l) => `${f} ${l.name}`))
    expect(lets.filter((l) => !(l in MODULE_LETS)).map((l) => `src/${l.replace(' ', ': let ')}`), 'return the value, or keep it in an object the caller owns').toEqual([])
    // An entry whose `let` is gone is dropped from the list, so the list stays the truth.
    expect(Object.keys(MODULE_LETS).filter((l) => !lets.includes(l)), 'listed in MODULE_LETS but no longer there').toEqual([])
  })

  it("no import circle among src/'s run-time imports (core's is type-only)", () => {
    const graph = new Map(FILES.map((f) => [f, runtimeImports(f, SOURCES.get(f)!)]))
    expect(circles(graph).map((c) => c.map((f) => `src/${f}`).join(' ⇄ ')), 'choose between the two paths above both, or move the shared part down').toEqual([])
  })

  it("src/core's only circle is type-only and stays inside core", () => {
    // With `import type` counted as well, a circle may appear only inside src/core.
    const graph = new Map(FILES.map((f) => [f, allImports(f, SOURCES.get(f)!)]))
    const outside = circles(graph).filter((c) => !c.every((f) => f.startsWith(CORE)))
    expect(outside.map((c) => c.map((f) => `src/${f}`).join(' ⇄ '))).toEqual([])
  })
})

/** Every relative import of a file, type-only ones included. */
function allImports(file: string, source: ts.SourceFile): string[] {
  const specs: string[] = []
  for (const s of source.statements) {
    if ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier !== undefined && ts.isStringLiteral(s.moduleSpecifier)) specs.push(s.moduleSpecifier.text)
  }
  return [...specs.filter((s) => s.startsWith('.')).map((s) => resolveImport(file, s)), ...runtimeImports(file, source)]
}
