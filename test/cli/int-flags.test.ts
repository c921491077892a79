import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/run-cli.js'

describe('numeric flags: a negative value is named for what the flag accepts, never parseArgs’ "ambiguous"', () => {
  it.each([
    [['generate', '--blocks', '-5', '--seed', '1', '--output', '-'], "--blocks must be a positive integer, got '-5'"],
    [['generate', '--blocks=-5', '--seed', '1', '--output', '-'], "--blocks must be a positive integer, got '-5'"],
    [['ingest', '--db', 'x.db', '--input', '-', '--batch', '-3'], "--batch must be a positive integer, got '-3'"],
    [['ingest', '--db', 'x.db', '--input', '-', '--commit-interval', '-1000'], "--commit-interval must be a positive integer, got '-1000'"],
    [['serve', '--stale-after', '-30'], "--stale-after must be a positive integer, got '-30'"],
    [['ingest', '--db', 'x.db', '--input', '-', '--chain-id', '-1'], "--chain-id must be zero or a positive integer, got '-1'"],
    [['generate', '--blocks', '-1.5', '--seed', '1', '--output', '-'], "--blocks must be an integer, got '-1.5'"],
  ])('%j', async (args, message) => {
    const r = await runCli(args)
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(message)
    expect(r.stderr).not.toMatch(/ambiguous/)
  })

  it('a flag followed by another flag is still a missing value, not a negative number', async () => {
    const r = await runCli(['ingest', '--db', '--input', '-'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--db/)
  })
})

describe('a node URL without /v1 that answers a web page', () => {
  let server: Server
  let base: string
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<!DOCTYPE html><html><head><title>Aptos Node API</title></head><body>'.padEnd(4000, 'x'))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it('ingest --from-node says the URL answered HTML and suggests …/v1, without quoting the page', async () => {
    const r = await runCli(['ingest', '--db', ':memory:', '--from-node', base, '--once'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`GET ${base}/: the URL answered HTML, not the node API — did you mean ${base}/v1?`)
    expect(r.stderr).not.toContain('DOCTYPE')
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
  })

  it('with /v1 already there, it asks whether that is the API root', async () => {
    const r = await runCli(['ingest', '--db', ':memory:', '--from-node', `${base}/v1`, '--once'])
    expect(r.stderr).toContain(`GET ${base}/v1/: the URL answered HTML, not the node API (is it the API root?)`)
  })
})
