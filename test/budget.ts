/**
 * How hard the tests dig: every run count of the property, hostile-input and crash tests comes
 * from here, so the defaults live in one place. `npm test` uses the defaults (a quick suite);
 * `npm run test:deep` (`vitest run --mode deep`, see vitest.config.ts) raises them, and any of
 * them can be set in the environment (a value set there wins over both):
 *
 * | variable           | default            | deep   | meaning                                      |
 * | ------------------ | ------------------ | ------ | -------------------------------------------- |
 * | `FC_NUM_RUNS`      | 100                | 300    | fast-check runs of a typical property        |
 * | `HOSTILE_REQUESTS` | 5 × `FC_NUM_RUNS`  | 10,000 | hostile requests per endpoint via `inject`;  |
 * |                    |                    |        | the raw-socket test sends a tenth of it      |
 * | `CRASH_KILLS`      | 2                  | 6      | SIGKILLs per crash test, each a fresh child  |
 * | `CRASH_BLOCKS`     | 1,500              | 4,000  | blocks each crash test ingests               |
 * | `FC_SEED`          | fixed where used   |        | another seed, to explore other inputs        |
 *
 * The budgets change how many inputs a test tries, never what it checks of each.
 */

/** Reads a positive integer from the environment; a bad value fails loudly, naming the variable. */
function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

/** fast-check runs of a typical property (`FC_NUM_RUNS`, default 100, fast-check's own default). */
export const FC_NUM_RUNS = positiveInt('FC_NUM_RUNS', 100)

/**
 * Runs for a property `share` times as cheap (> 1) or as costly (< 1) per run as a typical one,
 * never fewer than `min`: `fcRuns(0.5)` is 50 by default and scales with `FC_NUM_RUNS`.
 */
export function fcRuns(share = 1, min = 1): number {
  return Math.max(min, Math.round(FC_NUM_RUNS * share))
}

/** Hostile requests per endpoint through `inject` (`HOSTILE_REQUESTS`, default 5 × FC_NUM_RUNS). */
export const HOSTILE_REQUESTS = positiveInt('HOSTILE_REQUESTS', 5 * FC_NUM_RUNS)

/** SIGKILLs per crash test (`CRASH_KILLS`, default 2). */
export const CRASH_KILLS = positiveInt('CRASH_KILLS', 2)

/** Blocks each crash test ingests (`CRASH_BLOCKS`, default 1500). */
export const CRASH_BLOCKS = positiveInt('CRASH_BLOCKS', 1500)
