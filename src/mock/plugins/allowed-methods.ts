import type { FastifyInstance } from 'fastify'

declare module 'fastify' {
  interface FastifyInstance {
    /** Methods some route serves on a concrete path (empty when none does); for 405 and `Allow`. */
    allowedMethods(path: string): string[]
  }
}

/** A matcher for the concrete paths of a route (`:name` is one segment, `*` the rest). */
function pathPattern(url: string): RegExp {
  const escaped = url
    .replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')
    .replace(/:[A-Za-z0-9_]+/g, '[^/]+')
    .replace(/\\\*/g, '.*')
  // Paths match in any case, as the router does.
  return new RegExp(`^${escaped}/?$`, 'i')
}

/**
 * Keeps an index of every route's methods by path, so a request whose path exists but whose
 * method does not gets 405 with `Allow` (RFC 9110, section 15.5.6) rather than 404. Register
 * first: the onRoute hook sees only routes added after it.
 */
export function registerAllowedMethods(app: FastifyInstance): void {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>()
  app.addHook('onRoute', (route) => {
    // A catch-all (the CORS preflight's `OPTIONS *`) says nothing about which paths exist.
    if (route.url === '*' || route.url === '/*') return
    const entry = routes.get(route.url) ?? { pattern: pathPattern(route.url), methods: new Set<string>() }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(method)
    routes.set(route.url, entry)
  })
  app.decorate('allowedMethods', (path: string) => {
    const methods = new Set<string>()
    for (const { pattern, methods: found } of routes.values()) if (pattern.test(path)) for (const method of found) methods.add(method)
    return [...methods]
  })
}
