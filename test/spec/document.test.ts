/**
 * The hand-written document: the generated files are current, it is valid OpenAPI 3.1, every endpoint
 * of the published description is in it, every example matches its schema, and the project's own conventions hold.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import semver from 'semver'
import YAML from 'yaml'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { buildDocument, MOCK_DEFINED, PRODUCT_VERSIONS } from '../../spec/index.ts'
import { toJson, toYaml } from '../../spec/serialize.ts'
import { RANGES } from '../../spec/versions.ts'
import { EXAMPLE_FILE } from '../../spec/extensions.ts'
import { asJson, isObject, resolve, walk, type Json, type JsonObject } from './support/document.ts'
import { escapePointer, listOperations } from '../../src/document/reader.ts'
import { markedKeywords } from '../../src/document/mock-defined.ts'

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

const doc = asJson(buildDocument())
// The lister the mock registers its routes from, so the checks see the operations the mock serves.
const operations = listOperations(buildDocument()).map((entry) => ({ ...entry, operation: asJson(entry.operation as never) }))

/** The endpoints of the API's published description (Endpoints, 1 to 12), written out by hand. `branch` names the oneOf branch (by title) that tells apart variants sharing a method and path. */
const DESCRIBED_ENDPOINTS: Array<{ endpoint: string; method: string; path: string; bodyBranch?: string; resultBranch?: string }> = [
  { endpoint: '1. Sign in (current)', method: 'post', path: '/identityprovider/{organizationphysicalname}/connect/token' },
  { endpoint: '1. Sign in (before 3.0.19)', method: 'post', path: '/identityprovider/connect/token' },
  { endpoint: '2. Get Items', method: 'post', path: '/ExplorerApi/api/items', bodyBranch: 'Get Items query' },
  { endpoint: '2. Get Items (older GET variant)', method: 'get', path: '/ExplorerApi/api/items' },
  { endpoint: '3. Get Items Count', method: 'post', path: '/ExplorerApi/api/items', bodyBranch: 'Get Items Count query' },
  { endpoint: '4. Save', method: 'post', path: '/ExplorerApi/api/items/save', resultBranch: 'Save result' },
  { endpoint: '4. Save (IsSaveSuccesfully spelling)', method: 'post', path: '/ExplorerApi/api/items/save', resultBranch: 'Save result (before 3.0)' },
  { endpoint: '5. Delete', method: 'post', path: '/ExplorerApi/api/items/delete', bodyBranch: 'Delete request' },
  { endpoint: '5. Delete (older body)', method: 'post', path: '/ExplorerApi/api/items/delete', bodyBranch: 'Delete request (older form)' },
  { endpoint: '6. Get Attachments List', method: 'get', path: '/ExplorerApi/api/attachments' },
  { endpoint: '7. Download Attachment', method: 'post', path: '/ExplorerApi/api/attachments/download' },
  { endpoint: '8. Run Action', method: 'post', path: '/ExplorerApi/api/action/run' },
  { endpoint: '9. Send Email', method: 'post', path: '/webaggregator/api/v1/email/queue' },
  { endpoint: '10. Generate Row Link', method: 'post', path: '/ExplorerApi/api/metadata/generaterowlink' },
  { endpoint: '11. Get Identities', method: 'get', path: '/ExplorerApi/api/storage/{storage_id}/identity/{field_name}/next/{count}' },
  { endpoint: '12. Sign in (legacy)', method: 'post', path: '/IntelligenceUserManagementService/UserManagementService.svc/Token' },
]

function operationAt(method: string, path: string): JsonObject | undefined {
  return operations.find((entry) => entry.method === method && entry.path === path)?.operation
}

/** Titles of the oneOf (or anyOf) branches of a schema, after resolving references. */
function branchTitles(schema: Json | undefined): string[] {
  const resolved = resolve(doc, schema)
  const branches = isObject(resolved) ? (resolved.oneOf ?? resolved.anyOf) : undefined
  if (!Array.isArray(branches)) return []
  return branches.map((branch) => {
    const target = resolve(doc, branch)
    return isObject(target) && typeof target.title === 'string' ? target.title : '(untitled)'
  })
}

function jsonSchemaOf(holder: Json | undefined): Json | undefined {
  const resolved = resolve(doc, holder)
  if (!isObject(resolved) || !isObject(resolved.content)) return undefined
  const media = resolved.content['application/json']
  return isObject(media) ? media.schema : undefined
}

/** Parameters of an operation, references resolved. */
function parametersOf(operation: JsonObject): JsonObject[] {
  const list = Array.isArray(operation.parameters) ? operation.parameters : []
  return list.map((parameter) => resolve(doc, parameter)).filter(isObject)
}

describe('generated files', () => {
  it('spec/openapi.json is what npm run spec writes now', () => {
    expect(readFileSync(new URL('../../spec/openapi.json', import.meta.url), 'utf8')).toBe(toJson(buildDocument()))
  })

  it('spec/openapi.yaml is what npm run spec writes now', () => {
    expect(readFileSync(new URL('../../spec/openapi.yaml', import.meta.url), 'utf8')).toBe(toYaml(buildDocument()))
  })

  it('the YAML reads back as the same document under YAML 1.1 and 1.2 rules', () => {
    const text = toYaml(buildDocument())
    expect(YAML.parse(text, { version: '1.1' })).toEqual(doc)
    expect(YAML.parse(text, { version: '1.2' })).toEqual(doc)
  })

  it('buildDocument is deterministic and hands out fresh objects', () => {
    const first = buildDocument()
    first.info.title = 'changed'
    expect(toJson(buildDocument())).toBe(toJson(buildDocument()))
    expect(buildDocument().info.title).toBe('Application Data Web API')
  })
})

describe('OpenAPI validity', () => {
  it('passes the OpenAPI 3.1 schema validator', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined()
    expect(result.valid).toBe(true)
  })

  it('every $ref resolves inside the document', () => {
    const dangling: string[] = []
    walk(doc, '', (node, pointer) => {
      if (typeof node.$ref !== 'string') return
      try {
        resolve(doc, node)
      } catch (error) {
        dangling.push(`${pointer}: ${String(error)}`)
      }
    })
    expect(dangling).toEqual([])
  })

  it('declares 3.1.0 with the 2020-12 dialect', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema')
  })
})

describe('operations', () => {
  it('each has an operationId, summary, description, tags and a valid x-product-versions range', () => {
    const problems: string[] = []
    const ranges: readonly string[] = Object.values(RANGES)
    for (const { method, path, operation } of operations) {
      const where = `${method.toUpperCase()} ${path}`
      for (const key of ['operationId', 'summary', 'description']) {
        if (typeof operation[key] !== 'string' || operation[key] === '') problems.push(`${where}: no ${key}`)
      }
      if (!Array.isArray(operation.tags) || operation.tags.length === 0) problems.push(`${where}: no tags`)
      const range = operation[PRODUCT_VERSIONS]
      if (typeof range !== 'string' || semver.validRange(range) === null) problems.push(`${where}: bad ${PRODUCT_VERSIONS} ${String(range)}`)
      else if (!ranges.includes(range)) problems.push(`${where}: ${PRODUCT_VERSIONS} ${range} is not one of spec/versions.ts RANGES`)
    }
    expect(problems).toEqual([])
  })

  it('operationIds are unique', () => {
    const ids = operations.map(({ operation }) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('oneOf branches that carry x-product-versions carry a valid range', () => {
    const problems: string[] = []
    walk(doc, '', (node, pointer) => {
      if (!Array.isArray(node.oneOf)) return
      node.oneOf.forEach((branch, index) => {
        const target = resolve(doc, branch)
        const range = isObject(target) ? target[PRODUCT_VERSIONS] : undefined
        if (range !== undefined && (typeof range !== 'string' || semver.validRange(range) === null)) {
          problems.push(`${pointer}/oneOf/${index}: ${String(range)}`)
        }
      })
    })
    expect(problems).toEqual([])
  })

  it.each(DESCRIBED_ENDPOINTS)('endpoint $endpoint of the description is documented', ({ method, path, bodyBranch, resultBranch }) => {
    const operation = operationAt(method, path)
    expect(operation, `${method.toUpperCase()} ${path}`).toBeDefined()
    if (operation === undefined) return
    if (bodyBranch !== undefined) expect(branchTitles(jsonSchemaOf(operation.requestBody))).toContain(bodyBranch)
    if (resultBranch !== undefined) {
      const responses = isObject(operation.responses) ? operation.responses : {}
      expect(branchTitles(jsonSchemaOf(responses['200']))).toContain(resultBranch)
    }
  })

  it('documents no operation the description does not have', () => {
    const described = new Set(DESCRIBED_ENDPOINTS.map(({ method, path }) => `${method} ${path}`))
    expect(operations.map(({ method, path }) => `${method} ${path}`).filter((key) => !described.has(key))).toEqual([])
  })

  it("path parameters carry the description's names and match the path template", () => {
    const problems: string[] = []
    for (const { method, path, operation } of operations) {
      const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort()
      const declared = parametersOf(operation)
        .filter((p) => p.in === 'path')
        .map((p) => String(p.name))
        .sort()
      if (JSON.stringify(inTemplate) !== JSON.stringify(declared)) problems.push(`${method} ${path}: template ${inTemplate} vs declared ${declared}`)
    }
    expect(problems).toEqual([])
    const names = operations.flatMap(({ operation }) =>
      parametersOf(operation)
        .filter((p) => p.in === 'path')
        .map((p) => p.name),
    )
    expect(new Set(names)).toEqual(new Set(['organizationphysicalname', 'storage_id', 'field_name', 'count']))
  })
})

describe('headers and security', () => {
  const components = isObject(doc.components) ? doc.components : {}
  const parameters = isObject(components.parameters) ? components.parameters : {}

  it('the identifying headers are GUIDs (a WorkspaceId also a 24-hex Domain Id), SessionToken a string', () => {
    expect(parameters.ApplicationId).toMatchObject({ in: 'header', schema: { type: 'string', format: 'uuid' } })
    for (const name of ['WorkspaceId', 'WorkspaceIdOptional']) {
      const pattern = new RegExp(String((parameters[name] as { schema: { pattern: string } }).schema.pattern))
      expect(parameters[name]).toMatchObject({ in: 'header', schema: { type: 'string' } })
      expect(['6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70', '5e5d0d90bea69e451ad8bc1d'].map((id) => pattern.test(id))).toEqual([true, true])
      expect(['5e5d0d90bea69e451ad8bc1', 'acme', '6f1c2a3e0b7d4c1e9a552d3f4e5a6b70'].map((id) => pattern.test(id))).toEqual([false, false, false])
    }
    expect(parameters.SessionToken).toMatchObject({ name: 'SessionToken', in: 'header', required: true, schema: { type: 'string' } })
  })

  it('data operations take the session token and the identifying headers; sign-in takes none', () => {
    const problems: string[] = []
    for (const { method, path, operation } of operations) {
      const where = `${method} ${path}`
      const security = JSON.stringify(operation.security)
      const headers = parametersOf(operation).filter((p) => p.in === 'header')
      const header = (name: string) => headers.find((p) => p.name === name)
      const tags = Array.isArray(operation.tags) ? operation.tags : []
      if (tags.includes('Sign-in')) {
        if (security !== '[]') problems.push(`${where}: sign-in must have security []`)
      } else if (operation.operationId === 'sendEmail') {
        if (security !== '[{"BearerAuth":[]}]') problems.push(`${where}: e-mail must use BearerAuth`)
        if (header('WorkspaceId')?.required !== true) problems.push(`${where}: WorkspaceId must be required`)
      } else {
        if (security !== '[{"SessionToken":[]}]') problems.push(`${where}: must use the SessionToken scheme`)
        for (const name of ['ApplicationId', 'SessionToken']) if (header(name)?.required !== true) problems.push(`${where}: ${name} must be required`)
        const workspaceRequired = operation.operationId !== 'queryItemsLegacy'
        if ((header('WorkspaceId')?.required === true) !== workspaceRequired) {
          problems.push(`${where}: WorkspaceId must be ${workspaceRequired ? 'required' : 'optional'}`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})

describe('errors', () => {
  it('every 4xx response is marked x-mock-defined and answers problem+json', () => {
    const problems: string[] = []
    for (const { method, path, operation } of operations) {
      const responses = isObject(operation.responses) ? operation.responses : {}
      for (const [status, response] of Object.entries(responses)) {
        if (!status.startsWith('4')) continue
        const resolved = resolve(doc, response)
        if (!isObject(resolved) || resolved[MOCK_DEFINED] !== true) problems.push(`${method} ${path} ${status}: not ${MOCK_DEFINED}`)
        if (!isObject(resolved) || !isObject(resolved.content) || !('application/problem+json' in resolved.content)) {
          problems.push(`${method} ${path} ${status}: not problem+json`)
        }
      }
      if (!('414' in responses)) problems.push(`${method} ${path}: no 414`)
      if (operation.requestBody !== undefined && !('413' in responses)) problems.push(`${method} ${path}: body but no 413`)
    }
    expect(problems).toEqual([])
  })
})

describe("the mock's own choices are marked", () => {
  /** Places where the document says more than the published description, which a check of an installation must set aside. */
  const CHOICES: Array<[string, string]> = [
    ['/components/schemas/ReadRow/properties/DT_CREATION', 'true'],
    ['/components/schemas/ReadRow/properties/DT_LAST_UPDATE', 'true'],
    ['/components/schemas/FieldValue', 'true'],
    ['/components/schemas/MultiselectionValue', 'items'],
    ['/components/schemas/ColorValue', 'pattern'],
    ['/components/schemas/ReadRow/properties/CT_ATTACHMENTS', 'type minimum'],
    ['/components/schemas/ReadRow/properties/ROW_ORDER', 'type'],
    ['/components/schemas/ReadRow/properties/TIMESTAMP', 'contentEncoding pattern'],
    ['/components/schemas/Attachment/properties/TypeImage', 'the value for folders'],
    ['/components/schemas/Attachment/properties/DT_LAST_UPDATE', 'type minimum maximum'],
    ['/components/schemas/ReturnState', 'true'],
    ['/components/schemas/Problem', 'true'],
    ['/components/schemas/ActionParameter/oneOf/2', 'true'],
    ['/paths/~1ExplorerApi~1api~1items/get', 'the query options as URL parameters, and no others'],
  ]

  it.each(CHOICES)('%s carries x-mock-defined "%s"', (pointer, value) => {
    let node: Json | undefined = doc
    for (const raw of pointer.slice(1).split('/')) {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
      node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined
    }
    expect(isObject(node) ? String(node[MOCK_DEFINED]) : undefined).toBe(value)
  })

  it('names, where a mark is a list of schema keywords, only keywords the marked schema has', () => {
    const problems: string[] = []
    let lists = 0
    walk(doc, '', (node, pointer) => {
      const keywords = markedKeywords(node[MOCK_DEFINED])
      if (keywords === undefined) return
      lists++
      for (const keyword of keywords) if (!(keyword in node)) problems.push(`${pointer}: ${keyword}`)
    })
    expect(problems).toEqual([])
    expect(lists).toBeGreaterThanOrEqual(8)
  })

  it('marks the attachments $filter grammar, the action parameters beyond the known entries and the identity cap', () => {
    const marked = new Set<string>()
    walk(doc, '', (node, pointer) => {
      if (node[MOCK_DEFINED] !== undefined) marked.add(pointer)
    })
    expect([...marked].some((p) => p.startsWith('/paths/~1ExplorerApi~1api~1attachments/get/parameters/3'))).toBe(true)
    expect(marked).toContain('/components/parameters/IdentityCount/schema')
  })
})

describe('schemas', () => {
  it('a schema allows null alone only where the published description fixes the value as null, and says so with const', () => {
    const found: string[] = []
    walk(doc, '', (node, pointer) => {
      // A null branch of a union (anyOf/oneOf) makes a value nullable; it does not fix the value as null.
      const unionBranch = /\/(anyOf|oneOf)\/\d+$/.test(pointer)
      const onlyNull = node.type === 'null' || (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'null') || node.const === null
      if (!unionBranch && onlyNull) found.push(pointer)
      // `type` beside `const: null` makes openapi-typescript type the member `null`, which openapi-fetch's request types drop.
      if (node.const === null) expect(node.type, pointer).toBeUndefined()
    })
    // Generate Row Link: "relationKey = null (fixed)".
    expect(found).toEqual(['/components/schemas/RowLinkRequest/properties/relationKey'])
  })
})

describe('examples', () => {
  const DOCUMENT_ID = 'urn:appdata-kit:spec-test'
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false })
  addFormats(ajv)
  const extensions = new Set<string>()
  walk(doc, '', (node) =>
    Object.keys(node)
      .filter((key) => key.startsWith('x-'))
      .forEach((key) => extensions.add(key)),
  )
  // Ajv compiles the registered root too, so the document's top-level members must be known keywords.
  ajv.addVocabulary([...extensions, ...Object.keys(doc).filter((key) => !key.startsWith('x-'))])
  ajv.addSchema(doc, DOCUMENT_ID)

  const cache = new Map<string, ReturnType<typeof ajv.compile>>()
  function validatorAt(pointer: string) {
    let validate = cache.get(pointer)
    if (validate === undefined) {
      const fragment = pointer
        .split('/')
        .map((segment) => encodeURIComponent(segment))
        .join('/')
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${fragment}` })
      cache.set(pointer, validate)
    }
    return validate
  }

  /** Every example in the document with the pointer of the schema it must satisfy. */
  function collectExamples(): Array<{ where: string; schemaPointer: string; value: Json }> {
    const found: Array<{ where: string; schemaPointer: string; value: Json }> = []
    walk(doc, '', (node, pointer) => {
      // Schema `examples` is an array; media type, parameter and header `examples` are a map.
      if (Array.isArray(node.examples)) {
        node.examples.forEach((value, index) => found.push({ where: `${pointer}/examples/${index}`, schemaPointer: pointer, value }))
        return
      }
      if (node.schema === undefined) return
      if ('example' in node && node.example !== undefined) found.push({ where: `${pointer}/example`, schemaPointer: `${pointer}/schema`, value: node.example })
      if (isObject(node.examples)) {
        for (const [name, example] of Object.entries(node.examples)) {
          const resolved = resolve(doc, example)
          if (isObject(resolved) && 'value' in resolved && resolved.value !== undefined) {
            found.push({ where: `${pointer}/examples/${escapePointer(name)}`, schemaPointer: `${pointer}/schema`, value: resolved.value })
          }
        }
      }
    })
    return found
  }

  const examples = collectExamples()

  it('finds examples for every request body and every JSON response', () => {
    const missing: string[] = []
    for (const { method, path, pointer, operation } of operations) {
      const bodies: Array<[string, Json | undefined]> = [['requestBody', operation.requestBody]]
      const responses = isObject(operation.responses) ? operation.responses : {}
      for (const [status, response] of Object.entries(responses)) bodies.push([`responses/${status}`, response])
      for (const [where, holder] of bodies) {
        const resolved = resolve(doc, holder)
        if (!isObject(resolved) || !isObject(resolved.content)) continue
        for (const [mediaType, media] of Object.entries(resolved.content)) {
          // A binary payload cannot be an example's value: its media type names the fixture file instead (x-example-file).
          const hasExample =
            isObject(media) &&
            (media.example !== undefined || (isObject(media.examples) && Object.keys(media.examples).length > 0) || typeof media[EXAMPLE_FILE] === 'string')
          if (!hasExample) missing.push(`${method} ${path} ${where} ${mediaType}`)
        }
      }
      expect(pointer).toMatch(/^\/paths\//)
    }
    expect(missing).toEqual([])
    expect(examples.length).toBeGreaterThan(60)
  })

  it('every example validates against its schema', () => {
    const failures: string[] = []
    for (const { where, schemaPointer, value } of examples) {
      const validate = validatorAt(schemaPointer)
      if (!validate(value)) failures.push(`${where}: ${ajv.errorsText(validate.errors, { dataVar: 'example' })}`)
    }
    if (failures.length > 0) console.error(failures.join('\n'))
    expect(failures).toEqual([])
  })

  it('oneOf bodies have one example per branch, each matching exactly that branch', () => {
    const problems: string[] = []
    for (const { method, path, pointer, operation } of operations) {
      const schema = resolve(doc, jsonSchemaOf(operation.requestBody))
      if (!isObject(schema) || !Array.isArray(schema.oneOf)) continue
      const body = resolve(doc, operation.requestBody)
      const media = isObject(body) && isObject(body.content) ? body.content['application/json'] : undefined
      const values = isObject(media) && isObject(media.examples) ? Object.values(media.examples).map((e) => (isObject(e) ? e.value : undefined)) : []
      schema.oneOf.forEach((_, index) => {
        const branchPointer = `${pointer}/requestBody/content/application~1json/schema/oneOf/${index}`
        const validate = validatorAt(branchPointer)
        if (!values.some((value) => value !== undefined && validate(value))) problems.push(`${method} ${path}: no example for branch ${index}`)
      })
    }
    expect(problems).toEqual([])
  })
})
