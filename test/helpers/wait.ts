import { vi } from 'vitest'

// Waits on events and states, never a sleep followed by an assertion. Their time limits only turn
// a wait that will never end into a message naming what was awaited; they claim nothing about
// speed, so they are generous (the machine may be loaded) and below the test's own limit.

/** Resolves after `ms`. */
export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/**
 * Polls `check` every 5 ms until it is true. `timeoutMs` only turns a wait that will never end
 * into a message naming `what` (it claims nothing about speed), so it is generous: the machine
 * may be loaded.
 */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await delay(5)
  }
}

/**
 * `promise`, or a rejection naming `what` if it has not settled after `timeoutMs`: a wait that
 * will never end fails with a message rather than the test's time limit (no claim on speed).
 */
export async function settled<T>(promise: Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs)))
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Watches the timers set from now on for at least `minMs` (long enough not to fire during a
 * test): `pending()` counts those neither cleared nor fired, what would keep a process alive
 * after a follower stopped. `restore()` ends the watch.
 */
export function watchTimers(minMs: number) {
  const set = vi.spyOn(globalThis, 'setTimeout')
  const clear = vi.spyOn(globalThis, 'clearTimeout')
  return {
    pending(): number {
      const cleared = new Set(clear.mock.calls.map((c) => c[0]))
      return set.mock.calls.filter((c, i) => (c[1] ?? 0) >= minMs && !cleared.has(set.mock.results[i]?.value)).length
    },
    restore(): void {
      set.mockRestore()
      clear.mockRestore()
    },
  }
}
