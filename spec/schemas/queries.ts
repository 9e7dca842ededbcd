/** Bodies of the items query (rows or count) and the count result. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED, STRICT_OVERLAY } from '../extensions.ts'
import { GRAMMAR_CHOICE } from '../descriptions.ts'

/** `$inlinecount=allpages` as one `&`-separated option, with the `$` sent plain or percent-encoded. */
const INLINECOUNT = '(^|&)(\\$|%24)inlinecount=allpages(&|$)'

/**
 * Strict mode: no raw `&` between single quotes (`'Smith & Sons'`), since the description's query text is
 * `&`-separated; the lenient mock reads such a value whole with the warning QUOTED_AMPERSAND. Quotes toggle as
 * the mock's splitter reads them (a doubled quote inside a value toggles twice); `%26` is no raw `&`.
 */
const NO_QUOTED_AMPERSAND = { allOf: [{ pattern: "^(?:[^']|'[^'&]*')*(?:'[^'&]*)?$" }] }

/** What the mock chose for the `query` text: the grammar, and reading a raw `&` inside quotes whole (with a warning). */
const QUERY_CHOICE = `${GRAMMAR_CHOICE}; + read as a space; a raw & inside a quoted value read as part of it, with a warning`

export const ItemsQuery: SchemaObject = {
  type: 'object',
  title: 'Get Items query',
  description:
    'Asks for rows. `query` holds the query options (`$top`, `$skip`, `$orderby`, `$filter`, `relationKey`) and must not ' +
    'ask for a count; see the operation description for the grammar.',
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      // Said as "not the count option" rather than a pattern with a negative lookahead: the lookahead
      // backtracks over every `&` and took 220 to 350 ms on a 59 MB query text; this search takes 4 to 9.
      not: { pattern: INLINECOUNT },
      [MOCK_DEFINED]: QUERY_CHOICE,
      [STRICT_OVERLAY]: NO_QUOTED_AMPERSAND,
      description:
        'Query options joined by `&`, without `$inlinecount=allpages`. Each is read as form-encoded text: `+` and `%20` are ' +
        'spaces, `%2B` a plus, `%26` an ampersand inside a value. A raw `&` inside a quoted value is read as part of it, with ' +
        'the warning QUOTED_AMPERSAND (strict mode refuses it).',
      examples: ["$top=200&$skip=0&$orderby=Id asc&$filter=Status eq 'Open'"],
    },
  },
  additionalProperties: false,
}

export const CountQuery: SchemaObject = {
  type: 'object',
  title: 'Get Items Count query',
  description:
    'Asks how many rows match. `query` contains the option `$inlinecount=allpages`, optionally with `$filter` and ' + '`relationKey` (to count detail rows).',
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      pattern: INLINECOUNT,
      [MOCK_DEFINED]: QUERY_CHOICE,
      [STRICT_OVERLAY]: NO_QUOTED_AMPERSAND,
      description:
        'Query options joined by `&`, one of them `$inlinecount=allpages`, read as in `ItemsQuery` (a raw `&` inside a quoted ' +
        'value: warning QUOTED_AMPERSAND, refused in strict mode).',
      examples: ['$inlinecount=allpages&relationKey=OrderLines'],
    },
  },
  additionalProperties: false,
}

export const CountResult: SchemaObject = {
  type: 'object',
  title: 'Count result',
  description: 'How many rows match a count query.',
  required: ['Timestamp', 'Items'],
  properties: {
    Timestamp: {
      type: 'integer',
      description: 'A stamp the service attaches to the count. The published description gives neither its unit nor its clock; treat it as opaque.',
    },
    Items: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      description: 'Exactly one entry holding the count.',
      items: {
        type: 'object',
        required: ['_FieldCount_'],
        properties: { _FieldCount_: { type: 'integer', minimum: 0, description: 'Number of matching rows.' } },
      },
    },
  },
}
