import { connect, type Socket } from 'node:net'
import type { Reply } from './harness.js'

/**
 * A keep-alive HTTP/1.1 client that writes request targets byte for byte (no URL normalization:
 * `..`, raw UTF-8, `%` junk reach the server as sent) and reads one response at a time.
 * Reconnects when the server closed the connection (as it does after a parser error).
 */
export class RawClient {
  private socket: Socket | null = null
  private buffer = Buffer.alloc(0)
  private waiter: (() => void) | null = null
  private closed = true

  constructor(private readonly port: number) {}

  /** GET `target` (its UTF-8 bytes as the request target); resolves with the parsed response. */
  async get(target: string): Promise<Reply> {
    if (this.closed) await this.open()
    const socket = this.socket as Socket
    socket.write(Buffer.concat([Buffer.from('GET '), Buffer.from(target, 'utf8'), Buffer.from(' HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n')]))
    const headEnd = await this.until(() => this.buffer.indexOf('\r\n\r\n'))
    const head = this.buffer.subarray(0, headEnd).toString('latin1')
    const lines = head.split('\r\n')
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0] as string)?.[1])
    const headers: Record<string, string> = {}
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'])
    if (!Number.isInteger(length)) throw new Error(`no content-length in ${head}`)
    await this.until(() => (this.buffer.length - headEnd - 4 >= length ? 1 : -1))
    const body = this.buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8')
    this.buffer = this.buffer.subarray(headEnd + 4 + length)
    if (headers.connection === 'close') await this.until(() => (this.closed ? 1 : -1))
    return { status, headers, body }
  }

  close(): void {
    this.socket?.destroy()
  }

  private open(): Promise<void> {
    this.buffer = Buffer.alloc(0)
    return new Promise((resolve, reject) => {
      const socket = connect(this.port, '127.0.0.1', () => resolve())
      this.socket = socket
      this.closed = false
      socket.once('error', reject)
      socket.on('data', (chunk: Buffer) => {
        this.buffer = Buffer.concat([this.buffer, chunk])
        this.waiter?.()
      })
      socket.on('close', () => {
        this.closed = true
        this.waiter?.()
      })
    })
  }

  /** Waits until `probe` returns a non-negative number (re-checked on every chunk), and returns it. */
  private async until(probe: () => number): Promise<number> {
    for (;;) {
      const n = probe()
      if (n >= 0) return n
      if (this.closed) throw new Error(`connection closed with ${this.buffer.length} bytes unread`)
      await new Promise<void>((resolve) => (this.waiter = resolve))
      this.waiter = null
    }
  }
}
