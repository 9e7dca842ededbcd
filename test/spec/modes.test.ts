/**
 * The documents of the two modes, made from the published one: the published (lenient) document
 * closes no request schema, strict mode's applies every `x-mock-strict` overlay and keeps none, and
 * the document the mock checks requests against closes the request schemas again (to find unknown
 * members) while keeping the lenient values.
 */
import { describe, expect, it } from 'vitest'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { apiDocument, listOperations, releaseDocument, servedDocument, walk } from '../../src/document/reader.ts'
import { checkedDocument, documentForMode } from '../../src/document/modes.ts'
import { validatorsFor } from '../../src/document/validators.ts'

type Schemas = Record<string, Record<string, any>>
const schemasOf = (document: OpenAPIObject) => document.components?.schemas as Schemas

describe('documents per mode', () => {
  it('the published document is the lenient one, with no closed request schema and the strict rules in overlays', () => {
    const published = apiDocument()
    expect(documentForMode(published, 'lenient')).toBe(published)
    const closed: string[] = []
    for (const entry of listOperations(published))
      walk(
        entry.operation.requestBody,
        entry.pointer,
        (node, pointer) => node.additionalProperties === false && !pointer.includes('x-mock-strict') && closed.push(pointer),
      )
    for (const name of ['SaveRequest', 'SaveMaster', 'SaveDetailGroup', 'RowKey', 'EmailRequest', 'RowLinkRequest', 'ActionRequest']) {
      expect(schemasOf(published)[name]?.additionalProperties, name).toBeUndefined()
      expect(schemasOf(published)[name]?.['x-mock-strict']?.additionalProperties, name).toBe(false)
    }
    expect(closed, 'closed request schemas').toEqual([])
    // Answers stay closed where their schemas say so.
    expect(schemasOf(published).ActionResult?.['x-mock-strict']).toBeUndefined()
  })

  it('the strict document applies every overlay and keeps none', () => {
    const strict = documentForMode(apiDocument(), 'strict')
    expect(JSON.stringify(strict)).not.toContain('x-mock-strict')
    const schemas = schemasOf(strict)
    expect(schemas.EmailRequest?.properties.providerId.type).toBe('string')
    expect(schemas.SaveDetailGroup?.properties.Rows.minItems).toBe(1)
    expect(schemas.RowLinkRequest?.required).toContain('relationKey')
    expect(schemas.ActionParameter?.oneOf).toHaveLength(2)
    // Each body where the description shows it: the older delete body below 3.0, the current one from 3.0.
    const bodies = (version: string) => JSON.stringify(servedDocument(version, 'strict').paths?.['/ExplorerApi/api/items/delete']?.post?.requestBody)
    expect(bodies('3.0.19')).not.toContain('DeleteRequestLegacy')
    expect(bodies('3.0.19')).toContain('DeleteRequest')
    expect(bodies('2.9.0')).not.toContain('"#/components/schemas/DeleteRequest"')
    expect(JSON.stringify(servedDocument('3.0.19', 'lenient').paths?.['/ExplorerApi/api/items/delete']?.post?.requestBody)).toContain('DeleteRequestLegacy')
  })

  it('sign-in takes JSON in the lenient document (warning SIGN_IN_JSON_BODY) and only the form in the strict one', () => {
    const mediaTypes = (version: string, mode: 'lenient' | 'strict', path: string) => {
      const body = servedDocument(version, mode).paths?.[path]?.post?.requestBody as { content?: object } | undefined
      return Object.keys(body?.content ?? {})
    }
    const content = (mode: 'lenient' | 'strict', path: string) => mediaTypes('3.0.19', mode, path)
    for (const path of ['/identityprovider/{organizationphysicalname}/connect/token']) {
      expect(content('lenient', path)).toEqual(['application/x-www-form-urlencoded', 'application/json'])
      expect(content('strict', path)).toEqual(['application/x-www-form-urlencoded'])
    }
    const older = (mode: 'lenient' | 'strict') => mediaTypes('3.0.18', mode, '/identityprovider/connect/token')
    expect(older('lenient')).toContain('application/json')
    expect(older('strict')).toEqual(['application/x-www-form-urlencoded'])
  })

  it('a raw & inside a quoted query value is allowed in the lenient document and not in the strict one (QUOTED_AMPERSAND)', () => {
    const query = (mode: 'lenient' | 'strict') => validatorsFor(servedDocument('3.0.19', mode)).schemaAt('/components/schemas/ItemsQuery')
    expect(query('lenient')({ query: "$filter=Customer eq 'Smith & Sons'" })).toBe(true)
    expect(query('strict')({ query: "$filter=Customer eq 'Smith & Sons'" })).toBe(false)
    expect(query('strict')({ query: "$filter=Customer eq 'Smith %26 Sons'&$top=1" })).toBe(true)
    expect(query('strict')({ query: "$filter=Customer eq 'O''Brien'&$top=1" })).toBe(true)
  })

  it('the mock checks requests against lenient values with the request schemas closed again', () => {
    const checked = checkedDocument(apiDocument())
    expect(schemasOf(checked).EmailRequest?.additionalProperties).toBe(false)
    expect(schemasOf(checked).EmailRequest?.properties.providerId.type).toEqual(['string', 'null'])
    expect(schemasOf(checked).EmailRequest?.properties.providerId['x-mock-strict']).toEqual({ type: 'string' })
    expect(releaseDocument('3.0.19').components?.schemas).toEqual(checked.components?.schemas)
  })
})
