/**
 * The median of a benchmark's per-round figures (the mean of the middle two for an even count;
 * NaN for none): every table reports medians, so one noisy round on the shared machine moves it
 * little.
 */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length === 0 ? NaN : s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2
}
