import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { parseQueryString } from '../wire/query-string.ts'
import { answerQuery } from './query-items.ts'

/**
 * The URL parameters the older Get Items takes (in any letter case, as the query text's options are
 * read), and `relationKey`, which answerQuery refuses with its own reason (no detail rows below 3.0).
 */
const LEGACY_PARAMETERS = new Set(['$top', '$skip', '$orderby', '$filter', '$inlinecount', 'relationkey'])

/**
 * The older Get Items (below 3.0): GET without a body, the query options as URL parameters.
 * They are rejoined into the query text so both forms share one parser and one set of errors.
 *
 * A URL parameter other than the five is refused, in both modes: the description shows this call with
 * no options at all, so the URL form is the mock's own reading (x-mock-defined), and its document lists
 * exactly these. OpenAPI cannot declare "any other parameter is ignored", so a document that lists
 * them while the mock accepts others would let a tool such as Schemathesis count the extra one as
 * accepted negative data; and an unknown name here is most often a misspelt option.
 */
export const queryItemsLegacy: OperationHandler<'queryItemsLegacy'> = async (request, reply) => {
  const names = Object.keys(request.query)
  const unknown = names.filter((name) => !LEGACY_PARAMETERS.has(name.toLowerCase()))
  if (unknown.length > 0) {
    const listed = unknown.map((name) => `'${name}'`).join(', ')
    throw new ProblemError(
      'BAD_QUERY',
      `The older Get Items takes the URL parameters $top, $skip, $orderby, $filter and $inlinecount; ${listed} ${unknown.length > 1 ? 'are' : 'is'} not one of them.`,
    )
  }
  const text = Object.entries(request.query)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&')
  return answerQuery(request, reply, parseQueryString(text))
}
