import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/follow/backoff.js'
import { NodeResponseError, NodeUnavailableError } from '../../src/follow/errors.js'
import { NodeClient, type RetryEvent } from '../../src/follow/node-client.js'
import { sleep } from '../../src/follow/sleep.js'
import { until, watchTimers } from '../helpers/wait.js'
import { answer } from '../helpers/fake-node.js'

const NOW = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')
const OK = () => answer(200, { ok: true })

/** A client over a scripted fetch; sleeps are recorded, not waited (unless `realSleep`). */
function client(script: (n: number, url: string, signal: AbortSignal) => Response | Promise<Response>, options: { retry?: Partial<RetryPolicy>; random?: number; realSleep?: boolean; timeoutMs?: number } = {}) {
  const calls: string[] = []
  const sleeps: number[] = []
  const retries: RetryEvent[] = []
  const controller = new AbortController()
  const c = new NodeClient({
    baseUrl: 'http://node.test/v1/',
    fetch: async (input, init) => script(calls.push(String(input)) - 1, String(input), init?.signal as AbortSignal),
    signal: controller.signal,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    timeoutMs: options.timeoutMs ?? 1000,
    headerPrefixes: ['X-APTOS-', 'X-NODE-'],
    sleep: options.realSleep ? sleep : async (ms) => void sleeps.push(ms),
    random: () => options.random ?? 0.5,
    now: () => NOW,
    onRetry: (e) => retries.push(e),
  })
  return { c, calls, sleeps, retries, controller }
}

describe('NodeClient retries', () => {
  it('retries 503 and 429 and returns the first success', async () => {
    const t = client((n) => [answer(503, {}), answer(429, {}), OK()][n] as Response)
    const a = await t.c.get('/', 'return')
    expect(a.body).toEqual({ ok: true })
    expect(t.calls).toEqual(['http://node.test/v1/', 'http://node.test/v1/', 'http://node.test/v1/'])
    expect(t.retries.map((r) => r.reason)).toEqual(['HTTP 503', 'HTTP 429'])
  })
  it('honours Retry-After in seconds: waits at least what the node asks', async () => {
    const t = client((n) => (n === 0 ? answer(429, {}, { 'Retry-After': '3' }) : OK()))
    await t.c.get('/', 'return')
    expect(t.sleeps).toEqual([3000])
    expect(t.retries[0]).toMatchObject({ status: 429, retry_after_ms: 3000, delay_ms: 3000 })
  })
  it('honours Retry-After as an HTTP date, measured from the injected clock', async () => {
    const t = client((n) => (n === 0 ? answer(503, {}, { 'retry-after': 'Wed, 21 Oct 2015 07:28:07 GMT' }) : OK()))
    await t.c.get('/', 'return')
    expect(t.sleeps).toEqual([7000])
  })
  it('keeps its own backoff when Retry-After asks for less, and cuts Retry-After at maxRetryAfterMs', async () => {
    const t = client((n) => [answer(503, {}, { 'Retry-After': '0' }), answer(503, {}, { 'Retry-After': '3600' }), OK()][n] as Response, {
      retry: { baseDelayMs: 100, maxRetryAfterMs: 5000 },
    })
    await t.c.get('/', 'return')
    expect(t.sleeps).toEqual([75, 5000])
  })
  it('backs off exponentially within [cap/2, cap] and gives up after `retries`, naming the URL and the last failure', async () => {
    for (const [random, expected] of [
      [0, [50, 100, 200, 400, 400]],
      [0.9999999, [100, 200, 400, 800, 800]],
    ] as const) {
      const t = client(() => answer(502, {}), { retry: { retries: 5, baseDelayMs: 100, maxDelayMs: 800 }, random })
      const error = await t.c.get('/blocks/by_height/7?with_transactions=true', 'retry').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(NodeUnavailableError)
      expect((error as NodeUnavailableError).attempts).toBe(6)
      expect((error as Error).message).toBe('GET http://node.test/v1/blocks/by_height/7?with_transactions=true failed 6 times, last: HTTP 502')
      expect(t.calls).toHaveLength(6)
      expect(t.sleeps).toEqual(expected)
    }
  })
  it('retries network errors and timeouts', async () => {
    const t = client(
      (n, _url, signal) => {
        if (n === 0) throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) })
        if (n === 1) return new Promise<Response>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
        return OK()
      },
      { timeoutMs: 30 },
    )
    await t.c.get('/', 'return')
    expect(t.retries.map((r) => r.reason)).toEqual(['network error (ECONNRESET)', 'timeout after 30 ms'])
  })
  it('retries a 404 `notFoundRetries` times when asked to, then returns it', async () => {
    const t = client(() => answer(404, { message: 'Block not found by Block height(9)', error_code: 'block_not_found' }), { retry: { notFoundRetries: 2 } })
    const a = await t.c.get('/blocks/by_height/9?with_transactions=true', 'retry')
    expect(a.status).toBe(404)
    expect(t.calls).toHaveLength(3)
    const once = client(() => answer(404, {}))
    expect((await once.c.get('/x', 'return')).status).toBe(404)
    expect(once.calls).toHaveLength(1)
  })
  it('returns 410 at once with the ledger headers it carries', async () => {
    const t = client(() => answer(410, { message: 'Block(3) has been pruned' }, { 'x-node-block-height': '90', 'X-NODE-OLDEST-BLOCK-HEIGHT': '10', 'X-Node-Epoch': '2' }))
    const a = await t.c.get('/blocks/by_height/3?with_transactions=true', 'retry')
    expect(a.status).toBe(410)
    expect(a.position).toEqual({ block_height: 90n, oldest_block_height: 10n, epoch: 2n })
    expect(t.calls).toHaveLength(1)
  })
})

describe('NodeClient answers it does not retry', () => {
  it('400 is a NodeResponseError carrying the node’s error code and message', async () => {
    const t = client(() => answer(400, { message: 'Invalid block height', error_code: 'invalid_input' }))
    const error = await t.c.get('/', 'return').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NodeResponseError)
    expect((error as NodeResponseError).status).toBe(400)
    expect((error as Error).message).toBe('GET http://node.test/v1/: HTTP 400 invalid_input: Invalid block height')
    expect(t.calls).toHaveLength(1)
  })
  it('a 200 whose body is not JSON is a NodeResponseError', async () => {
    const t = client(() => new Response('proxy login required', { status: 200 }))
    await expect(t.c.get('/', 'return')).rejects.toThrow(/the body is not JSON: proxy login required/)
  })
  it('a 200 HTML page is named as such, not dumped into the error', async () => {
    const t = client(() => new Response('<html>proxy login</html>', { status: 200 }))
    const error = await t.c.get('/', 'return').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NodeResponseError)
    expect((error as Error).message).toBe('GET http://node.test/v1/: the URL answered HTML, not the node API (is it the API root?)')
  })
})

describe('NodeClient in-flight de-duplication and abort', () => {
  it('two callers asking for the same URL at once share one request; a later ask makes a new one', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const t = client(async () => {
      await gate
      return OK()
    })
    const a = t.c.get('/blocks/by_height/5?with_transactions=true', 'retry')
    const b = t.c.get('/blocks/by_height/5?with_transactions=true', 'retry')
    const other = t.c.get('/blocks/by_height/6?with_transactions=true', 'retry')
    release()
    expect(await a).toBe(await b)
    await other
    expect(t.calls).toHaveLength(2)
    await t.c.get('/blocks/by_height/5?with_transactions=true', 'retry')
    expect(t.calls).toHaveLength(3)
  })
  it('an abort during a backoff wait rejects at once with the abort reason and leaves no timer', async () => {
    // The backoff wait is 45 s (cap 60 s, jitter 0.5); the request's own timeout is 1 s.
    const timers = watchTimers(30_000)
    const t = client(() => answer(503, {}), { realSleep: true, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } })
    const pending = t.c.get('/', 'return')
    await until(() => timers.pending() === 1, 'the backoff wait')
    t.controller.abort(new Error('stop'))
    await expect(pending).rejects.toThrow('stop')
    await t.c.settled()
    expect(timers.pending()).toBe(0)
    timers.restore()
  })
  it('an abort during a request rejects it and clears its timeout', async () => {
    const timers = watchTimers(60_000)
    const t = client((_n, _url, signal) => new Promise<Response>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))), { realSleep: true, timeoutMs: 60_000 })
    const pending = t.c.get('/', 'return')
    await until(() => timers.pending() === 1, "the request's timeout")
    t.controller.abort(new Error('stop'))
    await expect(pending).rejects.toThrow('stop')
    expect(timers.pending()).toBe(0)
    timers.restore()
  })
})
