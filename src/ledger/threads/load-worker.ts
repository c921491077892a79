/**
 * Worker thread of a threaded memory store load (`load-threads.ts`): runs `loadRange` on the job
 * it is started with, posts the answer (the packed chunks and the indices transferred, not
 * copied) and ends. Its heap, grown by the load's short-lived objects, goes with it.
 */
import { parentPort, workerData } from 'node:worker_threads'
import type { LoadJob } from './load-protocol.js'
import { loadRange } from './load-range.js'

const port = parentPort
if (port === null) throw new Error('load-worker.ts runs as a worker thread')

void loadRange(workerData as LoadJob).then(({ answer, transfer }) => port.postMessage(answer, transfer))
