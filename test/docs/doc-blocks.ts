import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The repository root: docs paths and the examples' working data are relative to it. */
export const ROOT = join(import.meta.dirname, '../..')

/** README.md and every page under docs/, as repository-relative paths. */
export function docFiles(): string[] {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`)
  return ['README.md', ...pages]
}

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  file: string
  /** 1-based line of the opening fence. */
  line: number
  /** First word of the info string (`ts`, `sh`, `json`, …), '' when there is none. */
  lang: string
  /** The rest of the info string, as words: `illustrative`, `output`. */
  meta: string[]
  /** The content, with the fence's indentation removed. */
  text: string
  /** 0-based index of the first content line and of the closing fence in the file's lines. */
  from: number
  to: number
  /** The fence's indentation (blocks inside list items are indented). */
  indent: string
}

/** Every fenced block of `text` (``` fences, possibly indented), in order. */
export function codeBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n')
  const blocks: CodeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[i] as string)
    if (open === null) continue
    const indent = open[1] as string
    let end = i + 1
    while (end < lines.length && (lines[end] as string).trim() !== '```') end++
    if (end === lines.length) throw new Error(`${file}:${i + 1}: a code fence is never closed`)
    const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
    blocks.push({ file, line: i + 1, lang: open[2] as string, meta: (open[3] as string).split(/\s+/).filter(Boolean), text: body.join('\n'), from: i + 1, to: end, indent })
    i = end
  }
  return blocks
}

/** True for a block of TypeScript (library use): run unless marked illustrative. */
export function isTs(b: CodeBlock): boolean {
  return b.lang === 'ts' || b.lang === 'typescript'
}

/** Command lines of a shell block: comments and blank lines dropped, `\` continuations joined. */
export function shellCommands(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '')
}

/**
 * True for a shell block that shows CLI or HTTP use (a `ledger-gas` or `curl` command): run
 * unless marked illustrative. Blocks of project commands only (`npm`, `npx`, `git`) are not.
 */
export function isCliShell(b: CodeBlock): boolean {
  if (b.lang !== 'sh' && b.lang !== 'bash' && b.lang !== 'shell') return false
  return shellCommands(b.text).some((c) => /^(ledger-gas|curl)\s/.test(c))
}

/** A block shown as the output of the runnable block before it (info string `… output`). */
export function isOutput(b: CodeBlock): boolean {
  return b.meta.includes('output')
}

/** A block shown for illustration only (info string `… illustrative`): never run. */
export function isIllustrative(b: CodeBlock): boolean {
  return b.meta.includes('illustrative')
}

/** `text` with the content of `block` replaced by `content` (indented as the block is). */
export function replaceBlock(text: string, block: CodeBlock, content: string): string {
  const lines = text.split('\n')
  const body = content.replace(/\n+$/, '').split('\n').map((l) => (l === '' ? l : block.indent + l))
  lines.splice(block.from, block.to - block.from, ...body)
  return lines.join('\n')
}

/** The text of a file of the repository. */
export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8')
}
