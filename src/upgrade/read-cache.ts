import type { Transport, WireRequest, WireResponse } from '../client/transport.ts'

/**
 * A release mock's transport that answers a read it has already answered, byte for byte the same
 * request, from memory, for as long as nothing else was sent: a replay's mock has fixed time and
 * randomness and no other client, so the same read of the same state gets the same answer. The
 * rows a replay reads to fill a recorded filter are read again for every interaction that has one,
 * and a usage may hold the same request many times over (shapes that differ only in what the client
 * received, or a hand-joined file): each costs one answer of the mock. Any other request (a save,
 * a delete, an action, a sign-in) may change the state, and forgets every answer kept.
 */

/** Bytes of answers kept at most: past it, the memory starts again empty (a replay reads the same rows again and again, not many different ones). */
export const READ_CACHE_BYTES = 64 * 1024 * 1024

/** The key of a request: method, path with its query, headers and body, or undefined for one not kept (a body of bytes, a size-only or bounded read). */
function keyOf(request: WireRequest): string | undefined {
  if (request.sizeOnly === true || request.maxBytes !== undefined || (request.body !== undefined && typeof request.body !== 'string')) return undefined
  return `${request.method} ${request.path}\n${JSON.stringify(request.headers ?? {})}\n${request.body ?? ''}`
}

/** A transport whose reads are kept. */
export interface ReadCache extends Transport {
  /** How many requests other than reads were sent: what was read while it stays the same is still what a read gets. */
  readonly writes: number
}

/**
 * `transport` with its reads kept: `reads` holds the method and path (`POST /ExplorerApi/api/items`)
 * of each operation that only reads. Answers are shared between the requests that get them, so
 * whoever receives one must not change it (the replay only parses them).
 */
export function readCache(transport: Transport, reads: ReadonlySet<string>): ReadCache {
  const kept = new Map<string, WireResponse>()
  let bytes = 0
  let writes = 0
  return {
    target: transport.target,
    get writes() {
      return writes
    },
    async send(request) {
      const read = reads.has(`${request.method.toUpperCase()} ${request.path.split('?')[0] ?? ''}`)
      const key = read ? keyOf(request) : undefined
      if (!read) {
        writes++
        kept.clear()
        bytes = 0
      }
      const known = key === undefined ? undefined : kept.get(key)
      if (known !== undefined) return known
      const response = await transport.send(request)
      if (key !== undefined) {
        if (bytes + response.body.length > READ_CACHE_BYTES) {
          kept.clear()
          bytes = 0
        }
        kept.set(key, response)
        bytes += response.body.length + key.length
      }
      return response
    },
    close: () => transport.close(),
  }
}
