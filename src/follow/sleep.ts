/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (the timer is cleared). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>

/** The default `Sleep`: a `setTimeout` that an abort clears, so a stopped follower leaves no timer. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
