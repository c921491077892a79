import fc from 'fast-check'
import { expect } from 'vitest'
import { hostileUrl, type Endpoint } from './arbitraries.js'
import { HostileFixture, injectTarget, prototypeKeys, REQUESTS, SEED } from './harness.js'

/**
 * `url` as `inject` can take it: a few targets (`/\\?`) are not URLs at all to a WHATWG parser,
 * which `inject` uses; their backslashes are sent encoded (the raw-socket test sends them as is).
 */
function injectable(url: string): string {
  try {
    injectTarget(url)
    return url
  } catch {
    return url.replace(/\\/g, '%5C')
  }
}

/**
 * `REQUESTS` hostile targets of `endpoint` through `inject`, each checked (see
 * `HostileFixture.check`) and followed by a valid request that must get its first answer.
 * Afterwards `Object.prototype` is as before: no `__proto__`/`constructor` key polluted it.
 */
export async function runHostile(endpoint: Endpoint): Promise<void> {
  const fx = await HostileFixture.create()
  const before = prototypeKeys()
  let i = 0
  await fc.assert(
    fc.asyncProperty(hostileUrl(endpoint).map(injectable), async (url) => {
      fx.check(url, injectTarget(url), await fx.inject(url))
      await fx.checkValid(i++, url)
    }),
    { numRuns: REQUESTS, seed: SEED, includeErrorInReport: true },
  )
  expect(prototypeKeys()).toBe(before)
}
