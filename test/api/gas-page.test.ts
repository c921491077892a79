import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
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
  store = await MemoryStore.fromJsonLines(join(ROOT, 'data', 'chain.jsonl'))
  server = await createServer({ store, streamKeepAliveMs: 1000 })
  url = await server.listen({ port: 0, host: '127.0.0.1' })
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the live gas page (GET /) in Chromium', () => {
  it('shows the estimate of /v1/estimate_gas_price and the calibrated tiers with their promises, draws the fee history, and updates when a block is appended', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const requests: string[] = []
    page.on('request', (r) => requests.push(r.url()))
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(String(e)))
    await page.goto(`${url}/`)

    const served = (await (await fetch(`${url}/v1/estimate_gas_price`)).json()) as Record<string, number>
    const text = (id: string) => page.locator(`#${id}`).textContent()
    // Waits are locator waits, which Playwright runs outside the page's script: the page's CSP
    // forbids eval, which `waitForFunction` needs whenever it has to poll.
    const until = (selector: string, text: RegExp) => page.locator(selector, { hasText: text }).waitFor({ state: 'attached' })
    await until('#live', /^live$/)
    expect(await text('aptos-deprioritized')).toBe(String(served.deprioritized_gas_estimate))
    expect(await text('aptos-regular')).toBe(String(served.gas_estimate))
    expect(await text('aptos-prioritized')).toBe(String(served.prioritized_gas_estimate))
    const calibrated = (await (await fetch(`${url}/v1/gas/estimate`)).json()) as Record<string, { price: number; promise: { k: number; q: number } }>
    await until('#promise-regular', /\S/)
    expect(await text('calibrated-regular')).toBe(String(calibrated.regular?.price))
    expect(await text('promise-regular')).toBe(`included within ${calibrated.regular?.promise.k} blocks with p ≥ ${calibrated.regular?.promise.q}`)
    expect(await page.locator('#chart rect').count()).toBe(300)
    expect(await text('history-summary')).toMatch(/^[1-9]\d* of the last 300 blocks were full \([a-z_]+ \d+/)

    // A new block reaches the page through the event stream.
    const info = await store.ledgerInfo()
    const height = BigInt(info?.block_height ?? 0)
    const last = await store.blockByHeight(info?.block_height ?? 0, false)
    const next = new ChainBuilder({ height: height + 1n, version: BigInt(info?.ledger_version ?? 0) + 1n, epoch: info?.epoch ?? 0, timestamp: BigInt(last?.block_timestamp ?? 0) + 1_000_000n })
    await server.appendBlock(next.block({ users: [{ sender: 1, gas_unit_price: 150 }] }))
    const newHeight = String(height + 1n)
    await until('#block-height', new RegExp(`^${newHeight}$`))
    const after = (await (await fetch(`${url}/v1/estimate_gas_price`)).json()) as Record<string, number>
    expect(await text('aptos-regular')).toBe(String(after.gas_estimate))
    await until('#chart rect:last-of-type title', new RegExp(`^block ${newHeight}:`))

    // Self-contained: every request the page made went to this server.
    expect(requests.every((r) => r.startsWith(url))).toBe(true)
    expect(errors).toEqual([])
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, 'gas-page.png'), fullPage: true })
    await page.close()
  }, 60_000)

  it('with the stream off (stream: false) polls instead, says so, and still shows a new block', async () => {
    const chain = new ChainBuilder()
    const polled = new MemoryStore({ chainId: 4 })
    for (const b of chain.blocks(20, (i) => [{ sender: 1, gas_unit_price: 100 + i }])) polled.appendBlock(b)
    const off = await createServer({ store: polled, stream: false, streamPollMs: 100 })
    try {
      const base = await off.listen({ port: 0, host: '127.0.0.1' })
      const page = await browser.newPage()
      const requests: string[] = []
      page.on('request', (r) => requests.push(new URL(r.url()).pathname))
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(String(e)))
      await page.goto(`${base}/`)
      // Locator waits, not page functions: the page's content security policy forbids eval.
      await page.locator('#live', { hasText: /^live \(polling\)$/ }).waitFor()
      expect(await page.locator('#live').getAttribute('title')).toBe('the stream is off on this server; polling /v1/estimate_gas_price every 100 ms')
      expect(await page.locator('#block-height').textContent()).toBe('19')
      expect(await page.locator('#serves').textContent()).toBe('aptos')
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
