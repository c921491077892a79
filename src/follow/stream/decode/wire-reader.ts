
/** Wire types of the protobuf binary format (protobuf.dev/programming-guides/encoding). */
export const VARINT = 0
export const I64 = 1
export const LEN = 2
export const SGROUP = 3
export const EGROUP = 4
export const I32 = 5

/**
 * Bytes that are not a valid protobuf message of the expected type: cut short, a length past
 * its message's end, an impossible tag or wire type, a string that is not UTF-8. `offset` is
 * where in the message the reader stopped.
 */
export class WireFormatError extends Error {
  /** What is wrong, without the offset. */
  readonly detail: string
  readonly offset: number
  constructor(detail: string, offset: number) {
    super(`${detail} (byte ${offset})`)
    this.name = 'WireFormatError'
    this.detail = detail
    this.offset = offset
  }
}

/** Strings up to this many bytes are checked for ASCII in JS; longer ones go to `UTF8`. */
const SHORT_STRING = 64

/** Strict UTF-8, as proto3 strings must be (protobuf-es's decoder throws too); a leading U+FEFF is text. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Groups nest at most this deep when skipped (protobuf-es's default recursion limit). */
const MAX_GROUP_DEPTH = 100

/**
 * A cursor over one message's wire bytes. Every read checks its bounds against `end` (the
 * enclosing message's end), so a length or varint that runs past it throws `WireFormatError`
 * instead of reading a neighbour's bytes; nothing loops without consuming a byte, so a
 * malformed message can only throw, never hang.
 *
 * Values come back in protobuf-es's local representation, so a hand-written decoder built on
 * it yields what `fromBinary` yields: uint64 as bigint (or decimal string for
 * `jstype = JS_STRING`), int32/enum as a signed number, uint32 as an unsigned one, bytes as a
 * view into the input, strings validated as UTF-8 (proto3 requires it; protobuf-es throws too).
 */
export class WireReader {
  /** The message's bytes as given: `bytes` fields are views into it, of its own class. */
  readonly input: Uint8Array
  /** The same bytes as a Buffer, for decoding strings. */
  readonly buf: Buffer
  /** The same bytes as a DataView, for reads wider than a byte (copies into a TextWriter). */
  readonly view: DataView
  pos = 0

  constructor(bytes: Uint8Array) {
    this.input = bytes
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get length(): number {
    return this.buf.length
  }

  fail(message: string): never {
    throw new WireFormatError(message, this.pos)
  }

  /** The next tag (field number << 3 | wire type) before `end`. */
  tag(end: number): number {
    const at = this.pos
    const t = this.varint32(end)
    if (this.pos - at > 5 || t >>> 3 === 0 || (t & 7) > 5) {
      this.pos = at
      this.fail(`invalid tag ${t >>> 0} (field ${t >>> 3}, wire type ${t & 7})`)
    }
    return t >>> 0
  }

  /**
   * A varint's low 32 bits (uint32, int32 with `| 0`, enum, bool, length, tag). A varint has
   * at most 10 bytes; the bytes past the 5th only carry bits above 32.
   */
  varint32(end: number): number {
    const buf = this.buf
    let pos = this.pos
    let result = 0
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= end) this.fail('varint cut short')
      const b = buf[pos++] as number
      if (shift < 32) result |= (b & 0x7f) << shift
      if (b < 0x80) {
        this.pos = pos
        return result >>> 0
      }
    }
    this.pos = pos
    return this.fail('varint longer than 10 bytes')
  }

  /** A uint64 varint, exact, truncated to 64 bits as protobuf-es does. */
  uint64(end: number): bigint {
    const start = this.pos
    const low = this.varint32(end)
    // Up to 4 bytes carry 28 bits, all inside varint32's result: the common case.
    if (this.pos - start <= 4) return BigInt(low)
    return this.#wide(start)
  }

  /** A uint64 varint as its decimal string (`jstype = JS_STRING`). */
  uint64String(end: number): string {
    const start = this.pos
    const value = this.varintNumber(end)
    return value >= 0 ? String(value) : String(this.#wide(start))
  }

  /** A uint64 varint as a number when below 2^49 (exact), else as its decimal string: `uint64String` without the string for a common value. */
  uint64Value(end: number): number | string {
    const start = this.pos
    const value = this.varintNumber(end)
    return value >= 0 ? value : String(this.#wide(start))
  }

  /**
   * A varint of at most seven bytes as a number (below 2^49, so exact, and the same value as a
   * uint64 or int64 read); −1 for a longer one. The position moves past it either way.
   */
  varintNumber(end: number): number {
    const start = this.pos
    const buf = this.buf
    // Seven bytes carry 49 bits, below 2^53: summed as a double it is exact.
    let value = 0
    let scale = 1
    for (let pos = start; pos < end && pos - start < 7; pos++) {
      const b = buf[pos] as number
      value += (b & 0x7f) * scale
      if (b < 0x80) {
        this.pos = pos + 1
        return value
      }
      scale *= 128
    }
    this.varint32(end)
    return -1
  }

  /** An int64 varint (two's complement, 10 bytes for a negative number). */
  int64(end: number): bigint {
    const start = this.pos
    this.varint32(end)
    return BigInt.asIntN(64, this.#wide(start))
  }

  /** The varint from `start` to `this.pos` as an unsigned 64-bit bigint. */
  #wide(start: number): bigint {
    let v = 0n
    for (let p = this.pos - 1; p >= start; p--) v = (v << 7n) | BigInt((this.buf[p] as number) & 0x7f)
    return BigInt.asUintN(64, v)
  }

  /** End of a length-delimited field whose length prefix is next, checked against `end`. */
  lengthEnd(end: number): number {
    const length = this.varint32(end)
    const stop = this.pos + length
    if (stop > end) this.fail(`length ${length} runs past the end of its message`)
    return stop
  }

  string(end: number): string {
    const stop = this.lengthEnd(end)
    const start = this.pos
    this.pos = stop
    return this.text(start, stop)
  }

  /** The string field whose bytes are `buf[start, stop)`, validated as UTF-8 (a fault names `start`). */
  text(start: number, stop: number): string {
    const buf = this.buf
    // A short string is checked for ASCII here, cheaper than a call out; a long one (event
    // data, resources: JSON text) is validated and decoded in one pass by the fatal decoder.
    if (stop - start <= SHORT_STRING) {
      let i = start
      while (i < stop && (buf[i] as number) < 0x80) i++
      if (i === stop) return buf.toString('latin1', start, stop)
    }
    try {
      return UTF8.decode(buf.subarray(start, stop))
    } catch {
      this.pos = start
      return this.fail('string field is not valid UTF-8')
    }
  }

  /**
   * Moves past a string field, its bytes checked as `string` checks them (same error) but no
   * string made; returns where its bytes start (they end at `pos`), for a field written or
   * read from its bytes later, or only checked.
   */
  skipString(end: number): number {
    const stop = this.lengthEnd(end)
    const start = this.pos
    this.pos = stop
    const buf = this.buf
    let i = start
    while (i < stop && (buf[i] as number) < 0x80) i++
    // ASCII is UTF-8; anything else goes through `text`, which throws what `string` throws.
    if (i < stop) this.text(start, stop)
    return start
  }

  bytes(end: number): Uint8Array {
    const stop = this.lengthEnd(end)
    const start = this.pos
    this.pos = stop
    return this.input.subarray(start, stop)
  }

  /**
   * A repeated varint field's values into `into`: one value (unpacked) or, when the wire type
   * is LEN, every varint of the packed run. Both forms are accepted for every repeated
   * scalar, as the protobuf spec asks of parsers.
   */
  repeatedVarint<T>(tag: number, end: number, into: T[], read: (end: number) => T): void {
    if ((tag & 7) === LEN) {
      const stop = this.lengthEnd(end)
      while (this.pos < stop) into.push(read(stop))
    } else if ((tag & 7) === VARINT) {
      into.push(read(end))
    } else {
      this.wrongType(tag)
    }
  }

  /** A known field number with a wire type its type never has. */
  wrongType(tag: number): never {
    return this.fail(`field ${tag >>> 3} has wire type ${tag & 7}, which its type never has`)
  }

  /**
   * Skips the field whose tag was just read (an unknown field, or one the decoder does not
   * keep), including nested groups up to a fixed depth.
   */
  skip(tag: number, end: number, depth = 0): void {
    switch (tag & 7) {
      case VARINT:
        this.varint32(end)
        return
      case I64:
        this.#advance(8, end)
        return
      case LEN:
        this.pos = this.lengthEnd(end)
        return
      case I32:
        this.#advance(4, end)
        return
      case SGROUP: {
        if (depth >= MAX_GROUP_DEPTH) this.fail('groups nested too deep')
        for (;;) {
          const inner = this.tag(end)
          if ((inner & 7) === EGROUP) {
            if (inner >>> 3 !== tag >>> 3) this.fail(`group ${tag >>> 3} closed by end-group ${inner >>> 3}`)
            return
          }
          this.skip(inner, end, depth + 1)
        }
      }
      default:
        this.fail(`unexpected end-group tag for field ${tag >>> 3}`)
    }
  }

  #advance(n: number, end: number): void {
    if (this.pos + n > end) this.fail('fixed-width value cut short')
    this.pos += n
  }
}
