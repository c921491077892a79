import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * `npm run test:deep` (`vitest run --mode deep`): the budgets of test/budget.ts raised to at
 * least what the suite ran before they were cut for speed; a variable already set wins.
 */
const DEEP = { FC_NUM_RUNS: '300', HOSTILE_REQUESTS: '10000', CRASH_KILLS: '6', CRASH_BLOCKS: '4000' }

/**
 * The packaging test (npm pack, an offline install of the tarball, every entry point imported)
 * spends ~20 s in npm itself, so it runs in `npm run test:pack` (and `test:deep`, and CI) rather
 * than in every `npm test`.
 */
const PACK_TESTS = 'test/package/**'

/**
 * Tests that run whole processes against each other for many seconds: ingests SIGKILLed and
 * resumed, PostgreSQL replicas beside a writer and a restarted server. They take about 40 s of
 * the suite's time, which kept `npm test` over 90 s on 2 cores, so they run in
 * `npm run test:integration` (and `test:deep`, and CI).
 */
export const INTEGRATION_TESTS = [
  'test/ledger/pg-scale-out.test.ts',
  'test/ledger/pg-outage.test.ts',
  'test/ledger/ingest-crash.test.ts',
  'test/reliability/crash-safety.test.ts',
  'test/follow/stream/sample-chain.test.ts',
  'test/follow/stream/stream-crash.test.ts',
  // This round's additions that run many CLI processes or a code generator: with them `npm test`
  // took over 120 s on 2 cores, so they run beside the other whole-process tests.
  'test/docs/examples.test.ts',
  'test/ledger/outage.test.ts',
  'test/follow/stream/gen.test.ts',
  'test/follow/stream/stream-postgres.test.ts',
  // The bundled chain ingested into PostgreSQL and served byte for byte as from memory: the
  // largest single test of pg-store.test.ts, one whole-chain run.
  'test/ledger/pg-read-api.test.ts',
  // The PostgreSQL store's contract and properties against a real server: the largest file left
  // (about 28 s of a worker on 2 cores); with it and this round's new tests `npm test` took 99 s.
  'test/ledger/pg-store.test.ts',
  // A follower against a live server that grows while followed, the same through a proxy that
  // drops, truncates, delays and stalls, and the bundled chain loaded whole into both stores:
  // sockets, timers and whole-chain runs (about 21 s of a worker). The CI clone still took 92 s
  // for `npm test` with them.
  'test/follow/follow-server.test.ts',
  'test/follow/fault-proxy.test.ts',
  'test/ledger/sample-chain.test.ts',
  // Headless Chromium driving the live page and the backtest report, and `serve` started as a
  // process and sent SIGTERM mid-request: whole processes as well, and with them `npm test` took
  // over 100 s on 2 cores.
  'test/api/gas-page.test.ts',
  'test/replay/report/report.browser.test.ts',
  'test/reliability/graceful-shutdown.test.ts',
  // `ledger-gas follow` run under tsx as a process and sent SIGINT, the twin of the SIGTERM test
  // above; the follow command itself is tested in-process in follow-command.test.ts.
  'test/follow/follow-process.test.ts',
  // The pg driver loaded in a fresh tsx process, and the calibrated learner's calm runs checked
  // against every block applied at once over thousands of blocks (the longest file left, about
  // 6 s of a worker): with them, a fresh clone's `npm test` took 83–90 s on 2 cores.
  'test/ledger/pg-driver.test.ts',
  'test/core/calm-run.prop.test.ts',
  // The calibrated learner's regressions on the calibration benchmark's chains: six generated
  // chains of 3,000 blocks, whose generation is most of their time and grows with what the
  // worker's heap already holds.
  'test/core/promise-learner-chains.test.ts',
]

export default defineConfig(({ mode }) => ({
  test: {
    exclude: mode === 'pack' || mode === 'deep' ? configDefaults.exclude : mode === 'integration' ? [...configDefaults.exclude, PACK_TESTS] : [...configDefaults.exclude, PACK_TESTS, ...INTEGRATION_TESTS],
    ...(mode === 'integration' ? { include: INTEGRATION_TESTS } : {}),
    env: mode === 'deep' ? Object.fromEntries(Object.entries(DEEP).map(([k, v]) => [k, process.env[k] ?? v])) : {},
    // Child processes, not threads: a CLI test chdirs, which worker threads do not allow.
    pool: 'forks',
    // A worker runs its files one after another in one process, so src, Fastify, SQLite and
    // fast-check are imported once per worker instead of once per file (a third of the CPU time
    // of the small files). Tests keep no global state: fake timers and spies are undone in the
    // test that made them, and restoreMocks undoes a spy a failing test left behind.
    isolate: false,
    restoreMocks: true,
    // Vitest's default is one worker per core less one, so a single worker on 2 cores. Most of
    // the slow files wait on child processes, sockets, PostgreSQL and timers, so more workers
    // overlap them even on 2 cores: there, 3 workers ran the suite in 80 s where 2 took 94-97 s
    // and 4 took 85 s (one run each, the same hour). With more cores the default applies.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // `npm run test:coverage`: V8's own counters (no instrumented copy of the code), over src/
    // only, written under test/artifacts/ (ignored by git and ESLint). Code run in child
    // processes (the CLI under tsx) and worker threads is not counted: docs/testing.md.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary', 'html', 'text'],
      reportsDirectory: 'test/artifacts/coverage',
      // A run with a failed test still says what the others reached.
      reportOnFailure: true,
    },
    // Limits only turn a hang into a failure; on a shared, loaded machine 5 s is too tight for
    // tests that spawn the CLI. No test asserts on elapsed time.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
}))
