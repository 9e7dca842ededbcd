/**
 * The HTTP transport verify and the client use: a time limit on the whole request, IPv6 base
 * URLs, and a certificate authority trusted besides the system's.
 */
import { createServer, type Server } from 'node:http'
import { rootCertificates } from 'node:tls'
import { afterEach, describe, expect, it } from 'vitest'
import { connectionHost, httpsAgentOptions, httpTransport, TransportError } from '../../src/wire/transport.ts'

let server: Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  server = undefined
})

describe('the HTTP transport', () => {
  it('stops reading an answer past maxBytes, without holding all of it', async () => {
    server = createServer((_request, response) => {
      let written = 0
      response.writeHead(200, { 'content-type': 'application/octet-stream' })
      // 64 MB offered in 64 KB pieces; the transport must hang up long before.
      const piece = Buffer.alloc(64 * 1024, 1)
      const more = (): void => {
        while (written < 64 * 1024 * 1024) {
          written += piece.length
          if (!response.write(piece)) return void response.once('drain', more)
        }
        response.end()
      }
      response.on('close', () => (written = Number.POSITIVE_INFINITY))
      more()
    })
    const port = await new Promise<number>((resolve) => server?.listen(0, '127.0.0.1', () => resolve((server?.address() as { port: number }).port)))
    const transport = httpTransport(`http://127.0.0.1:${port}`)
    try {
      const refused = await transport.send({ method: 'GET', path: '/big', maxBytes: 100_000 }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(TransportError)
      expect((refused as TransportError).code).toBe('TOO_LARGE')
      expect(await transport.send({ method: 'GET', path: '/big', maxBytes: 128 * 1024 * 1024 }).then((answer) => answer.body.length)).toBe(64 * 1024 * 1024)
    } finally {
      await transport.close()
    }
  })

  it('gives up on an answer that trickles in for longer than the time limit, though the socket never idles', async () => {
    // Headers at once, then one byte every 20 ms for 2 s: never idle for long, never done in time.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' })
      let sent = 0
      const timer = setInterval(() => {
        response.write('.')
        if (++sent === 100) {
          clearInterval(timer)
          response.end()
        }
      }, 20)
      response.on('close', () => clearInterval(timer))
    })
    const port = await new Promise<number>((resolve) => server?.listen(0, '127.0.0.1', () => resolve((server?.address() as { port: number }).port)))
    const transport = httpTransport(`http://127.0.0.1:${port}`, { timeoutMs: 300 })
    try {
      const error = await transport.send({ method: 'GET', path: '/' }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TransportError)
      expect((error as TransportError).code).toBe('TIMEOUT')
    } finally {
      await transport.close()
    }
  })

  it('tells only the size of an answer when asked: its Content-Length without reading the body, else the bytes counted and dropped', async () => {
    let bodyWritten = 0
    server = createServer((request, response) => {
      if (request.url === '/declared') {
        // 1 GB announced, 64 KB sent, then nothing: reading the body through would never end in time.
        response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(1024 ** 3) })
        response.write(Buffer.alloc(64 * 1024, 1))
        return
      }
      if (request.url === '/refused') {
        response.writeHead(404, { 'content-type': 'application/problem+json' })
        return void response.end('{"status":404,"detail":"no such attachment"}')
      }
      response.writeHead(200, { 'content-type': 'image/jpeg' })
      for (let i = 0; i < 10; i++) response.write(Buffer.alloc(1000, 2))
      bodyWritten = 10_000
      response.end()
    })
    const port = await new Promise<number>((resolve) => server?.listen(0, '127.0.0.1', () => resolve((server?.address() as { port: number }).port)))
    const transport = httpTransport(`http://127.0.0.1:${port}`, { timeoutMs: 2_000 })
    try {
      const declared = await transport.send({ method: 'POST', path: '/declared', sizeOnly: true })
      expect([declared.status, declared.size, declared.body.length, declared.headers['content-type']]).toEqual([200, 1024 ** 3, 0, 'application/pdf'])
      const counted = await transport.send({ method: 'POST', path: '/chunked', sizeOnly: true })
      expect([counted.headers['transfer-encoding'], counted.size, counted.body.length, bodyWritten]).toEqual(['chunked', 10_000, 0, 10_000])
      // A refusal keeps its body, so its problem can be read.
      const refused = await transport.send({ method: 'POST', path: '/refused', sizeOnly: true })
      expect([refused.status, refused.size, refused.body.toString()]).toEqual([404, undefined, '{"status":404,"detail":"no such attachment"}'])
    } finally {
      await transport.close()
    }
  })

  it('connects to an IPv6 base URL by its address, without the brackets the URL writes it in', () => {
    expect(connectionHost(new URL('http://[::1]:4080'))).toBe('::1')
    expect(connectionHost(new URL('https://appdata.example.com/prefix'))).toBe('appdata.example.com')
  })

  it("trusts a CA given besides the system's roots, not instead of them", () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
    const ca = httpsAgentOptions({ ca: pem }).ca as string[]
    expect(ca).toContain(pem)
    expect(ca).toEqual(expect.arrayContaining([...rootCertificates]))
    expect(httpsAgentOptions({}).ca).toBeUndefined()
  })
})
