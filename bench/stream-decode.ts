/**
 * Stream decode benchmark (`npm run bench -- stream-decode`): how fast a `TransactionsResponse`
 * becomes the node's JSON text, through the wire-text writer that `ingest --from-stream` runs
 * (`decodeTextResponse`: common shapes straight from the wire bytes, the rest through the
 * message decoder) against the full decode it falls back to (`decodeTransactionsResponse`, then
 * `transactionText` of each message, as UTF-8 into the same writer). The corpora: the real
 * mainnet transactions of test/fixtures/aptos-stream, repeated to a few MB, and the bundled
 * sample chain. Beside them, the share of each corpus's transactions that the wire path writes
 * whole, in part, or not at all (`fallbacks`, counted one transaction at a time).
 *
 *   npx tsx bench/stream-decode.ts [--rounds 31]
 *
 * Writes bench/results/stream-decode.json in the shape of bench/results.ts.
 */
import { fromJson, toBinary, type JsonValue } from '@bufbuild/protobuf'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { transactionText } from '../src/follow/stream/convert/transaction-text.js'
import { encodeChain } from '../src/follow/stream/encode-chain.js'
import { fallbacks, partFallbacks } from '../src/follow/stream/decode/fallbacks.js'
import { TextWriter } from '../src/follow/stream/decode/text-writer.js'
import { decodeTransactionsResponse } from '../src/follow/stream/decode/transaction.js'
import { decodeTextResponse } from '../src/follow/stream/decode/wire-text.js'
import { TransactionSchema } from '../src/follow/stream/gen/aptos/transaction/v1/transaction_pb.js'
import { responseBytes } from '../src/follow/stream/stream-server.js'
import type { BlockJson } from '../src/ledger/store/types.js'
import { SAMPLE } from './processes.js'
import { row, startGroup, writeResult, type Row } from './results.js'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '31' } } })
const ROUNDS = Number(values.rounds)
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: expected a positive integer, got ${values.rounds}`)
/** Transactions per response, as a hosted stream batches them (its default batch is larger; the cost per byte is the same). */
const PER_RESPONSE = 100
/** The mainnet fixtures are repeated until their responses hold at least this many bytes. */
const CORPUS_BYTES = 4 << 20

const FIXTURES = join(import.meta.dirname, '..', 'test', 'fixtures', 'aptos-stream')
const mainnet = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => toBinary(TransactionSchema, fromJson(TransactionSchema, JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as JsonValue)))
const sample = encodeChain(
  readFileSync(SAMPLE, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as BlockJson),
).transactions

interface Corpus {
  name: string
  transactions: Uint8Array[]
  responses: Buffer[]
  bytes: number
}

function corpus(name: string, distinct: readonly Uint8Array[], minBytes: number): Corpus {
  const size = distinct.reduce((n, t) => n + t.length, 0)
  const copies = Math.max(1, Math.ceil(minBytes / size))
  const transactions: Uint8Array[] = []
  for (let c = 0; c < copies; c++) transactions.push(...distinct)
  const responses: Buffer[] = []
  for (let i = 0; i < transactions.length; i += PER_RESPONSE) responses.push(responseBytes(transactions.slice(i, i + PER_RESPONSE), 1))
  return { name, transactions, responses, bytes: responses.reduce((n, b) => n + b.length, 0) }
}

const corpora = [corpus(`mainnet fixtures (${mainnet.length} transactions, repeated)`, mainnet, CORPUS_BYTES), corpus('sample chain', sample, 0)]

/** The wire-text writer, as the ingest runs it. Returns the text bytes written (checked equal between the two paths). */
function wirePath(c: Corpus, w: TextWriter): number {
  let n = 0
  for (const b of c.responses) for (const t of decodeTextResponse(b, w).transactions) n += t.bytes.length
  return n
}

/** The full decode: every message decoded, then its text written by `transactionText`. */
function fullPath(c: Corpus, w: TextWriter): number {
  let n = 0
  for (const b of c.responses) {
    for (const tx of decodeTransactionsResponse(b).transactions) {
      w.utf8(transactionText(tx).json)
      n += w.finish().length
    }
  }
  return n
}

/** Transactions of `c` (one pass over its distinct ones) written wholly from the wire, in part, or by the decoder alone; and part fallbacks by kind. */
function share(distinct: readonly Uint8Array[]): { whole: number; part: number; decoder: number; parts: Record<string, number> } {
  const w = new TextWriter()
  const out = { whole: 0, part: 0, decoder: 0, parts: {} as Record<string, number> }
  const before = { ...fallbacks }
  for (const t of distinct) {
    const whole = fallbacks.transaction
    const parts = partFallbacks()
    decodeTextResponse(responseBytes([t], 1), w)
    if (fallbacks.transaction > whole) out.decoder++
    else if (partFallbacks() > parts) out.part++
    else out.whole++
  }
  for (const k of ['event', 'change', 'signature', 'payload'] as const) out.parts[k] = fallbacks[k] - before[k]
  return out
}

const group = startGroup(
  'stream-decode',
  'Transaction Stream decode: the wire-text writer against the full decode',
  `In-process, warm: each corpus's responses (${PER_RESPONSE} transactions each) turned into the node's JSON text by \`decodeTextResponse\` (what \`ingest --from-stream\` runs: common shapes written straight from the wire bytes, the rest through the message decoder) against the full decode (\`decodeTransactionsResponse\`, then \`transactionText\` of each message into the same writer), in alternating pairs after two warm-up passes, the pair's order swapping each round. Figures are ms per MiB of response bytes; the share rows count the corpus's distinct transactions by the path they take.`,
  'warm',
  ROUNDS,
)

const rows: Row[] = []
const mib = (b: number) => b / 2 ** 20
for (const c of corpora) {
  const w = new TextWriter()
  for (let i = 0; i < 2; i++) {
    const a = wirePath(c, w)
    const b = fullPath(c, w)
    if (a !== b) throw new Error(`${c.name}: the wire path wrote ${a} bytes of text, the full decode ${b}`)
  }
  const wire: number[] = []
  const full: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    for (const which of r % 2 === 0 ? ['wire', 'full'] : ['full', 'wire']) {
      const t0 = performance.now()
      if (which === 'wire') wirePath(c, w)
      else fullPath(c, w)
      ;(which === 'wire' ? wire : full).push((performance.now() - t0) / mib(c.bytes))
    }
  }
  const speed = (ms: number[]) => (1000 / (ms.slice().sort((x, y) => x - y)[ms.length >> 1] as number)).toFixed(1)
  rows.push(
    row(`decode, ${c.name}`, 'ms/MiB', ['decodeTextResponse (wire-text writer)', wire], [['decodeTransactionsResponse + transactionText (full decode)', full]], {
      note: `${c.transactions.length} transactions, ${mib(c.bytes).toFixed(1)} MiB of responses; median ${speed(wire)} MiB/s against ${speed(full)} MiB/s`,
    }),
  )
  const distinct = c === corpora[0] ? mainnet : sample
  const s = share(distinct)
  const pct = (n: number) => (100 * n) / distinct.length
  rows.push({
    case: `wire path's share, ${c.name}`,
    metric: '% of transactions written wholly from the wire',
    project: { name: 'decodeTextResponse', spread: { min: pct(s.whole), median: pct(s.whole), max: pct(s.whole), n: 1 } },
    baselines: [],
    note: `of ${distinct.length} distinct transactions: ${s.whole} whole, ${s.part} with parts through the decoder (${Object.entries(s.parts).map(([k, v]) => `${k} ${v}`).join(', ')}), ${s.decoder} wholly through the decoder`,
  })
}

const result = group.finish(rows)
for (const r of rows) {
  const b = r.baselines[0]
  console.log(`${r.case}: ${r.project.spread.median.toFixed(2)} ${r.metric}${b === undefined ? '' : `, full ${b.spread.median.toFixed(2)}, ratio ${b.ratio.median.toFixed(3)} (${b.ratio.min.toFixed(3)}–${b.ratio.max.toFixed(3)})`}; ${r.note ?? ''}`)
}
console.log(`load average ${result.load_average.start.toFixed(2)} → ${result.load_average.end.toFixed(2)}`)
console.error(`wrote ${writeResult(result)}`)
