import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { CONTROL_PREFIX } from '../../../spec/control-plane/constants.ts'
import { ProblemError } from '../../errors.ts'
import { packageFile } from '../../package-root.ts'

/** The console's route config name; its page holds no data, so the control token is asked by the page, not for it. */
export const CONSOLE_OPERATION = 'consolePage'

/**
 * The console's files (the folder `console/` of the package), each with its media type: a fixed list, so no path reaches
 * the disk. A Map, so a name such as `constructor`, `toString` or `__proto__` finds nothing rather than an object's member.
 */
const ASSETS = new Map<string, string>([
  ['index.html', 'text/html; charset=utf-8'],
  ['console.js', 'text/javascript; charset=utf-8'],
  ['dom.js', 'text/javascript; charset=utf-8'],
  ['api.js', 'text/javascript; charset=utf-8'],
  ['console.css', 'text/css; charset=utf-8'],
])

/**
 * The page sets its own rules: its scripts and styles come from this mock only, it connects to
 * this mock only, and no other site may frame it (a frame could click its reset button).
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

/**
 * `GET /__mock/ui`: the mock console, plain ES modules read from the package at the first request
 * and kept. Registered inside the control plane's scope, so it answers where the control plane
 * does and refuses what it refuses (another origin, another site's `Host`).
 */
export function registerConsole(scope: FastifyInstance): void {
  const cache = new Map<string, Buffer>()
  const serve = (name: string) => {
    let bytes = cache.get(name)
    if (bytes === undefined) {
      bytes = readFileSync(packageFile(`console/${name}`))
      cache.set(name, bytes)
    }
    return bytes
  }
  const config = { controlOperationId: CONSOLE_OPERATION }
  scope.get(`${CONTROL_PREFIX}/ui`, { config }, (_request, reply) =>
    reply
      .headers(SECURITY_HEADERS)
      .type(ASSETS.get('index.html') as string)
      .send(serve('index.html')),
  )
  scope.get<{ Params: { file: string } }>(`${CONTROL_PREFIX}/ui/:file`, { config }, (request, reply) => {
    const type = ASSETS.get(request.params.file)
    if (type === undefined)
      throw new ProblemError('NOT_FOUND', `The console has no file ${JSON.stringify(request.params.file.slice(0, 80))}; open ${CONTROL_PREFIX}/ui.`)
    return reply.headers(SECURITY_HEADERS).type(type).send(serve(request.params.file))
  })
}
