import type { FastifyInstance } from 'fastify'
import { isIPv6 } from 'node:net'
import type { MockConfig } from '../config.ts'
import { isLoopbackHost } from '../control/access.ts'
import { ProblemError } from '../../errors.ts'

/**
 * Refuses requests whose `Host` names neither this machine nor a name the mock was told to answer.
 * DNS rebinding points a web page's own host name at 127.0.0.1: the browser then treats the
 * mock as that page's origin and sends `Host: page.example`, which no loopback name matches.
 */

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
export function hostAcceptor(config: Pick<MockConfig, 'host' | 'allowedHosts' | 'publicUrl'>): ((name: string) => boolean) | undefined {
  if (config.allowedHosts.includes('*')) return undefined
  if (config.allowedHosts.length === 0 && !isLoopbackHost(config.host)) return undefined
  const exact = new Set(config.allowedHosts.filter((name) => !name.startsWith('.')))
  const domains = config.allowedHosts.filter((name) => name.startsWith('.'))
  const bind = config.host.toLowerCase()
  if (!isWildcard(bind)) exact.add(bind.includes(':') && isIPv6(bind) ? `[${bind}]` : bind)
  if (config.publicUrl !== undefined) exact.add(new URL(config.publicUrl).hostname.toLowerCase())
  return (name) => exact.has(name) || isLoopbackHost(name) || domains.some((domain) => name === domain.slice(1) || name.endsWith(domain))
}

/** The 403 that says which flag opens the name. */
function foreignHost(header: string): ProblemError {
  const name = hostName(header).slice(0, 255)
  // Only a name that could be a flag's value is repeated in the advice.
  const flagged = /^[a-z0-9_.-]+$|^\[[0-9a-f:.]+\]$/.test(name) ? name : '<name>'
  return new ProblemError(
    'FOREIGN_HOST',
    `This mock answers localhost and loopback addresses only, not the host "${name}": a web page could otherwise reach it by pointing a name of its own at this machine. To call it by this name (a docker-compose service name, a sandbox's DNS name), start it with --allowed-host ${flagged} (or MOCK_ALLOWED_HOSTS).`,
    { host: name },
  )
}

/** An onRequest hook that checks `Host`, registered only when some name is refused (so it costs nothing otherwise). */
export function registerHostCheck(app: FastifyInstance, config: Pick<MockConfig, 'host' | 'allowedHosts' | 'publicUrl'>): void {
  const accepts = hostAcceptor(config)
  if (accepts === undefined) return
  // Clients send the same Host on every request: the last one accepted skips the parse.
  let lastAccepted = ''
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.host
    // A request without Host (HTTP/1.0) comes from no browser, so from no web page.
    if (header === undefined || header === lastAccepted) return done()
    if (!accepts(hostName(header))) return done(foreignHost(header))
    lastAccepted = header
    done()
  })
}
