import { CONTROL_PREFIX } from '../../spec/control-plane/constants.ts'
import { timingSafeEqual } from 'node:crypto'
import { isIPv4, isIPv6 } from 'node:net'
import type { MockConfig } from '../config.ts'

/** Whether the control plane answers, and with which token; the reason is logged when it is off. */
export type ControlAccess =
  | { enabled: true; token: string | undefined }
  | { enabled: false; reason: string }

/**
 * True for a host name or address that only this machine can reach: `localhost`, 127.0.0.0/8,
 * `::1` and IPv4-mapped 127.x. `0.0.0.0` and `::` are not: they listen on every interface.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIPv4(bare)) return bare.startsWith('127.')
  if (isIPv6(bare)) {
    if (bare === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(bare)) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
    return mapped !== null && mapped[1] !== undefined && mapped[1].startsWith('127.')
  }
  return false
}

/**
 * Decides at boot whether `/__mock/` answers. The control plane can wipe data and read every
 * request, so on a host other machines can reach it stays off unless a token guards it; a
 * token, once given, is required on loopback too.
 */
export function controlPlaneAccess(config: Pick<MockConfig, 'controlPlane' | 'controlToken' | 'host'>): ControlAccess {
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
  return url.slice(0, CONTROL_PREFIX.length).toLowerCase() === CONTROL_PREFIX && (url.length === CONTROL_PREFIX.length || '/?'.includes(url.charAt(CONTROL_PREFIX.length)))
}
