import type { Transport, WireRequest, WireResponse } from '../../src/wire/transport.ts'
import { textOf } from '../../src/bytes.ts'

/**
 * A transport that changes some answers on their way back: an installation that behaves as the
 * mock does, except where a test makes it behave as another plausible installation (or a proxy
 * in front of it) would.
 */
export function rewriting(inner: Transport, edit: (request: WireRequest, answer: WireResponse) => WireResponse | Promise<WireResponse>): Transport {
  return {
    target: inner.target,
    close: () => inner.close(),
    async send(request) {
      return edit(request, await inner.send(request))
    },
  }
}

/** The query text of a Get Items request (the POST form's `query`), decoded; '' for other requests. */
export function itemsQuery(request: WireRequest): string {
  if (!request.path.startsWith('/ExplorerApi/api/items') || request.path.startsWith('/ExplorerApi/api/items/')) return ''
  const body = request.body === undefined ? '' : textOf(request.body)
  const query = body === '' ? (request.path.split('?')[1] ?? '') : ((JSON.parse(body) as { query?: string }).query ?? '')
  return decodeURIComponent(query.replace(/\+/g, ' '))
}

/** The body of an answer as JSON. */
export const jsonOf = (answer: WireResponse): any => JSON.parse(textOf(answer.body))

/** An answer with a new JSON body (and its media type, `application/json` unless given). */
export function withJson(answer: WireResponse, body: unknown, contentType = 'application/json; charset=utf-8'): WireResponse {
  return { ...answer, headers: { ...answer.headers, 'content-type': contentType }, body: Buffer.from(JSON.stringify(body)) }
}
