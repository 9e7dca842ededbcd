import type { FastifyInstance } from 'fastify'
import type { MockConfig } from '../config.ts'
import { hostAcceptor, hostName } from '../../policy/hosts.ts'
import { ProblemError } from '../../errors.ts'

/**
 * Refuses requests whose `Host` names neither this machine nor a name the mock was told to answer
 * (which names are answered is src/policy/hosts.ts's, shared with the proxy).
 */

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
