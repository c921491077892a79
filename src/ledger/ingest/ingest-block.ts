import { checkBlock, type CheckedBlock } from '../store/append-rules.js'
import { isCanonicalJson } from '../read/canonical-json.js'
import { parseJsonLine } from '../read/json-lines.js'
import { readLineBytes, regularFileSize, type LineOptions } from '../read/lines.js'
import { BlockScanner } from '../read/block-scanner.js'
import { fileChunks } from './file-chunks.js'
import type { IngestBlock } from '../store/store.js'
import type { BlockJson } from '../store/types.js'

/**
 * A block of one line as bulk ingest reads it (`readIngestLine`), before a batch holds it
 * (`BatchArena.holdLine`): `checkBlock`'s answer with its `transactions` left empty, and where
 * each transaction's JSON lies. Either every transaction is in the line as `JSON.stringify`
 * writes it, at `line[starts[i], ends[i])` (the node's own output), or `transactionJson` holds
 * each one's JSON. Offsets rather than views: the arena copies the transactions of a line at
 * once and makes the only view of each.
 */
export interface LineBlock {
  checked: CheckedBlock
  line: Uint8Array
  starts: readonly number[]
  ends: readonly number[]
  /** Each transaction's JSON, set when not all are in the line as `JSON.stringify` writes them. */
  transactionJson: Uint8Array[] | undefined
}

/** How many transactions `block` holds. */
export function lineBlockTransactions(block: LineBlock): number {
  return block.transactionJson?.length ?? block.starts.length
}

/**
 * One line of a chain file as bulk ingest reads it: checked on its own with `maxTransactions`,
 * each transaction's JSON as `JSON.stringify` writes it. The checked block's `transactions`
 * are left empty (`IngestBlock`): a batch holds thousands of blocks until it commits, and the
 * parsed transactions it would keep are only garbage the collector copies. The block scanner
 * reads the line without building it, and a transaction whose bytes in the line are already
 * that JSON (the node's own output: found by the scanner in the same pass, else by
 * `isCanonicalJson`) is kept as those bytes; otherwise, and for anything the scanner leaves to
 * the full parser, the line is parsed. Values and errors are those of
 * `checkBlock(JSON.parse(line))` (the scanner's law, test/ledger/scan-blocks.prop.test.ts).
 *
 * `scanner` is the caller's, one per stream of lines (it learns their keys).
 *
 * @throws InvalidDataError naming file, line and field.
 */
export function readIngestLine(file: string, line: number, bytes: Buffer, maxTransactions: number, scanner: BlockScanner): LineBlock {
  const scanned = scanner.scan(bytes, 'ledger')
  if (scanned !== undefined) {
    let checked: CheckedBlock | undefined
    try {
      checked = checkBlock(scanned.skeleton, maxTransactions)
    } catch {
      // The full parser below throws the same error, worded for the line.
    }
    if (checked !== undefined) {
      const { txnStarts, txnEnds, txnCanonical } = scanned
      let transactionJson: Uint8Array[] | undefined
      for (let i = 0; i < txnStarts.length; i++) {
        const start = txnStarts[i] as number
        const end = txnEnds[i] as number
        // The scanner found most transactions canonical as it read them; the others are checked here.
        if (txnCanonical[i] === true || isCanonicalJson(bytes, start, end, scanner.reader, scanner.canonical)) {
          if (transactionJson !== undefined) transactionJson[i] = bytes.subarray(start, end)
          continue
        }
        transactionJson ??= txnStarts.slice(0, i).map((s, j) => bytes.subarray(s, txnEnds[j]))
        transactionJson[i] = Buffer.from(JSON.stringify(JSON.parse(bytes.toString('utf8', start, end))), 'utf8')
      }
      return { checked: { ...checked, transactions: [] }, line: bytes, starts: txnStarts, ends: txnEnds, transactionJson }
    }
  }
  const checked = parseJsonLine(file, line, bytes.toString('utf8'), (json) => checkBlock(json, maxTransactions))
  const transactionJson = checked.transactions.map((t) => Buffer.from(JSON.stringify(t), 'utf8'))
  return { checked: { ...checked, transactions: [] }, line: bytes, starts: [], ends: [], transactionJson }
}

/**
 * `readIngestLine` as an `IngestBlock`: each transaction's JSON a view of the line or its own
 * bytes.
 *
 * @throws InvalidDataError naming file, line and field.
 */
export function ingestBlockOfLine(file: string, line: number, bytes: Buffer, maxTransactions: number, scanner: BlockScanner): IngestBlock {
  const read = readIngestLine(file, line, bytes, maxTransactions, scanner)
  return { checked: read.checked, transactionJson: read.transactionJson ?? read.starts.map((s, i) => bytes.subarray(s, read.ends[i])) }
}

/**
 * `IngestBlock`s of block JSON, checked on their own in order (`checkBlock`), each transaction
 * serialized by `JSON.stringify`; stops at the first refused block and returns why.
 */
export function ingestBlocksOf(blocks: readonly BlockJson[], maxTransactions: number): { ready: IngestBlock[]; refused?: unknown } {
  const ready: IngestBlock[] = []
  for (const block of blocks) {
    try {
      const checked = checkBlock(block, maxTransactions)
      ready.push({ checked, transactionJson: checked.transactions.map((t) => Buffer.from(JSON.stringify(t), 'utf8')) })
    } catch (refused) {
      return { ready, refused }
    }
  }
  return { ready }
}

/** The block JSON of an ingest block, for a store without `appendChecked`: its transactions parsed back. */
export function blockOfIngest(b: IngestBlock): BlockJson {
  const { parsed } = b.checked
  return {
    block_height: String(parsed.block_height),
    block_hash: b.checked.block_hash,
    block_timestamp: String(b.checked.block_timestamp),
    first_version: String(parsed.first_version),
    last_version: String(parsed.last_version),
    transactions: b.transactionJson.map((json) => JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'))),
  } as BlockJson
}

/**
 * The lines of `source` as ingest blocks (`readIngestLine`), read on the calling thread and
 * named `options.file` in messages. A block's line may be the read buffer, valid only until
 * the next block is asked for: the caller copies what it keeps (`BatchArena.holdLine`). A
 * regular file is read into reused buffers (`fileChunks`).
 */
export async function* ingestBlocksInThread(source: string, options: Pick<LineOptions, 'stdin' | 'maxLineBytes'> & { file: string; maxTransactions: number }): AsyncGenerator<{ line: number; block: LineBlock }> {
  const { file, maxTransactions } = options
  const scanner = new BlockScanner()
  // Anything but a regular file (standard input, a pipe, a path that cannot be read) goes as it
  // is, so its errors are reported as for every other reader.
  const input = (await regularFileSize(source)) >= 0 ? fileChunks(source) : source
  for await (const { number: line, bytes } of readLineBytes(input, { stdin: options.stdin, maxLineBytes: options.maxLineBytes, file })) {
    yield { line, block: readIngestLine(file, line, bytes, maxTransactions, scanner) }
  }
}
