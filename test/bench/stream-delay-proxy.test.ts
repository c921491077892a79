import { fork } from 'node:child_process'
import { createServer, connect, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const PROXY = fileURLToPath(new URL('../../bench/stream-delay-proxy.ts', import.meta.url))

describe('bench/stream-delay-proxy.ts', () => {
  it('passes every byte both ways unchanged and in order, and an end after the bytes before it', async () => {
    // An echo server that answers each chunk, then ends after its peer ends: the client sees its
    // whole message back only if the proxy kept order both ways and passed the end after it.
    const echo = createServer({ allowHalfOpen: true }, (s) => {
      s.on('data', (c: Buffer) => s.write(c))
      s.on('end', () => s.end())
    })
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r))
    const proxy = fork(PROXY, ['1', `127.0.0.1:${(echo.address() as AddressInfo).port}`], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--import', 'tsx'] })
    try {
      const { urls } = await new Promise<{ urls: string[] }>((resolve) => proxy.once('message', (m) => resolve(m as { urls: string[] })))
      const sent = Buffer.alloc(3 * 1024 * 1024 + 17)
      for (let i = 0; i < sent.length; i++) sent[i] = (i * 2654435761) >>> 24
      const received = await new Promise<Buffer>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: Number(new URL(urls[0] as string).port), allowHalfOpen: true })
        const parts: Buffer[] = []
        socket.on('data', (c: Buffer) => parts.push(c))
        socket.on('end', () => resolve(Buffer.concat(parts)))
        socket.on('error', reject)
        // Many writes of odd sizes, so the proxy queues many chunks at once.
        for (let at = 0; at < sent.length; at += 65_537) socket.write(sent.subarray(at, at + 65_537))
        socket.end()
      })
      expect(received.length).toBe(sent.length)
      expect(received.equals(sent)).toBe(true)
    } finally {
      const exited = new Promise((r) => proxy.once('exit', r))
      proxy.send('stop')
      await exited
      echo.close()
    }
  })
})
