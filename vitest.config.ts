import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * `npm run test:deep` (`vitest run --mode deep`): the budgets of test/budget.ts raised to at
 * least what the suite ran before they were cut for speed; a variable already set wins.
 */
const DEEP = { FC_NUM_RUNS: '300', HOSTILE_REQUESTS: '10000', CRASH_KILLS: '6', CRASH_BLOCKS: '4000' }

export default defineConfig(({ mode }) => ({
  test: {
    env: mode === 'deep' ? Object.fromEntries(Object.entries(DEEP).map(([k, v]) => [k, process.env[k] ?? v])) : {},
    // Each file in its own child process (vitest's default pool, stated here): the CLI tests
    // chdir and install signal handlers, which worker threads do not allow or would share.
    pool: 'forks',
    // Vitest's default is one worker per core less one, so a single worker on 2 cores. Most of
    // the slow files wait on child processes, sockets and timers, so a second worker overlaps
    // them even on 2 cores; with more cores the default applies.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Limits only turn a hang into a failure; on a shared, loaded machine 5 s is too tight for
    // tests that spawn the CLI. No test asserts on elapsed time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
}))
