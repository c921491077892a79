import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/main.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { SqliteStore } from '../../src/ledger/sqlite/sqlite-store.js'
import type { LedgerStore } from '../../src/ledger/store/store.js'
import type { BlockJson } from '../../src/ledger/store/types.js'
import { addr, ChainBuilder, clone } from '../helpers/chain-builder.js'

const dir = mkdtempSync(join(tmpdir(), 'ledger-gas-ingest-'))
let n = 0
const temp = (name: string) => join(dir, `${n++}-${name}`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

function runCli(args: string[], stdin: string | Readable = '', signal = new AbortController().signal) {
  let out = ''
  let err = ''
  const io = {
    stdin: typeof stdin === 'string' ? Readable.from([stdin]) : stdin,
    stdout: new Writable({ write: (c, _e, cb) => ((out += String(c)), cb()) }),
    stderr: new Writable({ write: (c, _e, cb) => ((err += String(c)), cb()) }),
    signal,
  }
  return main(['ingest', ...args], io).then((code) => ({ code, out, err }))
}

function chain(count: number, start: { height?: number; version?: number } = {}): BlockJson[] {
  return new ChainBuilder(start).blocks(count, (i) => [{ sender: 1 + (i % 4) }, { sender: 9, nonce: i }, { sender: 1 + ((i + 1) % 4) }])
}

const jsonl = (blocks: BlockJson[]) => blocks.map((b) => `${JSON.stringify(b)}\n`).join('')

function writeChain(blocks: BlockJson[], name = 'chain.jsonl'): string {
  const path = temp(name)
  writeFileSync(path, jsonl(blocks))
  return path
}

/** Same answers from both stores for every version, block and a page of each account. */
async function expectSameLedger(a: LedgerStore, b: LedgerStore): Promise<void> {
  const info = await a.ledgerInfo()
  expect(await b.ledgerInfo()).toEqual(info)
  if (info === null) return
  for (let v = Number(info.oldest_ledger_version); v <= Number(info.ledger_version); v++) expect(await b.transactionByVersion(v)).toEqual(await a.transactionByVersion(v))
  for (let h = Number(info.oldest_block_height); h <= Number(info.block_height); h++) expect(await b.blockByHeight(h, true)).toEqual(await a.blockByHeight(h, true))
  for (const who of [1, 2, 3, 4, 9].map(addr)) {
    expect(await b.accountSequenceNumber(who)).toEqual(await a.accountSequenceNumber(who))
    expect(await b.accountTransactions(who, 0, 1000)).toEqual(await a.accountTransactions(who, 0, 1000))
  }
}

async function withDb<T>(path: string, fn: (store: SqliteStore) => T): Promise<Awaited<T>> {
  const store = SqliteStore.open(path, { mustExist: true })
  try {
    return await fn(store)
  } finally {
    store.close()
  }
}

describe('ledger-gas ingest', () => {
  it('appends a chain file and prints a one-line summary; the ledger equals the file loaded in memory', async () => {
    const blocks = chain(60, { height: 500, version: 9000 })
    const input = writeChain(blocks)
    const db = temp('ledger.db')
    const r = await runCli(['--db', db, '--input', input])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^ingest: 60 blocks appended, 0 skipped \(already in .*ledger\.db\); ledger version 9299, block height 559; [\d.]+ s, \d+ blocks\/s\n$/)
    const memory = await MemoryStore.fromJsonLines(input)
    await withDb(db, (store) => expectSameLedger(memory, store))
  })

  it('resumes after a partial run: stored blocks are skipped, the rest appended', async () => {
    const blocks = chain(40)
    const db = temp('ledger.db')
    // A run killed mid-write leaves a file whose last line is cut short.
    const partial = temp('partial.jsonl')
    writeFileSync(partial, `${jsonl(blocks.slice(0, 25))}${JSON.stringify(blocks[25]).slice(0, 200)}`)
    const first = await runCli(['--db', db, '--input', partial, '--batch', '7'])
    expect(first.code).toBe(1)
    expect(first.err).toMatch(/partial\.jsonl:26: \(json\): not valid JSON/)
    await withDb(db, (store) => expect(store.ledgerInfo()?.block_height).toBe(24))

    const full = writeChain(blocks)
    const second = await runCli(['--db', db, '--input', full])
    expect(second.code).toBe(0)
    expect(second.out).toMatch(/^ingest: 15 blocks appended, 25 skipped/)
    const third = await runCli(['--db', db, '--input', full])
    expect(third.out).toMatch(/^ingest: 0 blocks appended, 40 skipped/)
    const memory = await MemoryStore.fromJsonLines(full)
    await withDb(db, (store) => expectSameLedger(memory, store))
  })

  it('refuses a gap in the input with exit 1, naming file, line and field, and keeps the blocks before it', async () => {
    const blocks = chain(12)
    const gappy = [...blocks.slice(0, 5), ...blocks.slice(6)]
    const input = writeChain(gappy, 'gappy.jsonl')
    const db = temp('ledger.db')
    const r = await runCli(['--db', db, '--input', input])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^ledger-gas ingest: .*gappy\.jsonl:6: block_height: block 6: gap: block 6 cannot follow block 4 \(missing 5\)\n$/)
    expect(r.out).toBe('')
    await withDb(db, (store) => expect(store.ledgerInfo()?.block_height).toBe(4))
  })

  it('refuses a duplicated line even where the ledger would skip it', async () => {
    const blocks = chain(10)
    const db = temp('ledger.db')
    expect((await runCli(['--db', db, '--input', writeChain(blocks)])).code).toBe(0)
    const dup = writeChain([...blocks.slice(0, 4), clone(blocks[3] as BlockJson), ...blocks.slice(4)], 'dup.jsonl')
    const r = await runCli(['--db', db, '--input', dup])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/dup\.jsonl:5: block_height: block 3: duplicate: block 3 is repeated in the input \(the previous line has block 3; expected 4\)/)
  })

  it('refuses a block that differs from the stored one at its height', async () => {
    const blocks = chain(10)
    const db = temp('ledger.db')
    await runCli(['--db', db, '--input', writeChain(blocks)])
    const other = chain(10)
    ;(other[7] as BlockJson).block_hash = `0x${'ab'.repeat(32)}`
    const r = await runCli(['--db', db, '--input', writeChain(other, 'fork.jsonl')])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/fork\.jsonl:8: block_hash: block 7 differs from the one in .*ledger\.db \(stored 0x[0-9a-f]{64} versions 35\.\.39, input 0xabab/)
  })

  it('refuses the first input block when it leaves a gap after the ledger', async () => {
    const blocks = chain(10)
    const db = temp('ledger.db')
    await runCli(['--db', db, '--input', writeChain(blocks.slice(0, 3))])
    const r = await runCli(['--db', db, '--input', writeChain(blocks.slice(5), 'later.jsonl')])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/later\.jsonl:1: block_height: block 5: gap: block 5 cannot follow block 2 \(missing 3\.\.4\)/)
  })

  it('commits the blocks of a batch before a refused one, and names the refused one', async () => {
    const blocks = chain(20)
    const bad = clone(blocks[13] as BlockJson)
    const user = bad.transactions[1] as { sequence_number: string }
    user.sequence_number = String(Number(user.sequence_number) + 1)
    const input = writeChain([...blocks.slice(0, 13), bad, ...blocks.slice(14)], 'badseq.jsonl')
    const db = temp('ledger.db')
    const r = await runCli(['--db', db, '--input', input, '--batch', '100'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/badseq\.jsonl:14: transactions\[1\]\.sequence_number: block 13: gap: sender 0x2 is at sequence number 7, got 8/)
    await withDb(db, (store) => expect(store.ledgerInfo()?.block_height).toBe(12))
  })

  it('reads standard input with --input -', async () => {
    const blocks = chain(5)
    const db = temp('ledger.db')
    const r = await runCli(['--db', db, '--input', '-'], jsonl(blocks))
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^ingest: 5 blocks appended/)
    const bad = await runCli(['--db', temp('x.db'), '--input', '-'], '{"block_height": "1"}\n')
    expect(bad.err).toMatch(/<stdin>:1: /)
  })

  it('on SIGINT/SIGTERM, commits the blocks read so far, prints the summary and exits 1 (rerun resumes)', async () => {
    const blocks = chain(8)
    const db = temp('ledger.db')
    // A signal that fires once three lines have been read, as a SIGINT mid-file would.
    let looks = 0
    const signal = {
      get aborted() {
        return ++looks > 3
      },
    } as AbortSignal
    const r = await runCli(['--db', db, '--input', writeChain(blocks)], '', signal)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/^ingest: 3 blocks appended, 0 skipped/)
    expect(r.err).toMatch(/interrupted; blocks read so far are committed, run again to resume/)
    const again = await runCli(['--db', db, '--input', writeChain(blocks)])
    expect(again.out).toMatch(/^ingest: 5 blocks appended, 3 skipped/)
  })

  it('keeps the chain id of a new ledger and refuses another one later (usage, exit 2)', async () => {
    const db = temp('ledger.db')
    expect((await runCli(['--db', db, '--input', writeChain(chain(2)), '--chain-id', '1'])).code).toBe(0)
    await withDb(db, (store) => expect(store.ledgerInfo()?.chain_id).toBe(1))
    const r = await runCli(['--db', db, '--input', writeChain(chain(2)), '--chain-id', '2'])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/holds chain id 1, not 2/)
  })

  it('refuses another program\'s SQLite database with exit 2 and leaves the file byte-identical', async () => {
    const db = temp('theirs.db')
    const theirs = new Database(db)
    theirs.exec("CREATE TABLE meta (k TEXT, v TEXT); CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')")
    theirs.close()
    const before = sha256(db)
    const r = await runCli(['--db', db, '--input', writeChain(chain(3))])
    expect(r.code).toBe(2)
    expect(r.err).toBe(`ledger-gas ingest: ${db} is a SQLite database but not a ledger (it has the tables meta, notes and no ledger schema); refusing to change it\n`)
    expect(sha256(db)).toBe(before)
    expect(existsSync(`${db}-wal`)).toBe(false)
  })

  it('refuses a file that is not SQLite at all with exit 2, unchanged', async () => {
    const db = temp('notes.txt')
    writeFileSync(db, 'dear diary\n'.repeat(500))
    const before = sha256(db)
    const r = await runCli(['--db', db, '--input', writeChain(chain(3))])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/notes\.txt is not a ledger database: file is not a database/)
    expect(sha256(db)).toBe(before)
  })

  const usage: [string, string[], RegExp][] = [
    ['a missing --db', ['--input', 'x.jsonl'], /missing required option --db/],
    ['a missing --input', ['--db', 'x.db'], /missing required option --input/],
    ['an unreadable input', ['--db', 'x.db', '--input', '/nonexistent/chain.jsonl'], /cannot read --input \/nonexistent\/chain\.jsonl/],
    ['a chain id above 255', ['--db', 'x.db', '--input', '-', '--chain-id', '256'], /--chain-id must be between 0 and 255/],
    ['an unknown flag', ['--db', 'x.db', '--input', '-', '--fast'], /Unknown option '--fast'/],
    ['a db in a missing directory', ['--db', '/nonexistent/dir/x.db', '--input', '-'], /cannot open \/nonexistent\/dir\/x\.db/],
  ]
  for (const [what, args, message] of usage) {
    it(`exits 2 on ${what}`, async () => {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      expect(r.err).toMatch(message)
    })
  }

  it('prints its help with exit 0', async () => {
    const r = await runCli(['--help'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^usage: ledger-gas ingest --db FILE\|URL --input FILE\.jsonl\|-/)
  })
})
