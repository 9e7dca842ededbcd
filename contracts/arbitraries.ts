import fc from 'fast-check'
import { generateSync, type JsonSchema } from 'json-schema-faker'
import { ACTION_OK, APPLICATION_ID, EMAIL_PROVIDER_ID, MASTER_STORAGE_ID, ORGANIZATION, WORKSPACE_ID } from '../spec/examples.ts'

type JsonObject = Record<string, unknown>

/**
 * Generators of hostile and random input for every operation: values drawn from the document's own
 * schemas (json-schema-faker, seeded by fast-check so a failure replays), nasty texts, mutations of
 * valid bodies and query texts, header values and raw bodies. The robustness contract sends them to
 * any installation; the mock's robustness test sends them all, many more times.
 */

/** Values drawn from a schema by json-schema-faker; the seed comes from fast-check, so a run replays. */
export function fromSchema(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.record({ seed: fc.integer({ min: 1, max: 0x7fff_ffff }), optionals: fc.boolean() }).map(({ seed, optionals }) => {
    try {
      return generateSync(schema, { seed, maxItems: 4, maxLength: 40, alwaysFakeOptionals: optionals })
    } catch {
      // jsf could not handle the schema: the mutations and the other properties still cover it.
      return {}
    }
  })
}

// ---- values -----------------------------------------------------------------------------------

/** Stands for "the current TIMESTAMP of the row this object names"; replaced right before sending (resolveVersions). */
export const CURRENT_VERSION = '<current version of this row>'

/** Texts that have broken parsers before: quotes, escapes, controls, surrogates, injections, numbers as text. */
export const NASTY_TEXTS = [
  '',
  ' ',
  '\t',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  "'",
  "''",
  '"',
  '\\',
  '%',
  '%2',
  '%ZZ',
  '%00',
  '%C3',
  '%E0%A4%A',
  '%u0041',
  '&',
  '=',
  '&&==',
  '#',
  '?',
  '+',
  '\u0000',
  '\u0007',
  '\r\n',
  '\u2028',
  '\uFEFF',
  '\uD800',
  '\uDC00x',
  '😀',
  'Zoë Ærø 東京',
  '\u202Egnp.exe',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  "' or 1 eq 1 or '",
  "'; DROP TABLE Orders; --",
  '<script>alert(1)</script>',
  '${7*7}',
  '../../etc/passwd',
  'OrderLines',
  'orderlines',
  'IdRow',
  ORGANIZATION,
  APPLICATION_ID,
  WORKSPACE_ID,
  MASTER_STORAGE_ID,
  ACTION_OK,
  EMAIL_PROVIDER_ID,
  'AAAAAAAAAB4=',
  '/////////////w==',
]

/** Strings of every kind: printable, any code point (lone surrogates included), graphemes, known-nasty ones. */
export function hostileText(maxLength = 40): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...NASTY_TEXTS),
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: fc.constantFrom("'", '(', ')', '%', '&', '=', ',', ' ', '$', 'a', '0', '\\', '"'), maxLength }),
  )
}

/** Texts that read like an attack on a database, a template or a file system: sent to the mock only. */
const ATTACK_LIKE = /drop|delete|insert|update|truncate|exec|script|select|--|;|\$\{|\.\.\/|\bor\b.*\beq\b/i

/**
 * As hostileText, without the texts that read like an attack: for an installation people use, whose
 * logs, alarms and firewalls would take a probe for one, whatever the API does with it.
 */
export function harmlessText(maxLength = 40): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(...NASTY_TEXTS.filter((text) => !ATTACK_LIKE.test(text))),
      fc.string({ maxLength }),
      fc.string({ unit: fc.constantFrom("'", '(', ')', '%', '&', '=', ',', ' ', '$', 'a', '0', '\\', '"'), maxLength }),
    )
    .filter((text) => !ATTACK_LIKE.test(text))
}

/** Values with a meaning somewhere in the API (Ids, versions, relation keys), and values that fit nowhere. */
export const interestingValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      null,
      true,
      false,
      0,
      -1,
      -2,
      1,
      2,
      3,
      5,
      25,
      26,
      999_999,
      2 ** 31,
      2 ** 53 - 1,
      2 ** 53,
      -(2 ** 53),
      1.5,
      -0.5,
      1e300,
      -1e-300,
      {},
      [],
      [null],
      [[]],
      CURRENT_VERSION,
    ),
  },
  { weight: 2, arbitrary: hostileText() },
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
)

/** Member names the API knows, system fields, prototype names and random ones. */
export const interestingKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'Id',
    'TIMESTAMP',
    'IdRow',
    'Customer',
    'Amount',
    'Status',
    'MasterId',
    'Product',
    'Quantity',
    'UnitPrice',
    'RelationKey',
    'Rows',
    'Row',
    'Details',
    'DT_CREATION',
    'ROW_ORDER',
    'CT_ATTACHMENTS',
    'query',
    'ids',
    'rk',
    'actionId',
    'parametersMap',
    'Name',
    'Value',
    'to',
    'providerId',
    'values',
    'relationKey',
    'valueType',
    'client_id',
    'username',
    'password',
    'grant_type',
    'scope',
    'userName',
    'clientId',
    '__proto__',
    'constructor',
    'prototype',
    '',
  ),
  fc.string({ maxLength: 10 }),
)

// ---- mutations of JSON values -----------------------------------------------------------------

export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: unknown }
  | { kind: 'wrap'; at: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'stringify'; at: number }

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: interestingValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: interestingKey, value: interestingValue }),
  fc.record({ kind: fc.constant('wrap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('stringify' as const), at: fc.nat() }),
)

/** Sets an own member, `__proto__` included (plain assignment would change the prototype instead). */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

interface Slot {
  get(): unknown
  set(value: unknown): void
  remove(): void
  parent: unknown[] | null
}

function slotsOf(root: { value: unknown }): Slot[] {
  const slots: Slot[] = [{ get: () => root.value, set: (v) => (root.value = v), remove: () => (root.value = undefined), parent: null }]
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        slots.push({ get: () => value[index], set: (v) => (value[index] = v), remove: () => value.splice(index, 1), parent: value })
        visit(item)
      })
    } else if (value !== null && typeof value === 'object') {
      const object = value as JsonObject
      for (const key of Object.keys(object)) {
        slots.push({ get: () => object[key], set: (v) => setOwn(object, key, v), remove: () => delete object[key], parent: null })
        visit(object[key])
      }
    }
  }
  visit(root.value)
  return slots
}

/** The value with the mutations applied in turn, each at the node its `at` picks (modulo the node count). */
export function applyMutations(value: unknown, mutations: readonly Mutation[]): unknown {
  const root = { value: structuredClone(value) }
  for (const m of mutations) {
    const slots = slotsOf(root)
    const slot = slots[m.at % slots.length] as Slot
    const current = slot.get()
    switch (m.kind) {
      case 'replace':
        slot.set(structuredClone(m.value))
        break
      case 'delete':
        slot.remove()
        break
      case 'add':
        if (Array.isArray(current)) current.push(structuredClone(m.value))
        else if (current !== null && typeof current === 'object') setOwn(current as JsonObject, m.key, structuredClone(m.value))
        else slot.set({ [m.key]: current })
        break
      case 'wrap':
        slot.set([current])
        break
      case 'duplicate':
        if (slot.parent !== null) slot.parent.push(structuredClone(current))
        else if (Array.isArray(current) && current.length > 0) current.push(structuredClone(current[0]))
        else slot.set([current, current])
        break
      case 'stringify':
        slot.set(current === undefined ? 'undefined' : JSON.stringify(current))
        break
    }
  }
  return root.value === undefined ? null : root.value
}

/** A base value, unchanged half of the time, else with one to three mutations. */
export function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(base, fc.oneof(fc.constant([] as Mutation[]), fc.array(mutation, { minLength: 1, maxLength: 3 })))
    .map(([value, mutations]) => applyMutations(value, mutations))
}

// ---- mutations of text (query strings, filters) ----------------------------------------------

const FRAGMENTS = [
  "'",
  "''",
  '(',
  ')',
  '()',
  ',',
  '&',
  '=',
  '%',
  '%2',
  '%ZZ',
  '%C3',
  '%27',
  '%26',
  '%24',
  '+',
  ' ',
  ' and ',
  ' or ',
  'not ',
  ' eq ',
  ' ne ',
  ' gt ',
  ' le ',
  ' eq null',
  ' eq true',
  ' desc',
  ' asc',
  ',Id',
  '$top=',
  '$skip=',
  '$filter=',
  '$orderby=',
  '$inlinecount=allpages',
  '$inlinecount=none',
  'relationKey=',
  'relationKey=OrderLines',
  '$TOP=1',
  '99999999999999999999',
  '9007199254740993',
  '-1',
  '1.5',
  '1e3',
  '-',
  'contains(',
  "contains(Customer,'a')",
  "startswith(Amount,'1')",
  'Id',
  'Amount',
  'DT_CREATION',
  'MasterId',
  'FolderId eq ',
  'null',
  '😀',
  '\u0000',
  '\t',
  '\n',
  '\uD800',
]

export type TextEdit =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'repeat'; at: number; length: number; times: number }
  | { kind: 'encode'; at: number; length: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'case'; at: number; length: number }

export const textEdit: fc.Arbitrary<TextEdit> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...FRAGMENTS), hostileText(8)) }) },
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }), times: fc.integer({ min: 2, max: 40 }) }),
  fc.record({ kind: fc.constant('encode' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('case' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
)

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text
  for (const edit of edits) {
    const at = edit.at % (out.length + 1)
    switch (edit.kind) {
      case 'insert':
        out = out.slice(0, at) + edit.text + out.slice(at)
        break
      case 'delete':
        out = out.slice(0, at) + out.slice(at + edit.length)
        break
      case 'repeat':
        out = out.slice(0, at) + out.slice(at, at + edit.length).repeat(edit.times) + out.slice(at + edit.length)
        break
      case 'encode':
        out = out.slice(0, at) + encodeComponent(out.slice(at, at + edit.length)) + out.slice(at + edit.length)
        break
      case 'truncate':
        out = out.slice(0, at)
        break
      case 'case': {
        const part = out.slice(at, at + edit.length)
        out = out.slice(0, at) + (part === part.toUpperCase() ? part.toLowerCase() : part.toUpperCase()) + out.slice(at + edit.length)
        break
      }
    }
  }
  return out
}

/** A valid text, mutated by one to four edits, or not at all. */
export function mutatedText(valid: readonly string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...valid), fc.array(textEdit, { minLength: 0, maxLength: 4 })).map(([text, edits]) => applyTextEdits(text, edits))
}

/** Lone surrogates as U+FFFD, so encodeURIComponent cannot throw (what a real client's encoder would send). */
export function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8')
}

export function encodeComponent(text: string): string {
  return encodeURIComponent(wellFormed(text))
}

/**
 * Text put into a URL as it is, without encoding: only `#` (which would end the URL and never
 * reach the server) is escaped; `%` stays, so broken escapes arrive as sent. fetch itself
 * percent-encodes spaces, quotes and non-ASCII characters, as every client does.
 */
export function rawUrlText(text: string): string {
  return wellFormed(text).replaceAll('#', '%23')
}

// ---- headers ----------------------------------------------------------------------------------

/** Keeps a header value sendable: fetch refuses characters above U+00FF and CR, LF, NUL. UTF-8 goes out as its bytes. */
export function headerSafe(text: string): string {
  return Buffer.from(wellFormed(text), 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '?')
}

export const MISSING = Symbol('missing header')
export const VALID = Symbol('valid header')
/** A header as a property draws it: a value, none, the valid one, or the valid one with text around it. */
export type HeaderChoice = string | typeof MISSING | typeof VALID | { prefix: string; suffix: string }

/** The value to send for a choice (undefined: leave the header out). */
export function resolveHeader(choice: HeaderChoice, valid: string): string | undefined {
  if (choice === MISSING) return undefined
  if (choice === VALID) return valid
  if (typeof choice === 'string') return choice
  return `${choice.prefix}${valid}${choice.suffix}`
}

/** A header value: the valid one, none, empty, not a GUID, very long (≤ 1500), non-ASCII, a random GUID, or the valid one bent. */
export const headerChoice: fc.Arbitrary<HeaderChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<HeaderChoice>(VALID) },
  { weight: 2, arbitrary: fc.constant<HeaderChoice>(MISSING) },
  fc.constantFrom<HeaderChoice>(
    '',
    ' ',
    'null',
    'undefined',
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    'A1B2C3D4-0000-4000-8000-000000000001',
    '{a1b2c3d4-0000-4000-8000-000000000001}',
    'a1b2c3d4-0000-4000-8000-00000000000g',
    'a1b2c3d40000400080000000000000001',
    `${APPLICATION_ID}, ${APPLICATION_ID}`,
    APPLICATION_ID,
    WORKSPACE_ID,
    MASTER_STORAGE_ID,
    'Bearer',
    'Bearer ',
    'Basic YWRtaW46YWRtaW4=',
  ),
  fc.uuid().map((v): HeaderChoice => v),
  hostileText(60).map(headerSafe),
  fc.tuple(fc.constantFrom('a', '0', '-', 'é', '😀', "'", '%'), fc.integer({ min: 100, max: 1500 })).map(([c, n]) => headerSafe(c.repeat(n)).slice(0, 1500)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(headerSafe),
  fc.record({ prefix: fc.constantFrom('', 'x', '{', '0'), suffix: fc.constantFrom('x', ' x', ',', '}', '0', '\té', `, ${APPLICATION_ID}`) }),
)

/** Headers a client might add that no operation reads; none of them may matter. */
const EXTRA_HEADER_NAMES = [
  'Accept',
  'Accept-Charset',
  'Accept-Encoding',
  'Accept-Language',
  'Authorization',
  'Cache-Control',
  'Content-Encoding',
  'Content-Language',
  'Cookie',
  'If-Match',
  'If-None-Match',
  'Origin',
  'Range',
  'Referer',
  'User-Agent',
  'X-Forwarded-For',
  'X-Forwarded-Proto',
  'X-HTTP-Method-Override',
  'X-Requested-With',
  'SessionToken2',
  'Application-Id',
  'Workspace_Id',
]

export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.constantFrom(...EXTRA_HEADER_NAMES),
  fc.oneof(fc.constantFrom('*/*', 'application/xml', 'gzip', 'br', 'bytes=0-1', 'bytes=-1', 'null', 'de-DE'), hostileText(40).map(headerSafe)),
  { maxKeys: 3 },
)

// ---- raw bodies -------------------------------------------------------------------------------

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json;',
  'application/json; boundary=x',
  'application/problem+json',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/xml',
  '*/*',
  'application/',
  ';',
  'foo',
]

const RAW_TEXTS = [
  '',
  ' ',
  '\n',
  '{',
  '}',
  '[',
  ']',
  '{"',
  '{"a":',
  '{"a":1,}',
  '[1,]',
  "{'a':1}",
  '{a:1}',
  'null',
  'true',
  '0',
  '-0',
  '1e999',
  '"x"',
  '""',
  '[]',
  '{}',
  'NaN',
  'undefined',
  '\uFEFF{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\x41"}',
  '{}{}',
  '{} garbage',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":1,"a":2}',
  'a=1&b=2',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
]

/** Bytes that are not the body the operation takes: garbage, broken JSON, truncated or corrupted valid bodies, deep nesting, bad UTF-8. */
export function rawBody(valid: readonly string[]): fc.Arbitrary<Buffer> {
  const validText = valid.length > 0 ? fc.constantFrom(...valid) : fc.constant('{}')
  return fc.oneof(
    fc.constantFrom(...RAW_TEXTS).map((text) => Buffer.from(text, 'utf8')),
    fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ unit: 'binary', maxLength: 80 }).map((text) => Buffer.from(text, 'utf8')),
    fc.tuple(validText, fc.nat()).map(([text, cut]) => Buffer.from(text.slice(0, cut % (text.length + 1)), 'utf8')),
    fc.tuple(validText, fc.nat(), fc.integer({ min: 0, max: 255 })).map(([text, at, byte]) => {
      const bytes = Buffer.from(text, 'utf8')
      if (bytes.length > 0) bytes[at % bytes.length] = byte
      return bytes
    }),
    fc.tuple(fc.constantFrom('[', '{"a":', '[{"Rows":'), fc.integer({ min: 50, max: 20_000 })).map(([open, depth]) => {
      const close = open === '[' ? ']' : open === '{"a":' ? '}' : '}]'
      return Buffer.from(`${open.repeat(depth)}null${close.repeat(depth)}`, 'utf8')
    }),
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) => Buffer.concat([Buffer.from('{"query":"', 'utf8'), Buffer.from(bytes.map((b) => 0x80 | b)), Buffer.from('"}', 'utf8')])),
  )
}
