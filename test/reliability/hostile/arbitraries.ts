import fc from 'fast-check'

/**
 * Generators of hostile request targets: what any client on the internet may send to a public
 * node. Each endpoint's URLs are mostly near misses of its real shape (one bad part at a time)
 * with some wholly random ones, so most requests reach the parameter parsers and the handlers.
 */

const hexUnit = fc.constantFrom(...'0123456789abcdefABCDEF')
const hex = (min: number, max: number) => fc.string({ unit: hexUnit, minLength: min, maxLength: max })
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max })

/** Lengths at the edges of the limits (address 64, maxParamLength 512, maxUrlLength 2048, Node's header cap 16 KiB). */
const edgeLength = fc.constantFrom(0, 1, 63, 64, 65, 100, 511, 512, 513, 1000, 2000, 2047, 2048, 2049, 4096, 16_500)

/** Decimal-ish text: every length, negative, fractional, exponent, hex, leading zeros, > u64, unicode digits. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: digits(1, 25) },
  // Around the hostile fixture's heights (30..99, pruned below 40) and versions (3000..3349,
  // pruned below 3050), so that many requests find data, a pruned value or the end of the ledger.
  { weight: 4, arbitrary: fc.oneof(fc.nat(120), fc.integer({ min: 2980, max: 3380 })).map(String) },
  fc.constantFrom('0', '1', '9007199254740991', '9007199254740992', '9007199254740993', '18446744073709551615', '18446744073709551616', '99999999999999999999', '340282366920938463463374607431768211456'),
  digits(1, 20).map((d) => `-${d}`),
  fc.tuple(digits(1, 8), digits(0, 8)).map(([a, b]) => `${a}.${b}`),
  fc.tuple(digits(1, 5), fc.integer({ min: -400, max: 400 })).map(([a, e]) => `${a}e${e}`),
  fc.tuple(digits(1, 5), fc.nat(30)).map(([a, e]) => `${a}E+${e}`),
  hex(0, 20).map((h) => `0x${h}`),
  fc.tuple(fc.nat(30), digits(1, 20)).map(([z, d]) => `${'0'.repeat(z)}${d}`),
  fc.constantFrom('+1', ' 1', '1 ', '-0', '0.0', '1_000', '1,000', 'NaN', 'Infinity', '-Infinity', 'null', 'undefined', 'true', '[]', '{}', '0b101', '0o17', '1n', '٣', '١٢٣', '１２３', '¹', 'Ⅻ', '𝟙', '1\u200b', '\u00a01'),
)

/** Address-ish text: hex of every length with and without 0x, upper case, known prefixes, junk. */
export const addressText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: hex(1, 70).map((h) => `0x${h}`) },
  { weight: 2, arbitrary: hex(60, 68) },
  fc.constantFrom('0x1', '0x2', '0x3', '0x4', '0x0', '0x', '0X1', '0x-1', 'x1', '1', '0xg', '0x 1', '0x0000000000000000000000000000000000000000000000000000000000000001', `0x${'f'.repeat(64)}`, `0x${'0'.repeat(65)}1`, `${'0'.repeat(63)}1`, `${'0'.repeat(63)}2`),
  fc.nat(6).map((n) => `0x${n.toString(16)}`),
  fc.nat(6).map((n) => `0x${'0'.repeat(63)}${n.toString(16)}`.toUpperCase().replace('0X', '0x')),
  numberText,
)

/** Any text, ASCII to astral planes. */
const anyText = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 10 }), fc.string({ unit: 'binary', maxLength: 10 }))

/** Percent-encodes every character (digits too: `%31` is `1`). */
function encodeAll(s: string): string {
  return Array.from(Buffer.from(s, 'utf8'), (b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')
}

/** One path segment built from `base`: as is, or mangled the ways clients and attackers mangle them. */
export function segment(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: base },
    { weight: 1, arbitrary: base.map(encodeURIComponent) },
    { weight: 1, arbitrary: base.map(encodeAll) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom('%', '%G1', '%E0%A4%A', '%00', '%2F', '%2f..', '%2e%2e', '%25', '%C0%AF', '%FF', '%u0031', '\\', '%5C')).map(([b, p]) => `${b}${p}`) },
    { weight: 1, arbitrary: fc.constantFrom('', '.', '..', '...', '%2e', '%2e%2e', '~', '*', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'null') },
    { weight: 1, arbitrary: anyText },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(' ', '\t', '+', ';', ',', ':', '@', '!', '$', "'", '(', ')', '"', '<', '>', '^', '`', '{', '|', '}', '[', ']')).map(([b, c]) => `${b}${c}`) },
    { weight: 1, arbitrary: fc.tuple(edgeLength, fc.constantFrom('9', '0', 'a', 'x', '%41')).map(([n, c]) => c.repeat(Math.max(0, Math.ceil(n / c.length)))) },
  )
}

const queryKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('start', 'limit', 'with_transactions') },
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', '__proto__[start]', 'constructor[prototype][polluted]', 'start[]', 'start[0]', 'limit[]', '', 'START', 'Limit', 'sta%72t', '%5F%5Fproto%5F%5F', 'start%00', 'offset', 'ledger_version'),
  anyText.map(encodeURIComponent),
)

const queryValue = fc.oneof(
  { weight: 3, arbitrary: numberText },
  fc.constantFrom('true', 'false', 'TRUE', 'True', '1', '0', '', 'yes', 'on', '%74rue'),
  addressText,
  segment(numberText),
  fc.tuple(edgeLength, fc.constantFrom('1', 'a', '%20')).map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
)

/** A query string (with its `?`, or empty): duplicated, prototype-named, empty and malformed pairs. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  {
    weight: 6,
    arbitrary: fc
      .array(
        fc.oneof(
          { weight: 6, arbitrary: fc.tuple(queryKey, queryValue).map(([k, v]) => `${k}=${v}`) },
          fc.tuple(queryKey).map(([k]) => k),
          fc.tuple(queryValue).map(([v]) => `=${v}`),
          fc.constantFrom('', '&', '==', '=', '?', '#', '#frag', 'start==1', 'limit=1=2', 'a=%', 'a=%zz'),
        ),
        { maxLength: 6 },
      )
      .map((pairs) => `?${pairs.join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&', '?&&start=1', '?#', '?start=1#x', '?start=1?limit=2') },
)

/** What may follow an endpoint's path: nothing mostly, else trailing or extra segments. */
const pathTail = fc.oneof({ weight: 8, arbitrary: fc.constant('') }, fc.constantFrom('/', '//', '/..', '/.', '/x', '/%2F', '/../..', '%00', ';', ';x=1', '/transactions'))

/** A hostile request target for one endpoint. */
export type Endpoint = 'by_version' | 'accounts' | 'estimate' | 'blocks' | 'ledger'

/** Near-miss spellings of the prefix `/v1`. */
const prefix = fc.oneof({ weight: 12, arbitrary: fc.constant('/v1') }, fc.constantFrom('/V1', '/v1/', '//v1', '/v1/.', '/v2', '/v1/..', '/./v1', '/%76%31', '/v1%2F', '', '/v01'))

/** The request targets of `endpoint`: its real path with hostile parts, sometimes a wholly random target. */
export function hostileUrl(endpoint: Endpoint): fc.Arbitrary<string> {
  const shaped = (() => {
    switch (endpoint) {
      case 'by_version':
        return fc.tuple(prefix, segment(numberText), pathTail, queryString).map(([p, v, t, q]) => `${p}/transactions/by_version/${v}${t}${q}`)
      case 'accounts':
        return fc.tuple(prefix, segment(addressText), pathTail, queryString).map(([p, a, t, q]) => `${p}/accounts/${a}/transactions${t}${q}`)
      case 'blocks':
        return fc.tuple(prefix, segment(numberText), pathTail, queryString).map(([p, h, t, q]) => `${p}/blocks/by_height/${h}${t}${q}`)
      case 'estimate':
        return fc
          .tuple(prefix, fc.oneof({ weight: 8, arbitrary: fc.constant('estimate_gas_price') }, fc.constantFrom('estimate_gas_price%00', 'estimate%5Fgas%5Fprice', 'ESTIMATE_GAS_PRICE', 'estimate_gas_price.json', 'estimate_gas_pric', 'estimate_gas_price/..', './estimate_gas_price')), pathTail, queryString)
          .map(([p, e, t, q]) => `${p}/${e}${t}${q}`)
      case 'ledger':
        return fc.tuple(prefix, pathTail, queryString).map(([p, t, q]) => `${p}${t}${q}`)
    }
  })()
  const random = fc.tuple(fc.array(segment(anyText), { maxLength: 5 }), queryString).map(([segs, q]) => `/${segs.join('/')}${q}`)
  // Every target starts with `/`: the request line of an HTTP client always does.
  return fc.oneof({ weight: 9, arbitrary: shaped }, { weight: 1, arbitrary: random }).map((u) => (u.startsWith('/') ? u : `/${u}`))
}
