/**
 * `run` whenever `trigger()` is called, never two at once: calls during a run fold into one
 * more run after it. Failures go to `onError`; the next trigger tries again.
 */
export function coalesced(run: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let running = false
  let again = false
  const trigger = (): void => {
    if (running) {
      again = true
      return
    }
    running = true
    run()
      .catch(onError)
      .finally(() => {
        running = false
        if (again) {
          again = false
          trigger()
        }
      })
  }
  return trigger
}
