/**
 * The usage file's JSON Schema (spec/usage.schema.json, exported as `appdata-kit/usage.schema.json`)
 * and its compiled validator (src/usage-file/usage-validator.generated.ts), both written by
 * `npm run spec`. Built here from the bounds and vocabularies the reader and the recorder use
 * (src/usage-file/limits.ts, shape.ts) and the operations of the API's document, so the schema, the
 * reader and the docs cannot come to disagree; a test keeps the written files in step.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import standaloneModule from 'ajv/dist/standalone/index.js'
import { RELEASE_PATTERN, SHAPE_AT_LIMIT, USAGE_LIMITS } from '../src/usage-file/limits.ts'
import { MEMBER_NAME, ROW_FIELD_TYPES, SHAPE_TYPES } from '../src/usage-file/shape.ts'
import { buildDocument } from './index.ts'

// ajv ships CommonJS; under NodeNext its default export types as the module object.
const standalone = standaloneModule as unknown as (ajv: Ajv2020, validate: unknown) => string

/** Where the usage schema lives, relative to the project (published as `appdata-kit/usage.schema.json`). */
export const USAGE_SCHEMA_FILE = 'spec/usage.schema.json'
/** Where its compiled validator lives, relative to the project. */
export const USAGE_VALIDATOR_FILE = 'src/usage-file/usage-validator.generated.ts'

const L = USAGE_LIMITS
const MAX_COUNT = Number.MAX_SAFE_INTEGER

/** `^(?:a|b)(?:\|(?:a|b))*$`: a union of the types given, joined by `|`. */
const unionPattern = (types: readonly string[]) => {
  const one = `(?:${types.join('|')})`
  return `^${one}(?:\\|${one})*$`
}

const text = (description?: string) => ({ type: 'string', maxLength: L.textLength, ...(description === undefined ? {} : { description }) })
const union = (types: readonly string[], description: string) => ({ type: 'string', maxLength: L.textLength, pattern: unionPattern(types), description })
const list = (items: object, description: string) => ({ type: 'array', maxItems: L.listItems, items, description })
const memberName = { type: 'string', maxLength: L.nameLength }
const count = (description: string) => ({ type: 'integer', minimum: 1, maximum: MAX_COUNT, description })

const SHAPE_TEXT =
  'A shape: a union of types joined by `|` (texts as `string` or a format: `guid`, `email`, `date`, `date-time`, `uri`; `absent` when some samples lacked the member), ' +
  "or an object with `type` and its `fields` (members by name, `*` for keys that are data) or `items` (the union of an array's items)."

/** The shape at nesting level `level` (1 for a body), and the levels below it down to the limit. */
function shapeDefs(): Record<string, object> {
  const defs: Record<string, object> = {}
  const name = (level: number) => (level > L.shapeDepth ? SHAPE_AT_LIMIT : `shape${level}`)
  for (let level = 1; level <= L.shapeDepth; level++) {
    const below = { $ref: `#/$defs/${name(level + 1)}` }
    defs[name(level)] = {
      description: `${SHAPE_TEXT} Level ${level} of at most ${L.shapeDepth}.`,
      type: ['string', 'object'],
      maxLength: L.textLength,
      pattern: unionPattern(SHAPE_TYPES),
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: union(SHAPE_TYPES, 'The union of the types seen.'),
        fields: {
          type: 'object',
          description: 'Members by name, each with its shape; `*` for keys that are data (Ids, `OrderLines:-1`).',
          maxProperties: L.members,
          propertyNames: { ...memberName, pattern: `^(?:${MEMBER_NAME.source.slice(1, -1)}|\\*)$` },
          additionalProperties: below,
        },
        items: below,
      },
    }
  }
  // A type union only, so a deeper nesting is refused here, and the reader knows it by the comment.
  defs[SHAPE_AT_LIMIT] = {
    $comment: SHAPE_AT_LIMIT,
    ...union(SHAPE_TYPES, `A shape below ${L.shapeDepth} levels of members and items: only its types (the limit on a shape's nesting).`),
  }
  return defs
}

/** The operationIds of every release of the API's document, sorted: all an interaction may name. */
function operationIds(): string[] {
  const ids = new Set<string>()
  for (const item of Object.values(buildDocument().paths ?? {})) {
    for (const operation of Object.values(item as Record<string, unknown>)) {
      const id = (operation as { operationId?: unknown } | null)?.operationId
      if (typeof id === 'string') ids.add(id)
    }
  }
  return [...ids].sort()
}

/** The usage file's JSON Schema (2020-12), with every bound it can say. */
export function buildUsageSchema(): Record<string, unknown> {
  const shape1 = { $ref: '#/$defs/shape1' }
  const request = {
    type: 'object',
    description:
      "The request's shape, never a value: how the client authenticated, the headers and media type it sent, and by operation its query, kinds of rows, delete body, other body or path parameters.",
    required: ['auth', 'headers'],
    additionalProperties: false,
    properties: {
      auth: { enum: ['session-token', 'bearer', 'none'], description: '`SessionToken` header, `Authorization: Bearer`, or none.' },
      headers: {
        type: 'array',
        uniqueItems: true,
        items: { enum: ['ApplicationId', 'SessionToken', 'WorkspaceId', 'Authorization'] },
        description: "The API's headers sent, in the description's spelling.",
      },
      contentType: text('Media type of the body sent, without parameters.'),
      query: { $ref: '#/$defs/query' },
      rows: list({ $ref: '#/$defs/rowKind' }, 'Save: one entry per kind of row sent (master or detail, create or update, with its fields).'),
      delete: { $ref: '#/$defs/delete' },
      body: { ...shape1, description: 'Any other body (sign-in forms, downloads, actions, e-mails, row links): its shape.' },
      path: {
        type: 'object',
        description: "Path parameters' types (Get Identities).",
        maxProperties: L.members,
        propertyNames: memberName,
        additionalProperties: union(SHAPE_TYPES, "The parameter's type."),
      },
    },
  }
  const query = {
    type: 'object',
    description: "Get Items, Get Items Count and the attachments: the query's options.",
    additionalProperties: false,
    properties: {
      count: { const: true },
      top: { type: 'integer', minimum: 0, maximum: MAX_COUNT },
      skip: { const: true },
      orderBy: text('`$orderby` as written: `Customer asc, Id desc`.'),
      filter: text('`$filter` as a template whose values are their types: `MasterId eq <integer> and Status ne <string>`.'),
      relationKey: text(),
      other: list(text(), 'Options the description does not list, by name.'),
      unreadable: { const: true, description: 'A query the mock could not read (answered 400).' },
    },
  }
  const rowKind = {
    type: 'object',
    description: 'A kind of row in a save: master or detail (by relation key), create or update, with the fields sent.',
    required: ['table', 'action', 'fields'],
    additionalProperties: false,
    properties: {
      table: { type: ['string', 'null'], maxLength: L.textLength, description: 'The relation key of a detail row; null for a master row.' },
      action: { enum: ['create', 'update'] },
      fields: {
        type: 'object',
        description: 'Each field sent with its type; `Id` as `temporary` (a negative Id) or `integer`.',
        maxProperties: L.members,
        propertyNames: memberName,
        additionalProperties: union(ROW_FIELD_TYPES, "The field's type."),
      },
    },
  }
  const deleted = {
    type: 'object',
    description: 'Delete: which body form, and which tables.',
    required: ['form', 'tables'],
    additionalProperties: false,
    properties: {
      form: { enum: ['current', 'older'] },
      tables: list({ type: ['string', 'null'], maxLength: L.textLength }, 'Relation keys; null for master rows.'),
    },
  }
  const answer = {
    type: 'object',
    required: ['count'],
    additionalProperties: false,
    properties: {
      count: count('Answers of this status.'),
      body: { ...shape1, description: 'The shape of the JSON bodies received (of the first 100).' },
      mediaTypes: list(text(), 'Media types of the files received.'),
      problems: list(text(), 'Problem codes of the refusals.'),
    },
  }
  const interaction = {
    type: 'object',
    description: 'One request shape of one operation on one release, counted, with the answers received by status.',
    required: ['operation', 'release', 'request', 'count', 'answers'],
    additionalProperties: false,
    properties: {
      operation: { enum: operationIds(), description: 'The operationId.' },
      release: { type: 'string', maxLength: L.textLength, pattern: RELEASE_PATTERN, description: 'The release the mock emulated: 2.x or 3.x (or latest).' },
      request: { $ref: '#/$defs/request' },
      count: count('Requests of this shape.'),
      answers: {
        type: 'object',
        description: 'By status.',
        propertyNames: { type: 'string', pattern: '^[1-5][0-9]{2}$' },
        additionalProperties: { $ref: '#/$defs/answer' },
      },
    },
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:appdata-kit:usage',
    title: 'appdata-kit usage file',
    description:
      "What a client used of the API, as `--record-usage` writes it (the mock's and the proxy's recorders) and `upgrade`, `verify --usage`, `coverage` and `usage merge` read it: shapes, never values. " +
      `Bounds: at most ${L.interactions} interactions, texts of at most ${L.textLength} characters (UTF-16 code units), member names of at most ${L.nameLength}, ${L.members} members in an object, ${L.listItems} items in a list, ` +
      `members and items ${L.shapeDepth} levels deep in a shape; the file itself at most ${L.fileBytes} bytes (which only the reader checks). See docs/usage.md, Limits.`,
    type: 'object',
    required: ['appdataKitUsage', 'interactions'],
    additionalProperties: false,
    properties: {
      $schema: text(),
      appdataKitUsage: { const: 1, description: "The format's version." },
      interactions: {
        type: 'array',
        maxItems: L.interactions,
        items: { $ref: '#/$defs/interaction' },
        description: 'Sorted by operation, release and request shape.',
      },
    },
    $defs: { interaction, request, query, rowKind, delete: deleted, answer, ...shapeDefs() },
  }
}

/** The schema as the file holds it: 2-space JSON with a trailing newline. */
export function usageSchemaText(): string {
  return `${JSON.stringify(buildUsageSchema(), null, 2)}\n`
}

/**
 * The schema's validator as standalone code (Ajv's standalone mode), so a command checks a file
 * without compiling the schema first. It stops at the first problem (a file of 200,000
 * interactions that are all wrong costs one message, not 200,000), and counts a text's length in
 * UTF-16 code units, as JavaScript does, so a long text is measured without a walk over it.
 */
export function usageValidatorSource(): string {
  // verbose: an error carries its schema, by which the reader tells the nesting limit from a wrong type.
  // `unicode: false` is deprecated in Ajv 8 but still what makes maxLength read `.length`; logger: false keeps the notice out of `npm run spec`.
  // Each level of a shape is a function of its own (inlineRefs: false): inlined, the 16 levels nest too deep for the type checker.
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    allowUnionTypes: true,
    unicode: false,
    logger: false,
    inlineRefs: false,
    verbose: true,
    code: { source: true, esm: true },
  })
  const code = standalone(ajv, ajv.compile(buildUsageSchema()))
  return [
    `// generated by npm run spec from ${USAGE_SCHEMA_FILE}'s source (spec/usage-schema.ts), do not edit`,
    '// @ts-nocheck',
    // The generated code reaches Ajv's runtime helpers through require, which an ES module makes for itself.
    "import { createRequire } from 'node:module'",
    'const require = createRequire(import.meta.url)',
    code,
    '',
  ].join('\n')
}
