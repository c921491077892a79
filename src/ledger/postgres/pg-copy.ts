import type pg from 'pg'

/**
 * `COPY … FROM STDIN` on a `pg` client: the rows of a table in COPY's text format, sent as
 * CopyData messages of `chunks`. What the server does with them is what a bulk load of the
 * same rows costs (no statement per row, no parameter parsing), so it runs inside the caller's
 * transaction like any other statement. Built on `pg`'s `Submittable` contract (the client
 * hands the query its connection and the server's replies), as pg-copy-streams is, without a
 * stream: the rows are in memory already.
 *
 * @example await copyFrom(client, 'COPY blocks FROM STDIN', [rows])
 * @returns the number of rows the server copied.
 */
export function copyFrom(client: pg.ClientBase, text: string, chunks: readonly Uint8Array[]): Promise<number> {
  return new Promise((resolve, reject) => {
    client.query(new CopyIn(text, chunks, resolve, reject))
  })
}

/** Bytes of COPY text at most per CopyData message: the server reads its socket in pieces of about this size anyway. */
const MESSAGE_BYTES = 1 << 20

/** Minimal shape of `pg`'s internal connection that a COPY needs (pg-copy-streams relies on the same methods). */
interface CopyConnection {
  query(text: string): void
  sendCopyFromChunk(chunk: Uint8Array): void
  endCopyFrom(): void
  sendCopyFail(message: string): void
}

/** One COPY FROM STDIN as `pg` runs a query: `submit` sends it, the client calls back with the server's replies. */
class CopyIn implements pg.Submittable {
  #rows = 0
  #error: unknown
  constructor(
    readonly text: string,
    readonly chunks: readonly Uint8Array[],
    readonly resolve: (rows: number) => void,
    readonly reject: (error: unknown) => void,
  ) {}

  submit(connection: pg.Connection): void {
    ;(connection as unknown as CopyConnection).query(this.text)
  }

  /** The server is ready for the rows: all of them, then the end. */
  handleCopyInResponse(connection: CopyConnection): void {
    for (const chunk of this.chunks) {
      for (let at = 0; at < chunk.length; at += MESSAGE_BYTES) connection.sendCopyFromChunk(chunk.subarray(at, Math.min(chunk.length, at + MESSAGE_BYTES)))
    }
    connection.endCopyFrom()
  }

  handleCommandComplete(message: { text?: string }): void {
    this.#rows = Number(/\d+$/.exec(message.text ?? '')?.[0] ?? 0)
  }

  /** A statement that fails, or a lost connection (then no `handleReadyForQuery` follows): settles at once. */
  handleError(error: unknown): void {
    this.#error = error
    this.reject(error)
  }

  handleReadyForQuery(): void {
    if (this.#error === undefined) this.resolve(this.#rows)
  }

  // Replies a COPY FROM never gets; `pg` calls them on any query.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handleCopyData(): void {}
  handlePortalSuspended(): void {}
}

/**
 * Rows of a table in COPY's text format, written into one growing buffer: columns separated by
 * a tab, rows ended by a newline, NULL as `\N`, a backslash in a value doubled. O(bytes), one
 * copy of each value. `reset` starts again in the same buffer, so a writer that keeps one pays
 * for fresh memory (page faults on every byte of it) once, not per batch.
 */
export class CopyText {
  #buf: Buffer
  #size = 0

  /** `capacity`: bytes to reserve, when known (it grows as needed). */
  constructor(capacity = 1 << 16) {
    this.#buf = Buffer.allocUnsafe(Math.max(64, capacity))
  }

  get byteLength(): number {
    return this.#size
  }

  /** Empties it, keeping the buffer (views from `bytes` are then stale). */
  reset(): this {
    this.#size = 0
    return this
  }

  /** A value that holds no backslash, tab or line break (numbers, hex, addresses), then a tab. */
  plain(value: string): this {
    return this.#ascii(value, TAB)
  }

  /** NULL, then a tab. */
  null(): this {
    this.#room(3)
    this.#buf[this.#size++] = BACKSLASH
    this.#buf[this.#size++] = 0x4e
    this.#buf[this.#size++] = TAB
    return this
  }

  /**
   * The last value of a row: JSON text as `JSON.stringify` writes it, in UTF-8, then the newline
   * that ends the row. Such text never holds a raw newline, carriage return or tab (it escapes
   * every control character), so only its backslashes need COPY's escape: found by the native
   * `indexOf`. O(bytes).
   */
  lastJson(bytes: Uint8Array): this {
    this.#room(bytes.length + 1)
    let from = 0
    for (let i = bytes.indexOf(BACKSLASH); i !== -1; i = bytes.indexOf(BACKSLASH, from)) {
      this.#room(2 + bytes.length - from)
      this.#buf.set(bytes.subarray(from, i + 1), this.#size)
      this.#size += i + 1 - from
      this.#buf[this.#size++] = BACKSLASH
      from = i + 1
    }
    this.#buf.set(from === 0 ? bytes : bytes.subarray(from), this.#size)
    this.#size += bytes.length - from
    this.#buf[this.#size++] = NEWLINE
    return this
  }

  /** The last value of a row that needs no escape (see `plain`), then the newline. */
  lastPlain(value: string): this {
    return this.#ascii(value, NEWLINE)
  }

  /** The rows written so far (a view: valid until the next write). */
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#size)
  }

  /** An ASCII value, then `end` (a tab or the newline). */
  #ascii(value: string, end: number): this {
    this.#room(value.length + 1)
    this.#size += this.#buf.write(value, this.#size, 'latin1')
    this.#buf[this.#size++] = end
    return this
  }

  #room(more: number): void {
    if (this.#size + more <= this.#buf.length) return
    const grown = Buffer.allocUnsafe(Math.max(2 * this.#buf.length, this.#size + more))
    this.#buf.copy(grown, 0, 0, this.#size)
    this.#buf = grown
  }
}

const TAB = 0x09
const NEWLINE = 0x0a
const BACKSLASH = 0x5c
