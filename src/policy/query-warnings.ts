import type { ParsedQuery } from '../wire/query-string.ts'
import type { MockWarning, RefusableWarning } from './warnings.ts'

/**
 * What a Get Items query text relies on that the description does not promise: options it does not
 * list, an `&` kept inside quotes, an empty relationKey. One list for the mock's handler, which warns
 * (or refuses, in strict mode) with each, and the proxy, which reports each as a warning on the
 * client's side.
 */
export function queryWarnings(parsed: ParsedQuery): Array<MockWarning & { code: RefusableWarning }> {
  const found: Array<MockWarning & { code: RefusableWarning }> = []
  const ignored = parsed.ignoredOptions
  if (ignored.length > 0) {
    found.push({
      code: 'UNSUPPORTED_QUERY_OPTION',
      message: `The query option${ignored.length > 1 ? 's' : ''} ${ignored.map((n) => `'${n}'`).join(', ')} changed nothing.`,
    })
  }
  if (parsed.quotedAmpersand)
    found.push({ code: 'QUOTED_AMPERSAND', message: "An '&' between single quotes was read as part of the value, not as the start of the next option." })
  if (parsed.emptyRelationKey) found.push({ code: 'EMPTY_RELATION_KEY', message: 'relationKey was sent empty; master rows were read.' })
  return found
}
