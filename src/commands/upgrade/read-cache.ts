import type { Transport, WireRequest, WireResponse } from '../../wire/transport.ts'

/**
 * A release mock's transport that answers a read it has already answered, byte for byte the same
 * request, from memory, for as long as nothing else was sent: a replay's mock has fixed time and
 * randomness and no other client, so the same read of the same state gets the same answer. A usage
 * may make the same request again (shapes the replay fills alike, next to each other in the file's
 * order, or a hand-joined file): each costs one answer of the mock while it is kept. Any other
 * request (a save, a delete, an action, a sign-in) may change the state, and forgets every answer
 * kept. (The rows a replay reads to fill recorded filters are kept above, in requests.ts.)
 */

/**
 * Bytes of answers kept at most: past it, the memory starts again empty. Small, because a usage's
 * reads are nearly all distinct: every answer kept outlives the collections of the thousands of
 * answers after it, and keeping 64 MB of them made a replay of 100,000 reads take 40 % more CPU
 * time (full collections of an old generation that kept growing).
 */
export const READ_CACHE_BYTES = 1024 * 1024

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
