/**
 * The one shape every benchmark group's result takes (bench/results/<group>.json), and the
 * helpers that fill it: the run's context (commit, Node, cores, the machine's load at start and
 * end) and min/median/max summaries. `npm run bench:report` (bench/report.ts) renders
 * docs/benchmarks.md from these files, so a figure reaches the docs only through one of them.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './median.js'

/** The smallest, middle and largest of a figure's per-round values, and how many rounds. */
export interface Spread {
  min: number
  median: number
  max: number
  n: number
}

/** One side of a row: what ran, and its figure over the rounds. */
export interface Side {
  /** What ran, e.g. `ledger-gas replay (built CLI)` or `split + JSON.parse (bench/bare/parse.mjs)`. */
  name: string
  spread: Spread
}

/** A baseline beside the project, with the project / baseline ratio of each round's pair. */
export interface Baseline extends Side {
  /** project / baseline per round (below 1: the project takes less). */
  ratio: Spread
}

/**
 * A target on the median project / first-baseline ratio, from the issue that set it: met when
 * the median ratio is at most `max_ratio`.
 */
export interface Target {
  max_ratio: number
  met: boolean
}

/** One measured case: the project and its baselines, in one unit. */
export interface Row {
  case: string
  /** What the figures are, with their unit, e.g. `wall s`, `CPU s`, `server CPU µs/request`, `peak RSS MB`. */
  metric: string
  project: Side
  baselines: Baseline[]
  target?: Target
  /** Anything the reader needs to read the row right (a skipped part, a fixture's size). */
  note?: string
  /** The same case before this work as the audit of issue 21 measured it, quoted as the issue gives it. */
  before?: string
}

/** A group's result file. */
export interface GroupResult {
  group: string
  title: string
  /** How the group measures, in a sentence or two (rendered above its table). */
  method: string
  /** `cold` (fresh processes, as a user runs them) or `warm` (in-process, after warm-up passes). */
  kind: 'cold' | 'warm'
  commit: string
  date: string
  node: string
  cores: number
  /** 1-minute load average when the group started and when it ended. */
  load_average: { start: number; end: number }
  rounds: number
  rows: Row[]
  /** Set when the group could not run here (e.g. no PostgreSQL); its rows are then empty. */
  skipped?: string
}

/** min/median/max of `xs` (NaN for none). */
export function spread(xs: readonly number[]): Spread {
  return { min: xs.length === 0 ? NaN : Math.min(...xs), median: median(xs), max: xs.length === 0 ? NaN : Math.max(...xs), n: xs.length }
}

/** A baseline whose rounds pair with `project`'s round by round. */
export function baseline(name: string, values: readonly number[], project: readonly number[]): Baseline {
  return { name, spread: spread(values), ratio: spread(values.map((v, i) => (project[i] as number) / v)) }
}

/** Extras of a row made by `row`. */
export interface RowExtras {
  /** Target on the median project / first-baseline ratio (`target`). */
  maxRatio?: number
  note?: string
  before?: string
}

/**
 * A row from per-round figures: `project` and each baseline as `[name, values]`, their values
 * paired round by round (a baseline with one value per round of the project; an empty one is
 * left out).
 *
 * @example row('scan, sample', 'ms/pass', ['scanBlocks', [30, 31]], [['JSON.parse', [60, 62]]]) // ratio 0.5x
 */
export function row(name: string, metric: string, project: readonly [string, readonly number[]], baselines: readonly (readonly [string, readonly number[]])[], extras: RowExtras = {}): Row {
  const bs = baselines.filter(([, values]) => values.length > 0).map(([n, values]) => baseline(n, values, project[1]))
  return {
    case: name,
    metric,
    project: { name: project[0], spread: spread(project[1]) },
    baselines: bs,
    ...(extras.maxRatio === undefined ? {} : { target: target(extras.maxRatio, bs) }),
    ...(extras.note === undefined ? {} : { note: extras.note }),
    ...(extras.before === undefined ? {} : { before: extras.before }),
  }
}

/** The target on a row's first baseline's median ratio. */
export function target(maxRatio: number, baselines: readonly Baseline[]): Target {
  const r = baselines[0]?.ratio.median ?? NaN
  return { max_ratio: maxRatio, met: r <= maxRatio }
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The checked-out commit (short), `+dirty` when the tree has changes; `unknown` outside git. */
export function commitId(): string {
  try {
    const id = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
    return dirty ? `${id}+dirty` : id
  } catch {
    return 'unknown'
  }
}

/** The run context of a group starting now; `finish` completes it with the rows. */
export function startGroup(group: string, title: string, method: string, kind: GroupResult['kind'], rounds: number) {
  const start = loadavg()[0] as number
  return {
    finish(rows: Row[], skipped?: string): GroupResult {
      return {
        group,
        title,
        method,
        kind,
        commit: commitId(),
        date: new Date().toISOString(),
        node: process.version,
        cores: availableParallelism(),
        load_average: { start, end: loadavg()[0] as number },
        rounds,
        rows,
        ...(skipped === undefined ? {} : { skipped }),
      }
    },
  }
}

/** Writes bench/results/<group>.json. */
export function writeResult(result: GroupResult): string {
  const dir = join(ROOT, 'bench', 'results')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${result.group}.json`)
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`)
  return path
}
