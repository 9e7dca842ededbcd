import { connect } from 'node:net'

/** A request as bytes go on the wire: any method, target, header bytes and body, which no HTTP client library lets through. */
export interface RawRequest {
  method: string
  /** Path and query as sent, byte for byte (latin1: one char, one byte). */
  target: string
  headers: Array<[string, string]>
  body?: Buffer
}

export interface RawAnswer {
  status: number
  contentType: string
  ms: number
  bytes: number
}

/** How a raw request reads in a failure message: short enough to read, exact enough to replay. */
export function describeRaw(request: RawRequest): string {
  const target = request.target.length > 300 ? `${request.target.slice(0, 300)}… (${request.target.length} chars)` : request.target
  const headers = request.headers.map(
    ([name, value]) => `${name.slice(0, 60)}: ${value.length > 80 ? `${value.slice(0, 80)}… (${value.length} chars)` : value}`,
  )
  const body = request.body === undefined ? '' : `\n${request.body.length} body bytes: ${JSON.stringify(request.body.subarray(0, 200).toString('latin1'))}`
  return `${request.method} ${target}\n${headers.slice(0, 12).join('\n')}${headers.length > 12 ? `\n… ${headers.length} headers` : ''}${body}`
}

/**
 * Sends one request on a fresh connection (`Connection: close`) and resolves with the status line's
 * code once the answer is complete, or rejects after `timeoutMs` (the socket is destroyed, so a mock
 * that does not answer fails this request only). An answer that arrives while the body is still being
 * written counts: the mock may refuse early.
 */
export function sendRaw(base: string, request: RawRequest, timeoutMs: number): Promise<RawAnswer> {
  const { hostname, port } = new URL(base)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Buffer[] = []
    let settled = false
    const finish = (error: Error | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      const answer = Buffer.concat(chunks)
      const head = answer.subarray(0, Math.max(0, answer.indexOf('\r\n\r\n'))).toString('latin1')
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(head)
      if (match === null) {
        reject(error ?? new Error(`no HTTP answer (${answer.length} bytes: ${JSON.stringify(answer.subarray(0, 100).toString('latin1'))})`))
        return
      }
      const contentType = /\r\ncontent-type:\s*([^\r]*)/i.exec(head)?.[1] ?? ''
      resolve({ status: Number(match[1]), contentType, ms: performance.now() - started, bytes: answer.length })
    }
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('end', () => finish(null))
    socket.on('close', () => finish(null))
    // A reset after the answer arrived (the mock closing while a body is still on its way) still counts as that answer.
    socket.on('error', (error) => finish(error))
    socket.on('connect', () => {
      const body = request.body ?? Buffer.alloc(0)
      const lines = [`${request.method} ${request.target} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close']
      for (const [name, value] of request.headers) lines.push(`${name}: ${value}`)
      if (request.body !== undefined) lines.push(`Content-Length: ${body.length}`)
      socket.write(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'))
      if (body.length > 0) socket.write(body)
    })
  })
}
