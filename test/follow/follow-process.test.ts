import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { estimatesByHeight, sampleBlocks } from '../helpers/sample-chain.js'
import { until } from '../helpers/wait.js'
import { startServer } from '../helpers/follow-server.js'

// `ledger-gas follow` as a whole process (tsx loading the CLI from source): in
// `npm run test:integration` beside the other signal tests (vitest.config.ts). The in-process
// follow command is tested in follow-command.test.ts.

const INITIAL = sampleBlocks(750, 800)
const REFERENCE = estimatesByHeight(INITIAL)
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))

const servers: { close(): Promise<void> }[] = []
afterAll(async () => {
  for (const s of servers) await s.close()
})

const lines = (text: string) => text.split('\n').filter((l) => l.length > 0)

describe('ledger-gas follow as a process', () => {
  it('as a process: SIGINT stops it with exit 0 and nothing keeps it alive', async () => {
    const s = await startServer(INITIAL)
    servers.push(s)
    // Caught up, it waits a day for the next poll: an exit at all means SIGINT cut that wait short
    // and left no timer or socket holding the process (the test's own limit is far below a day).
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'follow', '--node', s.url, '--interval', '86400000'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
    // The line is written as the follower goes into its wait, long before this process reads it.
    await until(() => out.includes('\n'), 'the first line')
    child.kill('SIGINT')
    // Handled: exit 0, not death by the signal.
    expect(await exited).toEqual({ code: 0, signal: null })
    expect(lines(out)).toEqual([`{"block_height":"800","epoch":"2",${(REFERENCE.get('800') as string).slice(1)}`])
  })
})
