/**
 * The oracle of test/store/query-string.test.ts: the query text's parse as it was written before it
 * read long texts in pieces (a character at a time, each option decoded whole, every unknown option
 * listed). Kept as it was, so the parse in pieces can be held to it over generated texts.
 */
import type { OrderItem, ParsedQuery, QueryError } from '../../src/store/model/types.ts'

/**
 * The `query` text of Get Items / Get Items Count (and the older GET form's URL query):
 * `&`-separated `$top`, `$skip`, `$orderby`, `$filter`, `relationKey`, `$inlinecount`. Other
 * options are collected in `ignoredOptions`, and an empty `relationKey` sets `emptyRelationKey`.
 *
 * Decoding choices, since clients send both raw and encoded text:
 * - Each parameter is decoded as `application/x-www-form-urlencoded` text is, after splitting: `+` is a
 *   space and percent-escapes (`%20`, `%2B`, `%27`, `%C3%A9`) are decoded, so `%20` and `+` read alike
 *   (URLSearchParams, Python's urlencode and .NET's UrlEncode write a space as `+`) and a literal plus is
 *   sent as `%2B`. An encoded `&` (`%26`) stays inside its value. A `%` not followed by a valid UTF-8
 *   escape is kept as it is, so raw text such as `contains(Note,'100% sure')` still works.
 * - Splitting on `&` skips ampersands inside single-quoted filter values (`'Smith & Sons'`), and reports
 *   that it did (`quotedAmpersand`): the description's query text is `&`-separated, so a real
 *   installation most plausibly splits there, and the caller warns (strict mode refuses).
 * - Parameter names are matched case-insensitively (`$OrderBy`, `RelationKey`): the description itself
 *   spells the relation key parameter several ways.
 */
export function parseQueryStringAsBefore(text: string): ParsedQuery | QueryError {
  const query: ParsedQuery = {
    top: null,
    skip: 0,
    orderBy: [],
    filter: null,
    relationKey: null,
    inlineCount: false,
    ignoredOptions: [],
    emptyRelationKey: false,
    quotedAmpersand: false,
  }
  const seen = new Set<string>()
  const parts = splitParameters(text)
  query.quotedAmpersand = parts.quotedAmpersand
  for (const part of parts) {
    if (part.trim() === '') continue
    const equals = part.indexOf('=')
    const rawName = decodeFormText(equals < 0 ? part : part.slice(0, equals)).trim()
    const name = KNOWN.get(rawName.toLowerCase())
    // Options the description does not list ($select, $expand, $count, ...) are ignored, as an
    // installation that does not support them would; the caller reports them as a warning.
    if (name === undefined) {
      query.ignoredOptions.push(rawName)
      continue
    }
    if (equals < 0) return bad(`${name} has no '=' and value`)
    const value = decodeFormText(part.slice(equals + 1))
    if (seen.has(name)) return bad(`${name} appears more than once`)
    seen.add(name)
    const problem = assign(query, name, value)
    if (problem !== null) return bad(problem)
  }
  return query
}

type Name = '$top' | '$skip' | '$orderby' | '$filter' | 'relationKey' | '$inlinecount'

/** Known options by lower-case name; a Map, so a name such as `constructor` finds nothing. */
const KNOWN = new Map<string, Name>([
  ['$top', '$top'],
  ['$skip', '$skip'],
  ['$orderby', '$orderby'],
  ['$filter', '$filter'],
  ['relationkey', 'relationKey'],
  ['$inlinecount', '$inlinecount'],
])

function assign(query: ParsedQuery, name: Name, value: string): string | null {
  switch (name) {
    case '$top':
    case '$skip': {
      const n = nonNegativeInteger(value)
      if (n === null) {
        const digits = /^\s*\d+\s*$/.test(value)
        // All digits but too large: say the bound, so a client that sends "everything" as a huge number learns what to send.
        return digits
          ? `${name} must be a whole number up to ${Number.MAX_SAFE_INTEGER}, got a number of ${value.trim().length} digits${name === '$top' ? '; leave $top out to read every row' : ''}`
          : `${name} must be a non-negative integer, got '${value}'`
      }
      if (name === '$top') query.top = n
      else query.skip = n
      return null
    }
    case '$orderby': {
      const items = parseOrderBy(value)
      if (typeof items === 'string') return items
      query.orderBy = items
      return null
    }
    case '$filter':
      // Compiled later by the store, which knows the storage's fields and caches per text.
      query.filter = value
      return null
    case 'relationKey': {
      const key = value.trim()
      // An empty relation key reads as none (master rows); the caller reports it as a warning.
      if (key === '') query.emptyRelationKey = true
      else query.relationKey = key
      return null
    }
    case '$inlinecount': {
      const mode = value.trim().toLowerCase()
      if (mode !== 'allpages' && mode !== 'none') return `$inlinecount must be 'allpages' or 'none', got '${value}'`
      query.inlineCount = mode === 'allpages'
      return null
    }
  }
}

function nonNegativeInteger(value: string): number | null {
  const text = value.trim()
  if (!/^\d+$/.test(text)) return null
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : null
}

const ORDER_ITEM = /^([A-Za-z_][A-Za-z0-9_]*)(?:\s+(asc|desc))?$/i

/**
 * Most items one `$orderby` may name: far beyond any order a client writes (a storage has fewer
 * fields), and checked while the items are read, so 4 million of them cost a few hundred steps.
 */
const MAX_ORDERBY_ITEMS = 256

function parseOrderBy(value: string): OrderItem[] | string {
  if (value.trim() === '') return '$orderby is empty; expected Field [asc|desc][, Field [asc|desc] ...]'
  const items: OrderItem[] = []
  // Item by item rather than split(','): the text may be megabytes long.
  for (let start = 0; start <= value.length; ) {
    if (items.length === MAX_ORDERBY_ITEMS) return `$orderby names more than ${MAX_ORDERBY_ITEMS} items`
    const comma = value.indexOf(',', start)
    const end = comma < 0 ? value.length : comma
    const item = value.slice(start, end).trim()
    const match = ORDER_ITEM.exec(item)
    if (match === null) return `$orderby item '${item.slice(0, 80)}' is not 'Field', 'Field asc' or 'Field desc'`
    const direction = (match[2] ?? 'asc').toLowerCase() === 'desc' ? 'desc' : 'asc'
    items.push({ field: match[1] as string, direction })
    start = end + 1
  }
  return items
}

/**
 * Splits on `&` outside single quotes; a quote inside a value is written twice, which toggles back.
 * `quotedAmpersand` tells whether an `&` was kept inside quotes.
 */
function splitParameters(text: string): string[] & { quotedAmpersand: boolean } {
  const parts = Object.assign([] as string[], { quotedAmpersand: false })
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 39 /* ' */) quoted = !quoted
    else if (c === 38 /* & */) {
      if (quoted) parts.quotedAmpersand = true
      else {
        parts.push(text.slice(start, i))
        start = i + 1
      }
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** One parameter's name or value as form-encoded text reads: `+` is a space, then percent-escapes are decoded. */
function decodeFormText(text: string): string {
  return decodePercent(text.includes('+') ? text.replaceAll('+', ' ') : text)
}

/** Decodes runs of `%XX`; a run that is not valid UTF-8 is kept as written. */
function decodePercent(text: string): string {
  if (!text.includes('%')) return text
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run
    }
  })
}

function bad(message: string): QueryError {
  return { error: 'BAD_QUERY', message }
}
