/** Why a query could not be answered. */
export interface QueryError {
  error: 'BAD_QUERY' | 'BAD_FILTER' | 'UNKNOWN_FIELD' | 'UNKNOWN_RELATION_KEY' | 'UNKNOWN_APPLICATION'
  message: string
}

/** One `$orderby` item. */
export interface OrderItem {
  field: string
  direction: 'asc' | 'desc'
}

/** The `query` text of Get Items / Get Items Count, understood. */
export interface ParsedQuery {
  /** `$top`; null = no limit (the description states no maximum page size). */
  top: number | null
  /** `$skip`; 0 when absent. */
  skip: number
  orderBy: OrderItem[]
  /** `$filter` text, compiled by the store (per storage, cached); null when absent. */
  filter: string | null
  /** Detail Relation Key; null for master rows. */
  relationKey: string | null
  /** `$inlinecount=allpages`: the caller wants the count instead of the rows. */
  inlineCount: boolean
  /** Names of options the query had but the description does not list; they change nothing. */
  ignoredOptions: string[]
  /** `relationKey=` with no value, read as none. */
  emptyRelationKey: boolean
  /**
   * A raw `&` between single quotes (`$filter=Customer eq 'Smith & Sons'`), read as part of the value. The
   * description's query text is `&`-separated, so an installation most plausibly splits there; the caller warns.
   */
  quotedAmpersand: boolean
}

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
export function parseQueryString(text: string): ParsedQuery | QueryError {
  const work = parsing(text)
  for (;;) {
    const step = work.next()
    if (step.done === true) return step.value
  }
}

/**
 * `parseQueryString`'s answer for a long text, read a piece at a time in slices of about `sliceMs`,
 * awaiting `pause()` (the caller's turn of the event loop) between slices: a query text may be
 * 60 MB, and reading it took the mock most of a second (59 MB of `'a&'` pairs, seconds). The same
 * answer as `parseQueryString` for every text.
 */
export async function parseQueryStringInSlices(text: string, pause: () => Promise<void>, sliceMs = 8): Promise<ParsedQuery | QueryError> {
  const work = parsing(text)
  for (;;) {
    const until = performance.now() + sliceMs
    for (;;) {
      const step = work.next()
      if (step.done === true) return step.value
      if (performance.now() >= until) break
    }
    await pause()
  }
}

/** Reading a query text, pausing (a `yield`) where a slice may end: after each piece of text read (`queryReading`), or PARAMETERS options. */
type Reading<T> = Generator<void, T, void>

/**
 * How a long query text is read: `pieceChars` characters between two chances for a slice to end (a
 * piece is decoded in well under a millisecond). Tests make it small, to read short texts in many pieces.
 */
export const queryReading = { pieceChars: 1 << 16 }
/** Options read between two chances for a slice to end. */
const PARAMETERS = 1024
/**
 * Most unknown option names listed in `ignoredOptions` (and so in the warning that names them):
 * a query text of 20 million `a&` pairs is 20 million unknown options. Past the limit the warning
 * still comes; the names after it are not listed.
 */
export const MAX_IGNORED_OPTIONS = 256
/** The longest name an option of the description has (`$inlinecount`): a longer one is none of them. */
const LONGEST_NAME = 12

function* parsing(text: string): Reading<ParsedQuery | QueryError> {
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
  let read = 0
  for (const part of parameters(text, query)) {
    // One option at a time, as the text is split: a text of millions of options holds no list of them.
    if (part === null || ++read % PARAMETERS === 0) yield
    if (part === null || part.trim() === '') continue
    const equals = part.indexOf('=')
    const rawName = (yield* decodeFormText(equals < 0 ? part : part.slice(0, equals))).trim()
    const name = rawName.length > LONGEST_NAME ? undefined : KNOWN.get(rawName.toLowerCase())
    // Options the description does not list ($select, $expand, $count, ...) are ignored, as an
    // installation that does not support them would; the caller reports them as a warning.
    if (name === undefined) {
      if (query.ignoredOptions.length < MAX_IGNORED_OPTIONS) query.ignoredOptions.push(rawName)
      continue
    }
    if (equals < 0) return bad(`${name} has no '=' and value`)
    const value = yield* decodeFormText(part.slice(equals + 1))
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
      const trimmed = value.trim()
      // Neither word is longer than 8 characters, and lower case is never shorter: a longer text is neither.
      const mode = trimmed.length > 8 ? trimmed : trimmed.toLowerCase()
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
export const MAX_ORDERBY_ITEMS = 256

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
 * The options of a query text, split on `&` outside single quotes; a quote inside a value is written
 * twice, which toggles back. Sets `quotedAmpersand` when an `&` was kept inside quotes. Each `&` and
 * `'` is found by `indexOf`, not a character at a time, and the options are handed out one by one,
 * with `null` now and then (every PARAMETERS quotes or `&` read): a chance for a slice to end.
 */
function* parameters(text: string, query: ParsedQuery): Generator<string | null, void, void> {
  let start = 0
  let quoted = false
  let quote = text.indexOf("'")
  let read = 0
  for (let amp = text.indexOf('&'); amp >= 0; amp = text.indexOf('&', amp + 1)) {
    // The quotes before this `&` each toggle; the count's parity is what matters.
    while (quote >= 0 && quote < amp) {
      quoted = !quoted
      quote = text.indexOf("'", quote + 1)
      if (++read % PARAMETERS === 0) yield null
    }
    if (quoted) {
      query.quotedAmpersand = true
      if (++read % PARAMETERS === 0) yield null
    } else {
      yield text.slice(start, amp)
      start = amp + 1
    }
  }
  yield text.slice(start)
}

/**
 * One parameter's name or value as form-encoded text reads: `+` is a space, then percent-escapes are
 * decoded (`decodePercent`). A long text is decoded a window of `queryReading.pieceChars` at a time, with a
 * chance for the slice to end between windows: a window ends before a run of escapes that reaches
 * its end (the next window starts with it), and a run longer than a window is decoded on its own
 * (`decodeRun`). The answer is `decodePercent`'s for the whole text.
 */
function* decodeFormText(text: string): Reading<string> {
  const PIECE = queryReading.pieceChars
  if (text.length <= PIECE) return decodePercent(spaced(text))
  const decoded: string[] = []
  // Whether any window read differently from how it was written: if none did, the text is its own reading (no copy of 60 MB).
  let changed = false
  let at = 0
  while (at < text.length) {
    yield
    // A run of escapes as long as a window (or longer) is decoded on its own, a piece at a time.
    const runEnd = escapeRunEnd(text, at, PIECE)
    if (runEnd > at && runEnd - at >= PIECE - 2) {
      const run = yield* decodeRun(text, at)
      decoded.push(run.decoded)
      changed ||= run.decoded.length !== run.end - at
      at = run.end
      continue
    }
    let limit = Math.min(text.length, at + PIECE)
    // An escape the window's end would cut (its `%` one or two characters before the end) starts the next window.
    if (limit < text.length) {
      if (limit - 2 > at && text.charCodeAt(limit - 2) === 37) limit -= 2
      else if (limit - 1 > at && text.charCodeAt(limit - 1) === 37) limit -= 1
    }
    const window = text.slice(at, limit)
    const parts: string[] = []
    let from = 0
    let next = limit
    RUNS.lastIndex = 0
    // A window with no `%` has no escape: not searched for one (the search costs ten times the look).
    for (let run = window.includes('%') ? RUNS.exec(window) : null; run !== null; run = RUNS.exec(window)) {
      const end = run.index + run[0].length
      // A run that reaches the window's end may go on past it: the window ends before it.
      if (end === window.length && limit < text.length) {
        next = at + run.index
        break
      }
      parts.push(spaced(window.slice(from, run.index)), decodedOrKept(run[0]))
      from = end
    }
    parts.push(spaced(window.slice(from, next - at)))
    const read = parts.join('')
    changed ||= parts.length > 1 || read !== window
    decoded.push(read)
    at = next
  }
  return changed ? decoded.join('') : text
}

const RUNS = /(?:%[0-9A-Fa-f]{2})+/g

/** `+` read as a space (split and joined: `replaceAll` with millions of matches took seconds). */
function spaced(text: string): string {
  return text.includes('+') ? text.split('+').join(' ') : text
}

/** Sticky expressions that read up to n escapes, by n. */
const escapeReaders = new Map<number, RegExp>()

/** Where the run of `%XX` escapes that starts at `from` ends, read no further than about `chars` characters (`from` itself when none starts there). */
function escapeRunEnd(text: string, from: number, chars: number): number {
  const most = Math.max(1, Math.floor(chars / 3))
  let reader = escapeReaders.get(most)
  if (reader === undefined) escapeReaders.set(most, (reader = new RegExp(`(?:%[0-9A-Fa-f]{2}){1,${most}}`, 'y')))
  reader.lastIndex = from
  return reader.test(text) ? reader.lastIndex : from
}

/**
 * The run of `%XX` escapes that starts at `at`, decoded as `decodeURIComponent` decodes it whole, or
 * kept as written when it is not valid UTF-8 (as `decodePercent` does), and where it ends. It is read
 * and decoded a piece at a time, each piece cut before a byte that starts a character (below 0x80,
 * or 0xC0 and above), so no character is cut in two and a piece is valid exactly when its part of the
 * run is: any piece that is not keeps the whole run as written.
 */
function* decodeRun(text: string, at: number): Reading<{ decoded: string; end: number }> {
  const PIECE = Math.max(3, queryReading.pieceChars)
  const pieces: string[] = []
  let valid = true
  let from = at
  for (;;) {
    let cut = escapeRunEnd(text, from, PIECE)
    if (cut === from) break
    // Forward to a byte that starts a character; a character has at most 3 bytes after its first.
    for (let bytes = 0; valid && isEscape(text, cut) && isContinuation(text, cut); bytes++, cut += 3) if (bytes === 3) valid = false
    if (valid) {
      const piece = text.slice(from, cut)
      const decoded = decodedOrKept(piece)
      // Kept as written: not valid UTF-8 (a valid piece of escapes always decodes shorter), so neither is the run.
      if (decoded === piece) valid = false
      else pieces.push(decoded)
    }
    from = cut
    yield
  }
  return { decoded: valid ? pieces.join('') : text.slice(at, from), end: from }
}

/** Whether a `%XX` escape starts at `at`. */
function isEscape(text: string, at: number): boolean {
  return escapeRunEnd(text, at, 3) === at + 3
}

/** Whether the escape at `at` (`%XX`) is a byte that continues a character (0x80 to 0xBF). */
function isContinuation(text: string, at: number): boolean {
  const byte = Number.parseInt(text.slice(at + 1, at + 3), 16)
  return byte >= 0x80 && byte <= 0xbf
}

function decodedOrKept(run: string): string {
  try {
    return decodeURIComponent(run)
  } catch {
    return run
  }
}

/** Decodes runs of `%XX`; a run that is not valid UTF-8 is kept as written. */
export function decodePercent(text: string): string {
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
