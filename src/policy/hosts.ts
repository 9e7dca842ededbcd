import { isIPv4, isIPv6 } from 'node:net'

/**
 * Which `Host` names a server on this machine answers: the mock's host check and the proxy's share
 * it. DNS rebinding points a web page's own host name at 127.0.0.1: the browser then treats the
 * server as that page's origin and sends `Host: page.example`, which no loopback name matches.
 */

/** What decides the names answered: the bind, `--allowed-host` names (`.domain` for a domain), `--public-url`. */
export interface HostPolicy {
  host: string
  allowedHosts: readonly string[]
  publicUrl?: string | undefined
}

/**
 * True for a host name or address that only this machine can reach: `localhost`, 127.0.0.0/8,
 * `::1` and IPv4-mapped 127.x. `0.0.0.0` and `::` are not: they listen on every interface.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (isIPv4(bare)) return bare.startsWith('127.')
  if (isIPv6(bare)) {
    if (bare === '::1' || /^0{0,4}(:0{0,4}){6}:0{0,3}1$/.test(bare)) return true
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
    return mapped?.[1]?.startsWith('127.') === true
  }
  return false
}

/** The host name of a `Host` header: lower case, without port and trailing dot; IPv6 keeps its brackets. */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1) || host
  const colon = host.indexOf(':')
  const name = colon < 0 ? host : host.slice(0, colon)
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** Binds that listen on every interface: they name no host of their own. */
function isWildcard(bind: string): boolean {
  return bind === '0.0.0.0' || bind === '::' || bind === '[::]'
}

/**
 * Whether a host name is answered: the predicate, or undefined when every name is (a bind other
 * machines reach and no `--allowed-host` given, or `--allowed-host *`). Besides loopback names and
 * the given ones, the bind's own address and the `--public-url` host are answered.
 */
export function hostAcceptor(config: HostPolicy): ((name: string) => boolean) | undefined {
  if (config.allowedHosts.includes('*')) return undefined
  if (config.allowedHosts.length === 0 && !isLoopbackHost(config.host)) return undefined
  const exact = new Set(config.allowedHosts.filter((name) => !name.startsWith('.')))
  const domains = config.allowedHosts.filter((name) => name.startsWith('.'))
  const bind = config.host.toLowerCase()
  if (!isWildcard(bind)) exact.add(bind.includes(':') && isIPv6(bind) ? `[${bind}]` : bind)
  if (config.publicUrl !== undefined) exact.add(new URL(config.publicUrl).hostname.toLowerCase())
  return (name) => exact.has(name) || isLoopbackHost(name) || domains.some((domain) => name === domain.slice(1) || name.endsWith(domain))
}
