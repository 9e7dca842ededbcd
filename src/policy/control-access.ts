import { CONTROL_PREFIX } from '../../spec/control-plane/constants.ts'
import { timingSafeEqual } from 'node:crypto'
import { isLoopbackHost } from './hosts.ts'
import type { FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'

/** Whether the control plane answers, and with which token; the reason is logged when it is off. */
export type ControlAccess = { enabled: true; token: string | undefined } | { enabled: false; reason: string }

/**
 * Decides at boot whether `/__mock/` answers. The control plane can wipe data and read every
 * request, so on a host other machines can reach it stays off unless a token guards it; a
 * token, once given, is required on loopback too.
 */
export function controlPlaneAccess(config: { controlPlane: boolean; controlToken?: string | undefined; host: string }): ControlAccess {
  if (!config.controlPlane) return { enabled: false, reason: 'switched off with --no-control-plane' }
  const token = config.controlToken === '' ? undefined : config.controlToken
  if (token !== undefined) return { enabled: true, token }
  if (isLoopbackHost(config.host)) return { enabled: true, token: undefined }
  return { enabled: false, reason: `host ${config.host} is reachable from other machines and no --control-token was given` }
}

/** The token a control call sent, from `Authorization: Bearer` or `X-Mock-Control-Token`. */
export function presentedControlToken(headers: Record<string, string | string[] | undefined>): string | undefined {
  const own = headers['x-mock-control-token']
  if (typeof own === 'string' && own !== '') return own
  const match = /^Bearer\s+(\S+)\s*$/i.exec(typeof headers.authorization === 'string' ? headers.authorization : '')
  return match?.[1]
}

/** Compares in constant time, so the answer's timing does not leak how much of a guess was right. */
export function controlTokenMatches(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false
  const a = Buffer.from(presented)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** True for `/__mock` and everything under it: the control plane is not journaled. */
export function isControlUrl(url: string): boolean {
  // The router matches paths in any case, so `/__MOCK/...` reaches the control plane too.
  return (
    url.slice(0, CONTROL_PREFIX.length).toLowerCase() === CONTROL_PREFIX &&
    (url.length === CONTROL_PREFIX.length || '/?'.includes(url.charAt(CONTROL_PREFIX.length)))
  )
}

/** The only control operation that takes a multipart body (a file upload). */
const MULTIPART_OPERATIONS = new Set(['uploadAttachments'])

/**
 * Why a control-plane request is refused before its body is read, or undefined. A web page on
 * another origin may send "simple" requests (a form post, `text/plain`, no preflight) to any
 * address, loopback included; the control plane takes none of them:
 * - a request whose `Origin` (or `Sec-Fetch-Site`) says another site sent it gets 403 CROSS_ORIGIN,
 *   whatever `--cors` allows (CORS opens the API to pages, never the control plane);
 * - a body must be `application/json`, or `multipart/form-data` for an upload: anything else,
 *   URL-encoded and text included, gets 415 before it is read.
 * `publicOrigin` is the `--public-url`'s origin, the mock's own behind a proxy.
 */
export function controlRequestRefusal(request: FastifyRequest, publicOrigin: string | undefined): ProblemError | undefined {
  const { origin, host } = request.headers
  const own = `${request.protocol}://${host ?? ''}`.toLowerCase()
  if (origin !== undefined && origin.toLowerCase() !== own && origin !== publicOrigin) {
    return new ProblemError(
      'CROSS_ORIGIN',
      `The control plane answers its own origin (${own}) only, not a page of ${origin.slice(0, 200)}: a web page must not reset, load or read the mock. Call it from a test, a script or curl, which send no Origin.`,
    )
  }
  // Browsers send it on every request, also where they send no Origin (a link, an image, a form's GET); `none` is the address bar.
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return new ProblemError(
      'CROSS_ORIGIN',
      `The control plane answers its own origin only, not a request a page of another site made (Sec-Fetch-Site: ${String(site).slice(0, 40)}).`,
    )
  }
  const type = request.headers['content-type']
  const hasBody =
    type !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0') ||
    request.headers['transfer-encoding'] !== undefined
  if (!hasBody) return undefined
  const media = (type ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (media === 'application/json') return undefined
  const operationId = request.routeOptions.config?.controlOperationId ?? ''
  const multipart = MULTIPART_OPERATIONS.has(operationId)
  if (multipart && media === 'multipart/form-data') return undefined
  return new ProblemError(
    'UNSUPPORTED_MEDIA_TYPE',
    `The control plane takes a body as application/json${multipart ? ' or multipart/form-data' : ''} only; this one is ${type === undefined ? 'sent without Content-Type' : `"${type.slice(0, 100)}"`}.`,
  )
}
