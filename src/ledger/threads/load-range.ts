import { open } from 'node:fs/promises'
import { readRange } from '../read/file-range.js'
import { readLineBytes } from '../read/lines.js'
import { appendJsonLines } from '../read/load.js'
import type { LoadAnswer, LoadJob } from './load-protocol.js'
import { columnsOf, MemoryLedger } from '../memory/memory-ledger.js'
import { partsOf, partsTransfer } from '../memory/store-parts.js'

/**
 * What a load worker does (`load-worker.ts`): loads the lines of the job's byte range into a
 * `MemoryLedger` of its own, each exactly as `loadJsonLines` does, and answers with the store's
 * contents (`StoreParts`) and the buffers to transfer with them; or, at the first bad line or any
 * failure, with an error. The store starts empty, so the rules that join the range to the lines
 * before it (continuity, senders' sequence numbers) are left to the thread that adopts it.
 *
 * @example const { answer, transfer } = await loadRange(job); port.postMessage(answer, transfer)
 */
export async function loadRange(job: LoadJob): Promise<{ answer: LoadAnswer; transfer: ArrayBuffer[] }> {
  try {
    const store = new MemoryLedger({ maxBlockTransactions: job.maxBlockTransactions })
    const counted = { newlines: 0, last: 10 }
    const fh = await open(job.path, 'r')
    try {
      const lines = readLineBytes(readRange(fh, job.start, job.end, counted), { file: job.file, maxLineBytes: job.maxLineBytes, bom: job.start === 0 })
      await appendJsonLines(lines, store, job.file)
    } finally {
      await fh.close()
    }
    const parts = partsOf(store[columnsOf])
    return { answer: { type: 'parts', parts, newlines: counted.newlines }, transfer: partsTransfer(parts) }
  } catch (error) {
    return { answer: { type: 'error', message: error instanceof Error ? error.message : String(error) }, transfer: [] }
  }
}
