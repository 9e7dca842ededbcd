/**
 * The one door of a usage file (src/usage-file/check.ts): the published schema and its compiled
 * validator as `npm run spec` writes them; every file a recorder writes goes through it (a property
 * over random exchanges); each wrong type and each bound, exactly at its limit and one past it,
 * is refused naming the interaction (from 1) and the JSON pointer; the size is refused before the
 * file is read; the releases it takes are the ones the mock emulates.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkUsageJson, UsageFileError } from '../../src/usage-file/check.ts'
import { mergeUsage, readUsageFile, UsageAccumulator, type UsageFile } from '../../src/usage-file/file.ts'
import { KNOWN_RELEASES, RELEASE_PATTERN, USAGE_LIMITS } from '../../src/usage-file/limits.ts'
import { recordExchange } from '../../src/usage-file/record.ts'
import { apiDocument, listOperations } from '../../src/document/reader.ts'
import { emulatedRelease } from '../../src/mock/config.ts'
import { LATEST_VERSION, normalizeVersion } from '../../spec/versions.ts'
import { PROFILE_RELEASES } from '../../spec/profiles.ts'
import { USAGE_SCHEMA_FILE, USAGE_VALIDATOR_FILE, usageSchemaText, usageValidatorSource } from '../../spec/usage-schema.ts'
import { ROOT } from '../cli/processes.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { runs } from '../helpers/property-runs.ts'

const L = USAGE_LIMITS

/** A usage of one Get Items interaction whose answer's rows have the members given, and a save. */
function usage(): UsageFile {
  return {
    appdataKitUsage: 1,
    interactions: [
      {
        operation: 'queryItems',
        release: '3.0.19',
        count: 2,
        request: {
          auth: 'session-token',
          headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'],
          contentType: 'application/json',
          query: { filter: 'Status eq <string>', top: 5 },
        },
        answers: { '200': { count: 2, body: { type: 'array', items: { type: 'object', fields: { Id: 'integer', Customer: 'string|null' } } } } },
      },
      {
        operation: 'saveItems',
        release: '3.0.19',
        count: 1,
        request: {
          auth: 'session-token',
          headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'],
          rows: [{ table: null, action: 'create', fields: { Id: 'temporary', Customer: 'string' } }],
        },
        answers: { '200': { count: 1 } },
      },
    ],
  }
}

/** The message of the refusal of `file`, or undefined when it is taken. */
function refusal(file: unknown): string | undefined {
  try {
    checkUsageJson(file, 'usage.json')
    return undefined
  } catch (error) {
    if (!(error instanceof UsageFileError)) throw error
    return error.message
  }
}

/** A usage changed by `change` (on a copy): any value where a usage file has another is the point. */
function changed(change: (file: any) => void): unknown {
  const file = structuredClone(usage())
  change(file)
  return file
}

/** A shape whose members nest `levels` deep. */
function nested(levels: number): unknown {
  let shape: unknown = 'string'
  for (let i = 0; i < levels; i++) shape = { type: 'object', fields: { inner: shape } }
  return shape
}

const members = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`Field${i}`, 'string']))

describe('the usage schema', () => {
  it(`${USAGE_SCHEMA_FILE} and ${USAGE_VALIDATOR_FILE} are what npm run spec writes now`, () => {
    expect(readFileSync(join(ROOT, USAGE_SCHEMA_FILE), 'utf8')).toBe(usageSchemaText())
    expect(readFileSync(join(ROOT, USAGE_VALIDATOR_FILE), 'utf8')).toBe(usageValidatorSource())
  })

  it('says every bound a schema can say, and names the one it cannot', () => {
    const schema = JSON.parse(usageSchemaText())
    expect(schema.properties.interactions.maxItems).toBe(L.interactions)
    expect(schema.$defs.request.properties.query.$ref).toBe('#/$defs/query')
    expect(schema.$defs.query.properties.filter.maxLength).toBe(L.textLength)
    expect(schema.$defs.shape1.properties.fields.maxProperties).toBe(L.members)
    expect(schema.$defs.shape1.properties.fields.propertyNames.maxLength).toBe(L.nameLength)
    expect(schema.$defs.request.properties.rows.maxItems).toBe(L.listItems)
    expect(schema.$defs[`shape${L.shapeDepth}`]).toBeDefined()
    expect(schema.$defs[`shape${L.shapeDepth + 1}`]).toBeUndefined()
    expect(schema.description).toContain(`at most ${L.fileBytes} bytes`)
  })
})

describe('files the recorders write', () => {
  const operations = listOperations(apiDocument()).map((entry) => entry.operationId)
  // Values of every type a recorder tells apart: the formats of texts among them.
  const scalar = fc.oneof(
    fc.constantFrom(
      '0f8fad5b-d9cb-469f-a165-70867728950e',
      'buyer@example.test',
      '2026-01-05',
      '/Date(1767571200000)/',
      '2026-01-05T09:00:00Z',
      'https://example.test/a',
    ),
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  )
  const name = fc.oneof(fc.string(), fc.constantFrom('Id', 'Customer', '__proto__', '-1', 'OrderLines:-1', 'password'))
  const { json } = fc.letrec((tie) => ({
    json: fc.oneof({ maxDepth: 10, depthSize: 'small' }, scalar, fc.array(tie('json'), { maxLength: 3 }), fc.dictionary(name, tie('json'), { maxKeys: 4 })),
  }))
  const row = fc.dictionary(name, scalar, { maxKeys: 6 })
  const exchange = fc.record({
    operation: fc.constantFrom(...operations),
    release: fc.constantFrom('3.0.19', '3.0.18', '2.9.0'),
    query: fc.oneof(
      fc.string(),
      fc.constantFrom(
        "$filter=Status eq 'Open' and Amount gt 10&$top=5&$orderby=Customer desc",
        '$inlinecount=allpages&relationKey=OrderLines&$skip=2',
        '$filter=(',
        '$top=x&other=1',
      ),
    ),
    headers: fc.subarray(['applicationid', 'sessiontoken', 'workspaceid', 'authorization', 'content-type']),
    // Deeper than the 8 levels a recorder keeps of a body; saves with rows of any fields.
    body: fc.oneof(
      json,
      fc.record({
        Rows: fc.array(
          fc.record({
            Row: row,
            Details: fc.array(fc.record({ RelationKey: fc.option(fc.string()), Rows: fc.array(row, { maxLength: 3 }) }), { maxLength: 2 }),
          }),
          { maxLength: 3 },
        ),
      }),
    ),
    params: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    status: fc.integer({ min: 100, max: 599 }),
    contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/pdf', 'text/plain', ''),
    payload: fc.oneof(
      json.map((value) => JSON.stringify(value)),
      fc.string(),
      fc.record({ code: fc.string() }).map((value) => JSON.stringify(value)),
    ),
  })

  it('are taken, whatever the exchanges (random bodies, queries, statuses and answers), and so are their merges', () => {
    fc.assert(
      fc.property(fc.array(exchange, { maxLength: 10 }), (exchanges) => {
        const accumulator = new UsageAccumulator()
        for (const item of exchanges) {
          const headers = Object.fromEntries(
            item.headers.map((name) => [name, name === 'authorization' ? 'Bearer x' : name === 'content-type' ? 'application/json' : 'x']),
          )
          const body = item.operation === 'queryItems' && typeof item.body === 'object' ? { query: item.query } : item.body
          recordExchange(accumulator, item.release, {
            operation: item.operation,
            url: `/path?${item.query}`,
            headers,
            body,
            params: item.params,
            status: item.status,
            contentType: item.contentType,
            payload: item.payload,
          })
        }
        const file = accumulator.file()
        expect(refusal(file)).toBeUndefined()
        expect(refusal(mergeUsage([file, file]))).toBeUndefined()
      }),
      { numRuns: runs(200) },
    )
  })
})

describe('a file of the wrong types', () => {
  it.each([
    [
      'answers as a list',
      (f: any) => (f.interactions[1].answers = [1, 2]),
      'interaction 2 (/interactions/1/answers) is a list of 2 items; it must be an object',
    ],
    ['a negative count', (f: any) => (f.interactions[0].count = -5), 'interaction 1 (/interactions/0/count) is -5; it must be at least 1'],
    [
      'a count no integer holds exactly',
      (f: any) => (f.interactions[0].answers['200'].count = 1e308),
      'interaction 1 (/interactions/0/answers/200/count) is 1e+308; it must be at most 9,007,199,254,740,991',
    ],
    [
      'a status that is no HTTP status',
      (f: any) => (f.interactions[1].answers.abc = { count: 1 }),
      'interaction 2 (/interactions/1/answers) has the status "abc", which is no HTTP status',
    ],
    [
      'an operation of no release',
      (f: any) => (f.interactions[0].operation = 'queryEverything'),
      'interaction 1 (/interactions/0/operation) is "queryEverything"; it must be one of "deleteItems"',
    ],
    [
      'a type no recorder writes',
      (f: any) => (f.interactions[0].answers['200'].body.items.fields.Id = 'int'),
      'interaction 1 (/interactions/0/answers/200/body/items/fields/Id) is "int", which is no type a recorder writes',
    ],
    [
      'a type no recorder writes in a saved row',
      (f: any) => (f.interactions[1].request.rows[0].fields.Customer = 'text'),
      'interaction 2 (/interactions/1/request/rows/0/fields/Customer) is "text", which is no type a recorder writes: absent, array, boolean, date, date-time, email, guid, integer, null, number, object, string, uri, temporary, or several of them joined by |',
    ],
    [
      'a temporary Id in an answer',
      (f: any) => (f.interactions[0].answers['200'].body.items.fields.Id = 'temporary'),
      'interaction 1 (/interactions/0/answers/200/body/items/fields/Id) is "temporary", which is no type a recorder writes',
    ],
    [
      'a member name with a space',
      (f: any) => (f.interactions[0].answers['200'].body.items.fields['Order Id'] = 'integer'),
      'interaction 1 (/interactions/0/answers/200/body/items/fields) has the member name "Order Id"',
    ],
    [
      'a member a usage file does not have',
      (f: any) => (f.interactions[0].request.filter = 'x'),
      'interaction 1 (/interactions/0/request) has a member "filter", which a usage file does not have there',
    ],
    ['a member missing', (f: any) => delete f.interactions[1].count, 'interaction 2 (/interactions/1) lacks the member count'],
    [
      'a header twice',
      (f: any) => (f.interactions[1].request.headers = ['SessionToken', 'SessionToken']),
      'interaction 2 (/interactions/1/request/headers) lists "SessionToken" twice',
    ],
    [
      'rows that are no list',
      (f: any) => (f.interactions[1].request.rows = 'all of them'),
      'interaction 2 (/interactions/1/request/rows) is "all of them"; it must be a list',
    ],
    ['another version of the format', (f: any) => (f.appdataKitUsage = 2), '/appdataKitUsage is 2; it must be 1'],
    ['interactions that are no list', (f: any) => (f.interactions = {}), '/interactions is an object; it must be a list'],
  ])('refuses %s, naming the interaction (from 1) and the pointer', (_name, change, message) => {
    expect(refusal(usage())).toBeUndefined()
    expect(refusal(changed(change))).toContain(`usage.json: ${message}`)
  })

  it('refuses a release the mock does not emulate, naming the releases it knows', () => {
    const message = refusal(changed((f) => (f.interactions[1].release = '9.9.9')))
    expect(message).toBe(
      `usage.json: interaction 2 (/interactions/1/release) names the release "9.9.9", which appdata-kit does not know: it knows the releases ${KNOWN_RELEASES}`,
    )
    expect(message).not.toContain('--product-version')
  })

  it('takes exactly the releases the mock emulates, in the form the recorder writes them', () => {
    const pattern = new RegExp(RELEASE_PATTERN, 'u')
    const candidates = [
      'latest',
      '2',
      '2.9',
      '2.9.0',
      '2.0.0',
      '3',
      '3.0.18',
      '3.0.19',
      '3.7.2',
      '1.9.9',
      '0.2',
      '4.0.0',
      '9.9.9',
      '3.0.019',
      '03.0',
      '3.0.0.1',
      '3.1234567890123456',
      '3.12345678901234567',
      '3.9007199254740991',
      '3.9007199254740992',
      '3.9999999999999999',
      '3.0.9007199254740992',
      'v3.0.19',
      '3.0.19-beta',
    ]
    for (const release of candidates) {
      const emulated = (() => {
        try {
          return emulatedRelease(release)
        } catch {
          return undefined
        }
      })()
      // What the schema takes, the mock emulates; what the mock emulates, the schema takes as the recorder writes it (normalized).
      if (pattern.test(release)) expect(emulated, release).toBeDefined()
      if (emulated !== undefined) expect(pattern.test(normalizeVersion(release) as string), release).toBe(true)
    }
    expect(pattern.test('')).toBe(false)
    expect(KNOWN_RELEASES).toContain(`${LATEST_VERSION} (latest)`)
    for (const release of PROFILE_RELEASES) expect(KNOWN_RELEASES).toContain(release.replace(/\.0$/, ''))
  })
})

describe('the bounds, each at its limit and one past it', () => {
  it.each([
    [
      'a text',
      (n: number) => changed((f) => (f.interactions[0].request.query.filter = 'x'.repeat(n))),
      L.textLength,
      'interaction 1 (/interactions/0/request/query/filter) is a text of 65,537 characters, over the limit of 65,536 characters on a text',
    ],
    [
      'a member name',
      (n: number) => changed((f) => (f.interactions[1].request.rows[0].fields['F'.repeat(n)] = 'string')),
      L.nameLength,
      'interaction 2 (/interactions/1/request/rows/0/fields) has a member name of 1,025 characters ("FFF',
    ],
    [
      'members of an object',
      (n: number) => changed((f) => (f.interactions[0].answers['200'].body.items.fields = members(n))),
      L.members,
      'interaction 1 (/interactions/0/answers/200/body/items/fields) has 2,049 members, over the limit of 2,048 members in an object',
    ],
    [
      'items of a list',
      (n: number) => changed((f) => (f.interactions[0].request.query.other = Array.from({ length: n }, (_, i) => `option${i}`))),
      L.listItems,
      'interaction 1 (/interactions/0/request/query/other) lists 1,001 items, over the limit of 1,000 items in a list',
    ],
    [
      'kinds of rows in a save',
      (n: number) => changed((f) => (f.interactions[1].request.rows = Array.from({ length: n }, (_, i) => ({ table: `T${i}`, action: 'create', fields: {} })))),
      L.listItems,
      'interaction 2 (/interactions/1/request/rows) lists 1,001 items',
    ],
    [
      "a shape's nesting",
      (n: number) => changed((f) => (f.interactions[0].answers['200'].body = nested(n))),
      L.shapeDepth,
      `interaction 1 (/interactions/0/answers/200/body${'/fields/inner'.repeat(16)}) holds a shape whose members nest deeper than 16 levels, the limit on a shape's nesting`,
    ],
    [
      'interactions',
      (n: number) => changed((f) => (f.interactions = Array.from({ length: n }, () => f.interactions[0]))),
      L.interactions,
      '/interactions holds 200,001 interactions, over the limit of 200,000 interactions in a usage file',
    ],
  ])('%s', (_name, make, limit, message) => {
    expect(refusal(make(limit))).toBeUndefined()
    expect(refusal(make(limit + 1))).toContain(`usage.json: ${message}`)
  })

  it('a shape nested 100,000 deep is refused at the limit, without walking it (no stack to run out of)', () => {
    const text = JSON.stringify(changed((f) => (f.interactions[0].answers['200'].body = 'DEEP'))).replace(
      '"DEEP"',
      `${'{"type":"array","items":'.repeat(100_000)}"string"${'}'.repeat(100_000)}`,
    )
    const message = refusal(JSON.parse(text))
    expect(message).toContain(
      'interaction 1 (/interactions/0/answers/200/body/items/items/items/items/items/items/items/items/items/items/items/items/items/items/items/items) holds a shape whose members nest deeper than 16 levels',
    )
  })

  it("the file's size: refused by its size alone before it is read, one byte past the limit", () => {
    const dir = tempDir('appdata-kit-usage-size-')
    const file = join(dir, 'usage.json')
    writeFileSync(file, '')
    // Sparse: the bytes are never written, so a reader that read the file whole would take the time and memory of 256 MiB.
    truncateSync(file, L.fileBytes + 1)
    expect(() => readUsageFile(file, { flag: '--usage' })).toThrow(
      `--usage ${file}: 268,435,457 bytes or more, over the limit of 268,435,456 bytes (256 MiB) on a usage file's size`,
    )
    truncateSync(file, 64 * 1024 ** 3)
    expect(() => readUsageFile(file)).toThrow(`${file}: 68,719,476,736 bytes or more, over the limit of 268,435,456 bytes (256 MiB)`)
  })

  it('reads a device or a pipe no further than one byte past the limit; a folder cannot be read; a byte order mark is not JSON', () => {
    const dir = tempDir('appdata-kit-usage-kinds-')
    expect(() => readUsageFile(dir)).toThrow(`${dir}: cannot be read (EISDIR)`)
    // Endless: read up to the limit and one byte, then refused by what was read.
    expect(() => readUsageFile('/dev/zero')).toThrow('/dev/zero: 268,435,457 bytes or more, over the limit of 268,435,456 bytes')
    expect(() => readUsageFile('/dev/null')).toThrow('/dev/null: not JSON')
    const bom = join(dir, 'bom.json')
    writeFileSync(bom, `\ufeff${JSON.stringify(usage())}`)
    expect(() => readUsageFile(bom)).toThrow(`${bom}: not JSON (U+FEFF (a byte order mark) where a value was expected`)
  })
})
