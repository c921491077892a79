import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type ReadApiServer } from '../../src/api/index.js'
import { MemoryStore } from '../../src/ledger/memory-store.js'
import { ChainBuilder } from '../helpers/chain-builder.js'

const ROOT = join(import.meta.dirname, '../..')
const ARTIFACTS = join(ROOT, 'test', 'artifacts')

/** The system Chromium (`command -v chromium`). */
function chromiumPath(): string {
  return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim()
}

let browser: Browser
let server: ReadApiServer
let store: MemoryStore
let url: string

beforeAll(async () => {
  // The bundled chain: its blocks are from 2025, so by any clock of today its newest block is old.
  store = await MemoryStore.fromJsonLines(join(ROOT, 'data', 'chain.jsonl'))
  server = await createServer({ store, streamKeepAliveMs: 1000 })
  url = await server.listen({ port: 0, host: '127.0.0.1' })
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

/** A page that records its requests, script errors and console errors (a content security policy violation is one). */
async function openPage(viewport: { width: number; height: number }) {
  const page = await browser.newPage({ viewport })
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (r) => requests.push(r.url()))
  page.on('pageerror', (e) => errors.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  return { page, requests, errors }
}

// Waits are locator waits, which Playwright runs outside the page's script: the page's CSP
// forbids eval, which `waitForFunction` needs whenever it has to poll.
const until = (page: Page, selector: string, text: RegExp) => page.locator(selector, { hasText: text }).waitFor({ state: 'attached' })
const text = (page: Page, id: string) => page.locator(`#${id}`).textContent()

describe('the live gas page (GET /) in Chromium', () => {
  it('is one document whose script and style are files of this server, under a CSP with no inline script, no inline style, no eval', async () => {
    const res = await fetch(`${url}/`)
    const csp = res.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("style-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    const html = await res.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=|<style/)
    const script = await fetch(`${url}/gas-page.js`)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('x-request-id')).toMatch(/\S/)
    // Bundled: one classic script, no module imports left for the browser to resolve.
    expect(await script.text()).not.toMatch(/^\s*import\s/m)
    expect((await fetch(`${url}/gas-page.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8')
  })

  it('shows the estimate of /v1/estimate_gas_price and the calibrated tiers with their promises, draws both charts, and updates when a block is appended', async () => {
    const { page, requests, errors } = await openPage({ width: 1280, height: 900 })
    await page.goto(`${url}/`)

    const served = (await (await fetch(`${url}/v1/estimate_gas_price`)).json()) as Record<string, number>
    await until(page, '#live', /^stale$/)
    expect(await text(page, 'aptos-deprioritized')).toBe(String(served.deprioritized_gas_estimate))
    expect(await text(page, 'aptos-regular')).toBe(String(served.gas_estimate))
    expect(await text(page, 'aptos-prioritized')).toBe(String(served.prioritized_gas_estimate))
    const calibrated = (await (await fetch(`${url}/v1/gas/estimate`)).json()) as Record<string, { price: number; promise: { k: number; q: number } }>
    await until(page, '#promise-regular', /\S/)
    expect(await text(page, 'calibrated-regular')).toBe(String(calibrated.regular?.price))
    expect(await text(page, 'promise-regular')).toBe(`included within ${calibrated.regular?.promise.k} blocks with p ≥ ${calibrated.regular?.promise.q}`)
    // The window figures come from the API at the tier's own price and promise.
    const { price, promise } = calibrated.regular as { price: number; promise: { k: number; q: number } }
    const inclusion = (await (await fetch(`${url}/v1/gas/inclusion?price=${price}&k=${promise.k}`)).json()) as { probability: number }
    const window = (await (await fetch(`${url}/v1/gas/price?k=${promise.k}&q=${promise.q}`)).json()) as { price: number }
    await until(page, '#inverse-regular', /^window: /)
    expect(await text(page, 'inverse-regular')).toBe(`window: ${(100 * inclusion.probability).toFixed(1)}% get in within ${promise.k} blocks at this price; ${window.price} met the promise`)
    expect(await page.locator('#chart rect').count()).toBe(300)
    expect(await text(page, 'history-summary')).toMatch(/^[1-9]\d* of the last 300 blocks were full \([a-z ]+: \d+/)
    expect(await page.locator('#tier-chart path').count()).toBe(3)
    expect(await page.locator('#tier-chart rect.hit').count()).toBeGreaterThan(100)
    expect(await page.locator('#tier-chart rect.hit title').last().textContent()).toMatch(/^block \d+: deprioritized \d+, regular \d+, prioritized \d+ octas\/gas, (full block|not full) \(/)
    // Units on every axis; the legend in a user's words.
    expect(await page.locator('#chart text', { hasText: 'octas / gas unit' }).count()).toBe(1)
    expect(await page.locator('#chart text', { hasText: 'block height' }).count()).toBe(1)
    expect(await page.locator('#tier-chart text', { hasText: 'octas / gas unit' }).count()).toBe(1)
    expect(await page.locator('#tier-chart text', { hasText: 'block height' }).count()).toBe(1)
    expect(await page.locator('.legend', { hasText: 'full block' }).count()).toBe(1)
    expect(await page.content()).not.toContain('block_end_info')
    expect(await text(page, 'cost-regular')).toMatch(/^≈ \d+(\.\d+)? APT for a typical transfer$/)

    // A new block reaches the page through the event stream.
    const info = await store.ledgerInfo()
    const height = BigInt(info?.block_height ?? 0)
    const last = await store.blockByHeight(info?.block_height ?? 0, false)
    const next = new ChainBuilder({ height: height + 1n, version: BigInt(info?.ledger_version ?? 0) + 1n, epoch: info?.epoch ?? 0, timestamp: BigInt(last?.block_timestamp ?? 0) + 1_000_000n })
    await server.appendBlock(next.block({ users: [{ sender: 1, gas_unit_price: 150 }] }))
    const newHeight = String(height + 1n)
    await until(page, '#block-height', new RegExp(`^${newHeight}$`))
    const after = (await (await fetch(`${url}/v1/estimate_gas_price`)).json()) as Record<string, number>
    expect(await text(page, 'aptos-regular')).toBe(String(after.gas_estimate))
    await until(page, '#chart rect:last-of-type title', new RegExp(`^block ${newHeight}:`))
    await until(page, '#chain-time', new RegExp(`^block ${newHeight} at `))

    // Self-contained: every request the page made went to this server; it used the stream.
    expect(requests.every((r) => r.startsWith(url))).toBe(true)
    expect(requests).toContain(`${url}/v1/gas/stream`)
    expect(errors).toEqual([])
    await page.close()
  }, 60_000)

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1920, height: 1080 },
  ]) {
    it(`at ${viewport.width}×${viewport.height}: no horizontal scroll, the block's chain time and age, "updated N s ago", and the stale state of an old chain`, async () => {
      const { page, errors } = await openPage(viewport)
      await page.goto(`${url}/`)
      await until(page, '#live', /^stale$/)
      await until(page, '#updated-ago', /^updated \d+ s ago$/)
      await until(page, '#inverse-prioritized', /^window: /)
      const info = await store.ledgerInfo()
      expect(await text(page, 'chain-time')).toMatch(new RegExp(`^block ${info?.block_height} at 2025-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC$`))
      expect(await text(page, 'block-age')).toMatch(/^\d+ days old$/)
      expect(await text(page, 'stale-threshold')).toBe('30')
      expect(await page.locator('#live').getAttribute('class')).toBe('status stale')
      const note = page.locator('#stale-note')
      expect(await note.isVisible()).toBe(true)
      expect(await note.textContent()).toMatch(/^Stale: the newest block is \d+ days old, past this server's threshold of 30 s\./)
      // Never "live" beside an old block.
      expect(await text(page, 'live')).not.toMatch(/live/)
      // No horizontal overflow: the document is no wider than the viewport.
      // An expression, not a function: this file is type-checked without the DOM library.
      const widths = (await page.evaluate('({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, body: document.body.scrollWidth })')) as { scroll: number; client: number; body: number }
      expect(widths.scroll).toBeLessThanOrEqual(viewport.width)
      expect(widths.body).toBeLessThanOrEqual(widths.client)
      for (const id of ['chart', 'tier-chart']) {
        const box = await page.locator(`#${id}`).boundingBox()
        expect(box && box.x + box.width <= viewport.width, `#${id} fits the viewport`).toBe(true)
      }
      mkdirSync(ARTIFACTS, { recursive: true })
      await page.screenshot({ path: join(ARTIFACTS, `gas-page-${viewport.width}.png`), fullPage: true })
      // Keyboard: the first Tab reaches the skip link, which leads to the prices.
      await page.keyboard.press('Tab')
      expect(await page.locator('a.skip:focus').count()).toBe(1)
      expect(await page.locator('h1').count()).toBe(1)
      expect(await page.locator('h2').count()).toBe(3)
      expect(errors).toEqual([])
      await page.close()
    }, 60_000)
  }

  it('with the stream off (stream: false) polls instead, says so, shows a fresh chain as live, and still shows a new block', async () => {
    // A chain whose blocks are from now: fresh by the threshold given.
    const chain = new ChainBuilder({ timestamp: BigInt(Date.now()) * 1000n })
    const polled = new MemoryStore({ chainId: 4 })
    for (const b of chain.blocks(20, (i) => [{ sender: 1, gas_unit_price: 100 + i }])) polled.appendBlock(b)
    const off = await createServer({ store: polled, stream: false, streamPollMs: 100, staleAfterSecs: 3600 })
    try {
      const base = await off.listen({ port: 0, host: '127.0.0.1' })
      const page = await browser.newPage()
      const requests: string[] = []
      page.on('request', (r) => requests.push(new URL(r.url()).pathname))
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      await page.goto(`${base}/`)
      await page.locator('#live', { hasText: /^live \(polling\)$/ }).waitFor()
      expect(await page.locator('#live').getAttribute('title')).toBe('the stream is off on this server; polling /v1/estimate_gas_price every 100 ms')
      expect(await page.locator('#block-height').textContent()).toBe('19')
      expect(await page.locator('#serves').textContent()).toBe('aptos')
      expect(await page.locator('#stale-note').isVisible()).toBe(false)
      expect(await page.locator('#stale-threshold').textContent()).toBe('3600')
      await off.appendBlock(chain.block({ users: [{ sender: 2, gas_unit_price: 170 }] }))
      await page.locator('#block-height', { hasText: /^20$/ }).waitFor()
      const served = (await (await fetch(`${base}/v1/estimate_gas_price`)).json()) as Record<string, number>
      expect(await page.locator('#aptos-regular').textContent()).toBe(String(served.gas_estimate))
      // It never tried the stream, and nothing failed.
      expect(requests).not.toContain('/v1/gas/stream')
      expect(errors).toEqual([])
      await page.close()
    } finally {
      await off.close()
    }
  }, 60_000)
})
