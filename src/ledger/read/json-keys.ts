import { skipWs, type JsonReader } from './json-bytes.js'

/**
 * Keys and short values of the node's JSON read fast (the block scanner's): key sets looked up
 * by length and first byte, the key predictor, and a cache of recent string values. Each is an
 * object its owner keeps beside its `JsonReader`, learned from the lines that reader reads.
 */

/**
 * A few key names (at most 31, so a bit mask holds which were seen), found by their length and
 * first byte (one table load), then checked byte by byte. The names of one set differ in that
 * pair, which the constructor checks.
 */
export class KeySet {
  readonly names: readonly string[]
  readonly bytes: readonly Uint8Array[]
  /** id + 1 by `length << 8 | first byte`, 0 for none; lengths from 64 up are never known. */
  readonly table = new Uint8Array(64 << 8)

  constructor(names: string[]) {
    this.names = names
    this.bytes = names.map((n) => new Uint8Array(Buffer.from(n, 'latin1')))
    this.bytes.forEach((k, id) => {
      const slot = (k.length << 8) | (k[0] as number)
      if (k.length >= 64 || this.table[slot] !== 0) throw new Error(`KeySet: ${names[id]} clashes or is too long`)
      this.table[slot] = id + 1
    })
  }

  /** The id of the name in `b[s, s + n)`, or -1. O(1) apart from checking a candidate. */
  find(b: Uint8Array, s: number, n: number): number {
    if (n >= 64) return -1
    const id = (this.table[(n << 8) | (b[s] as number)] as number) - 1
    if (id < 0) return -1
    const k = this.bytes[id] as Uint8Array
    for (let i = 1; i < n; i++) if (k[i] !== b[s + i]) return -1
    return id
  }
}

/** The whole little-endian 32-bit words of `k` (its last `length % 4` bytes are compared one by one). */
function wordsOf(k: Uint8Array): Int32Array {
  const w = new Int32Array(k.length >> 2)
  const v = new DataView(k.buffer, k.byteOffset, k.length)
  for (let i = 0; i < w.length; i++) w[i] = v.getInt32(i * 4, true)
  return w
}

/** Whether the reader's line holds `k` (with words `w`) at `p`: four bytes at a time. */
function bytesAt(r: JsonReader, p: number, k: Uint8Array, w: Int32Array): boolean {
  const b = r.bytes
  const n = k.length
  if (p + n > b.length) return false
  const v = r.view
  const m = w.length
  let i = 0
  while (i < m && v.getInt32(p + 4 * i, true) === w[i]) i++
  if (i < m) return false
  i <<= 2
  while (i < n && b[p + i] === k[i]) i++
  return i === n
}

/**
 * The key predictor of one kind of object (a transaction, a payload): by the slot of the
 * previous key (0 at the start of an object, id + 1 after a known key, `unknown` after any
 * other), the id of the key that followed it last time. The node writes an object's keys in a
 * fixed order per type, so one comparison of the token's bytes (`"key":`) usually replaces
 * reading, looking up and checking the key. Its table is learned as it reads, so one predictor
 * serves one reader's lines (the reader's owner keeps both).
 */
export class KeyPredictor {
  readonly keys: KeySet
  /** Ids below this are kept (and checked for repeats); the others are only skipped, as unknown keys are. */
  readonly kept: number
  /** Each key as the node writes it: quoted and followed by its colon, and as words. */
  readonly #tokens: readonly Uint8Array[]
  readonly #words: readonly Int32Array[]
  readonly #unknown: number
  readonly #next: Int8Array
  /** Per object being read: the slot of the last key, and the kept keys seen (bits). */
  #slot = 0
  #seen = 0
  /** The id of the key `readKey` read last: below `kept`, or -1 for a key to skip. */
  id = -1
  /** The id in `keys` of the key `readKey` read last, kept or not; -1 for a key not in `keys`. */
  key = -1

  constructor(names: string[], kept: number) {
    this.keys = new KeySet(names)
    this.kept = kept
    this.#tokens = names.map((n) => new Uint8Array(Buffer.from(`"${n}":`, 'latin1')))
    this.#words = this.#tokens.map(wordsOf)
    this.#unknown = names.length + 1
    this.#next = new Int8Array(this.#unknown + 1).fill(-1)
  }

  /** Starts an object. */
  begin(): void {
    this.#slot = 0
    this.#seen = 0
  }

  /**
   * The key and colon at `p` of the object begun last: returns the position past the colon (the
   * value's whitespace not skipped), with `id` set, or -1 for a key that is not a string without
   * escapes, a missing colon, or a kept key seen before in this object.
   */
  readKey(r: JsonReader, p: number): number {
    const b = r.bytes
    let id = this.#next[this.#slot] as number
    if (id >= 0) {
      // The predicted key: its token's bytes are a valid key and colon, so a match is one.
      const k = this.#tokens[id] as Uint8Array
      if (bytesAt(r, p, k, this.#words[id] as Int32Array)) p += k.length
      else id = -1
    }
    if (id < 0) {
      p = r.scanText(p)
      if (p < 0) return -1
      id = this.keys.find(b, r.textStart, r.textLength)
      p = skipWs(b, p)
      if (b[p] !== 58) return -1
      p++
      if (id >= 0) this.#next[this.#slot] = id
    }
    this.#slot = id + 1 || this.#unknown
    this.key = id
    if (id >= this.kept) id = -1
    else if (id >= 0) {
      if ((this.#seen & (1 << id)) !== 0) return -1
      this.#seen |= 1 << id
    }
    this.id = id
    return p
  }
}

/** Strings cached by content: types and function names repeat on every line. Bounded: a slot is overwritten. */
const INTERN_SLOTS = 256
/** Longest string cached: a slot's room in the byte pool (a multiple of 4, for word compares). */
const INTERN_MAX = 96

/**
 * The values of strings without escapes, as `JSON.parse` of the UTF-8 line gives them:
 * canonical decimals of up to 15 digits from `String(n)` (exact below 10^15, and V8 caches
 * small ones), short strings from a cache of recent ones (kept by the owner with its reader),
 * others decoded. The cache keeps each slot's bytes in one pool allocated once, so a miss
 * (most senders are new) costs the decode and a copy, nothing else.
 */
export class TextValues {
  readonly #pool = new Uint8Array(INTERN_SLOTS * INTERN_MAX)
  /** The pool as a DataView, compared with the line four bytes at a time. */
  readonly #poolView = new DataView(this.#pool.buffer)
  /** Length in bytes of each slot's string, -1 for an empty slot. */
  readonly #length = new Int32Array(INTERN_SLOTS).fill(-1)
  readonly #text: string[] = new Array<string>(INTERN_SLOTS).fill('')

  /** The value of the string `r.scanText` just read. */
  of(r: JsonReader): string {
    const b = r.bytes as Buffer
    const s = r.textStart
    const n = r.textLength
    const e = s + n
    const first = b[s] as number
    if (n > 0 && n < 16 && first >= 49 && first <= 57) {
      let v = 0
      let i = s
      for (; i < e; i++) {
        const c = b[i] as number
        if (!(c >= 48 && c <= 57)) break
        v = v * 10 + (c - 48)
      }
      if (i === e) return String(v)
    }
    if (n > INTERN_MAX) return b.toString('utf8', s, e)
    const slot = (n * 7 + first * 5 + (b[e - 1] as number) * 3 + (b[s + (n >> 1)] as number) + (b[s + (n >> 2)] as number) * 11) & (INTERN_SLOTS - 1)
    const at = slot * INTERN_MAX
    const pool = this.#pool
    if (this.#length[slot] === n) {
      const m = n >> 2
      const v = r.view
      const w = this.#poolView
      let i = 0
      while (i < m && v.getInt32(s + 4 * i, true) === w.getInt32(at + 4 * i, true)) i++
      if (i === m) {
        i <<= 2
        while (i < n && pool[at + i] === b[s + i]) i++
        if (i === n) return this.#text[slot] as string
      }
    }
    const value = b.toString('utf8', s, e)
    // A copy: a view would keep the whole read chunk alive in the cache.
    for (let i = 0; i < n; i++) pool[at + i] = b[s + i] as number
    this.#length[slot] = n
    this.#text[slot] = value
    return value
  }
}
