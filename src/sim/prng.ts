/**
 * A seeded pseudo-random source: xoshiro128** (Blackman & Vigna, 2018), 128-bit state, period
 * 2^128 - 1, seeded through splitmix32 so nearby seeds give unrelated streams. The generator
 * never reads the clock or `Math.random`: the same seed and stream give the same numbers on
 * every platform (all arithmetic is 32-bit integer via `Math.imul` and `>>> 0`).
 */
export interface Rng {
  /** A uniform integer in [0, 2^32). */
  u32(): number
  /** A uniform float in [0, 1) with 32 bits of precision. */
  float(): number
  /** A uniform integer in [0, n), n ≤ 2^32 (multiply-shift; bias below 2^-32 · n, ignored). */
  int(n: number): number
}

function splitmix32(state: number): [number, number] {
  const s = (state + 0x9e3779b9) >>> 0
  let z = s
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
  return [s, (z ^ (z >>> 16)) >>> 0]
}

/**
 * Creates an independent stream `stream` of seed `seed` (a non-negative safe integer). Streams
 * let one part of the model (say, hash bytes) draw numbers without shifting another's.
 *
 * @example createRng(42, 0).int(6) // the same die roll on every run
 */
export function createRng(seed: number, stream = 0): Rng {
  const lo = seed >>> 0
  const hi = Math.floor(seed / 2 ** 32) >>> 0
  let sm = (lo ^ Math.imul(hi, 0x27d4eb2f) ^ Math.imul(stream + 1, 0x165667b1)) >>> 0
  const state = new Uint32Array(4)
  for (let i = 0; i < 4; i++) {
    const [next, out] = splitmix32(sm)
    sm = next
    state[i] = out
  }
  // xoshiro's all-zero state is a fixed point; splitmix cannot produce four zeros, but be explicit.
  if ((state[0]! | state[1]! | state[2]! | state[3]!) === 0) state[0] = 1
  return xoshiro128StarStar(state)
}

/**
 * xoshiro128** over the given state (four u32, not all zero), which it advances in place.
 *
 * @example xoshiro128StarStar(Uint32Array.of(1, 2, 3, 4)).u32() // 11520 (reference vector)
 */
export function xoshiro128StarStar(s: Uint32Array): Rng {
  const u32 = (): number => {
    const s0 = s[0]!
    const s1 = s[1]!
    const s2 = s[2]!
    const s3 = s[3]!
    const r = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0
    const t = (s1 << 9) >>> 0
    const n2 = (s2 ^ s0) >>> 0
    const n3 = (s3 ^ s1) >>> 0
    s[1] = s1 ^ n2
    s[0] = s0 ^ n3
    s[2] = n2 ^ t
    s[3] = rotl(n3, 11)
    return r
  }
  return {
    u32,
    float: () => u32() / 4294967296,
    int: (n: number) => Math.floor((u32() / 4294967296) * n),
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0
}
