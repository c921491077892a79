import { setMaxListeners } from 'node:events'
import { backoffDelay, type RetryPolicy } from './backoff.js'
import { NodeResponseError, NodeUnavailableError } from './errors.js'
import { positionFromHeaders, type NodePosition } from './ledger-info.js'
import { parseRetryAfter } from './retry-after.js'
import type { Sleep } from './sleep.js'

/** A retry about to wait: what failed and how long the client waits before asking again. */
export interface RetryEvent {
  type: 'retry'
  url: string
  /** 1 for the first retry. */
  attempt: number
  delay_ms: number
  /** `HTTP 503`, `HTTP 404`, `network error (ECONNRESET)`, `timeout after 10000 ms`. */
  reason: string
  /** The HTTP status, `null` for network errors and timeouts. */
  status: number | null
  /** The delay a `Retry-After` header asked for, when there was one. */
  retry_after_ms: number | null
}

/** A response the caller handles: success (2xx), 404 or 410. Every other outcome is retried or thrown. */
export interface NodeAnswer {
  url: string
  status: number
  /** The parsed JSON body; for 404/410 the node's error object, or `undefined` if not JSON. */
  body: unknown
  /** Position from the ledger headers, when the response carries them. */
  position: NodePosition | null
}

/** What a 404 means to the caller: an answer at once, or a lagging node to retry a few times. */
export type NotFound = 'return' | 'retry'

export interface NodeClientOptions {
  /** The API base, e.g. `http://127.0.0.1:8080/v1` (trailing slashes ignored). */
  baseUrl: string
  fetch: typeof fetch
  /** Aborting it cancels every request and wait; requests then reject with its reason. */
  signal: AbortSignal
  retry: RetryPolicy
  /** Per attempt, from sending the request to the end of its body. */
  timeoutMs: number
  headerPrefixes: readonly string[]
  sleep: Sleep
  random: () => number
  now: () => number
  onRetry: (event: RetryEvent) => void
}

type Attempt =
  | { ok: true; status: number; text: string; headers: Headers }
  | { ok: false; reason: string; status: number | null; retryAfterMs: number | null }

/** 408, 429 and 5xx may pass on their own; every other status is an answer. */
function transient(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599)
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error)
  return `network error (${detail})`
}

/** The node's `{message, error_code}` as one phrase, or the body's start when it is not one. */
function describeErrorBody(body: unknown, text: string): string {
  const o = body as { message?: unknown; error_code?: unknown } | undefined
  if (typeof o?.message === 'string') return typeof o.error_code === 'string' ? `${o.error_code}: ${o.message}` : o.message
  if (/^\s*</.test(text)) return '(an HTML page, not the node API)'
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** A web page rather than an API answer: an HTML content type, or a body that opens with a tag. */
function looksLikeHtml(text: string, headers: Headers): boolean {
  return /\bhtml\b/i.test(headers.get('content-type') ?? '') || /^\s*</.test(text)
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * GETs JSON from a node with bounded retries, per-attempt timeouts and in-flight de-duplication:
 * while a request for a URL is under way (retries included) every other caller asking for the
 * same URL shares it, so the node never sees two requests for the same resource at once.
 */
export class NodeClient {
  /** HTTP requests sent so far (retries included, shared ones once). */
  requests = 0
  readonly #o: NodeClientOptions
  readonly #base: string
  readonly #inflight = new Map<string, Promise<NodeAnswer>>()

  constructor(options: NodeClientOptions) {
    this.#o = options
    this.#base = options.baseUrl.replace(/\/+$/, '')
    // Each attempt and wait listens on the signal for its lifetime; many run at once by design.
    setMaxListeners(1024, options.signal)
  }

  /** The absolute URL of `path` (which starts with `/`). */
  url(path: string): string {
    return `${this.#base}${path}`
  }

  /**
   * GET `path` and parse its JSON. Network errors, timeouts, 408, 429 and 5xx are retried with
   * backoff (honouring `Retry-After`); a 404 is retried `notFoundRetries` times when
   * `notFound` is `retry`; 2xx, 404 and 410 are answers.
   *
   * @throws NodeUnavailableError when every retry failed; NodeResponseError for another status or
   *   a 2xx body that is not JSON; the signal's reason once it aborts.
   */
  get(path: string, notFound: NotFound): Promise<NodeAnswer> {
    const url = this.url(path)
    let pending = this.#inflight.get(url)
    if (pending === undefined) {
      pending = this.#withRetries(url, notFound).finally(() => this.#inflight.delete(url))
      this.#inflight.set(url, pending)
    }
    return pending
  }

  /** Resolves once no request is in flight (after an abort: once every one has unwound). */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight.values()])
  }

  async #withRetries(url: string, notFound: NotFound): Promise<NodeAnswer> {
    const policy = this.#o.retry
    let failures = 0
    let notFounds = 0
    for (;;) {
      const a = await this.#attempt(url)
      let wait: number
      let why: { reason: string; status: number | null; retryAfterMs: number | null }
      if (a.ok) {
        const body = parseJson(a.text)
        const position = positionFromHeaders(a.headers, this.#o.headerPrefixes)
        if (a.status >= 200 && a.status <= 299) {
          if (body === undefined && looksLikeHtml(a.text, a.headers)) throw new NodeResponseError(url, a.status, `the URL answered HTML, not the node API${/\/v1$/.test(this.#base) ? ' (is it the API root?)' : ` — did you mean ${this.#base}/v1?`}`)
          if (body === undefined) throw new NodeResponseError(url, a.status, `the body is not JSON: ${describeErrorBody(undefined, a.text)}`)
          return { url, status: a.status, body, position }
        }
        if (a.status === 410) return { url, status: a.status, body, position }
        if (a.status !== 404) throw new NodeResponseError(url, a.status, `HTTP ${a.status} ${describeErrorBody(body, a.text)}`)
        if (notFound === 'return' || notFounds >= policy.notFoundRetries) return { url, status: a.status, body, position }
        wait = backoffDelay(notFounds++, policy, this.#o.random)
        why = { reason: 'HTTP 404', status: 404, retryAfterMs: null }
      } else {
        if (failures >= policy.retries) throw new NodeUnavailableError(url, failures + 1, a.reason)
        wait = backoffDelay(failures++, policy, this.#o.random)
        if (a.retryAfterMs !== null) wait = Math.max(wait, Math.min(a.retryAfterMs, policy.maxRetryAfterMs))
        why = a
      }
      this.#o.onRetry({ type: 'retry', url, attempt: failures + notFounds, delay_ms: wait, reason: why.reason, status: why.status, retry_after_ms: why.retryAfterMs })
      await this.#o.sleep(wait, this.#o.signal)
    }
  }

  /** One request: its status and whole body, or why it failed in a way worth retrying. */
  async #attempt(url: string): Promise<Attempt> {
    const outer = this.#o.signal
    if (outer.aborted) throw outer.reason
    const controller = new AbortController()
    const onAbort = () => controller.abort(outer.reason)
    outer.addEventListener('abort', onAbort, { once: true })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, this.#o.timeoutMs)
    this.requests++
    try {
      const res = await this.#o.fetch(url, { signal: controller.signal, headers: { accept: 'application/json' } })
      // The body is read to the end even for errors: an unread body pins the connection.
      const text = await res.text()
      if (transient(res.status)) {
        return { ok: false, reason: `HTTP ${res.status}`, status: res.status, retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), this.#o.now()) }
      }
      return { ok: true, status: res.status, text, headers: res.headers }
    } catch (error) {
      if (outer.aborted) throw outer.reason
      return { ok: false, reason: timedOut ? `timeout after ${this.#o.timeoutMs} ms` : describeNetworkError(error), status: null, retryAfterMs: null }
    } finally {
      clearTimeout(timer)
      outer.removeEventListener('abort', onAbort)
    }
  }
}
