import { InvalidConfigError } from '../../core/errors.js'

/** Where a stream lives: the gRPC target (`host:port`) and whether it speaks TLS. */
export interface StreamEndpoint {
  /** The URL as given, for messages. */
  url: string
  target: string
  tls: boolean
}

/**
 * Reads an endpoint as the Aptos processor configs write it: `https://host:443` for TLS,
 * `http://host:port` for plaintext (port default 443 and 80).
 *
 * @throws InvalidConfigError (key `endpoint`) for anything else.
 * @example parseStreamEndpoint('https://grpc.mainnet.aptoslabs.com:443') // { target: 'grpc.mainnet.aptoslabs.com:443', tls: true, … }
 */
export function parseStreamEndpoint(url: string): StreamEndpoint {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '' || (parsed.pathname !== '/' && parsed.pathname !== '')) {
    throw new InvalidConfigError('endpoint', `must be https://host:port (TLS) or http://host:port (plaintext) with no path, got ${JSON.stringify(url)}`)
  }
  const tls = parsed.protocol === 'https:'
  const port = parsed.port !== '' ? parsed.port : tls ? '443' : '80'
  return { url, target: `${parsed.hostname}:${port}`, tls }
}
