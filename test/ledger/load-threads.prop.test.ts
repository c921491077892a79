import fc from 'fast-check'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { fcRuns } from '../budget.js'
import { addr, ChainBuilder, type UserSpec } from '../helpers/chain-builder.js'
import { inProcess, observe, outcome } from './load-threads-helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-load-threads-prop-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

/** How a block is written: as the node writes it, indented (packed all the same), or with text only `JSON.parse` takes (an escape, a float). */
type Style = 'compact' | 'indented' | 'odd'

function lineOf(block: BlockJson, style: Style): string {
  if (style === 'compact') return JSON.stringify(block)
  if (style === 'indented') return JSON.stringify(block, null, 1).replace(/\n/g, ' ')
  return JSON.stringify(block).replace('"vm_status":"Executed', '"vm_status":"Ex\\u0065cuted').replace('"changes":[]', '"changes":[1.50]')
}

/** What goes wrong from block `at` on, if anything: each is refused by the sequential load at some line, or by none. */
type Fault = { kind: 'none' } | { kind: 'not-json' | 'drop' | 'repeat' | 'heights' | 'sequence' | 'bigint-price'; at: number; by: number }

const user: fc.Arbitrary<UserSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ sender: fc.integer({ min: 1, max: 4 }), nonce: fc.integer({ min: 0, max: 1000 }) }) },
)
const fault: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Fault>({ kind: 'none' }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom('not-json', 'drop', 'repeat', 'heights', 'sequence', 'bigint-price'), at: fc.nat(), by: fc.constantFrom(-1, 1) }) },
)

/** The chain file: blocks in their styles, the fault applied, blank lines, CRLF, a BOM and the last newline as drawn. */
function chainFile(steps: { users: UserSpec[]; style: Style; blankAfter: boolean }[], f: Fault, layout: { crlf: boolean; bom: boolean; finalNewline: boolean }): string {
  const chain = new ChainBuilder({ height: 1000, version: 10_000 })
  for (const s of [1, 2, 3, 4]) chain.startSequence(s, 50)
  const blocks = steps.map((s) => chain.block({ users: s.users }))
  const lines = blocks.map((b, i) => lineOf(b, (steps[i] as { style: Style }).style))
  if (f.kind !== 'none') {
    // Not the first block: from it on, a shift of heights or sequence numbers is a valid chain.
    const at = lines.length === 1 ? 0 : 1 + (f.at % (lines.length - 1))
    const from = (edit: (line: string) => string) => lines.forEach((l, i) => i >= at && (lines[i] = edit(l)))
    if (f.kind === 'not-json') lines[at] = (lines[at] as string).slice(0, -1)
    else if (f.kind === 'drop') lines.splice(at, 1)
    else if (f.kind === 'repeat') lines.splice(at, 0, lines[at] as string)
    else if (f.kind === 'heights') from((l) => l.replace(/"block_height": ?"(\d+)"/, (_, h: string) => `"block_height":"${Number(h) + f.by}"`))
    else if (f.kind === 'sequence') from((l) => l.replace(new RegExp(`("sender":\\s*"${addr(1)}",\\s*"sequence_number":\\s*")(\\d+)"`, 'g'), (_, k: string, s: string) => `${k}${Number(s) + f.by}"`))
    else lines[at] = (lines[at] as string).replace(/"gas_unit_price": ?"100"/, '"gas_unit_price":"18446744073709551616"')
  }
  const eol = layout.crlf ? '\r\n' : '\n'
  const text = lines.map((l, i) => (steps[i]?.blankAfter === true ? `${l}${eol}` : l)).join(eol)
  return `${layout.bom ? '\uFEFF' : ''}${text}${layout.finalNewline ? eol : ''}`
}

describe('a threaded load is the sequential load', () => {
  it('for any chain file, valid or not, cut into 2 to 4 ranges, the store answers every read as the sequential load\'s, or the error is the sequential load\'s (file, line, field, message, cause)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ users: fc.array(user, { maxLength: 4 }), style: fc.constantFrom<Style>('compact', 'compact', 'indented', 'odd'), blankAfter: fc.boolean() }), { minLength: 1, maxLength: 14 }),
        fault,
        fc.record({ crlf: fc.boolean(), bom: fc.boolean(), finalNewline: fc.boolean() }),
        fc.integer({ min: 2, max: 4 }),
        async (steps, f, layout, threads) => {
          const file = join(dir, `chain-${files++}.jsonl`)
          writeFileSync(file, chainFile(steps, f, layout))
          const senders = [1, 2, 3, 4].map((n) => addr(n))
          const sequential = await outcome(file, { threads: 0 })
          const threaded = await outcome(file, { threads, threadsFromBytes: 0, runner: inProcess })
          if ('error' in sequential) expect(threaded).toEqual(sequential)
          else {
            expect('store' in threaded && observe(threaded.store, senders)).toEqual(observe(sequential.store, senders))
            expect('store' in threaded && threaded.store.packedBytes).toBe(sequential.store.packedBytes)
          }
        },
      ),
      // Each run loads a small file twice, and the examples in load-threads.test.ts cover the
      // cases by name: an eighth of the typical budget (13 by default, 38 in the deep suite).
      { numRuns: fcRuns(0.125) },
    )
  })
})
