/**
 * A recorded request written out as the client sends it, its values as their types
 * (src/commands/upgrade/shown.ts): what a finding shows as the client's side today. Each form of
 * body and query the recorder keeps, written here as the recorder writes it.
 */
import { describe, expect, it } from 'vitest'
import { bodyText, deleteText, queryShapeText, requestText, shapeText } from '../../src/commands/upgrade/shown.ts'
import type { Interaction } from '../../src/usage-file/file.ts'
import type { RequestShape } from '../../src/usage-file/request-shape.ts'

const interaction = (operation: string, request: Partial<RequestShape>): Interaction => ({
  operation,
  release: '3.0.19',
  request: { auth: 'session-token', headers: [], ...request },
  count: 1,
  answers: { 200: { count: 1 } },
})

describe('shapeText', () => {
  it('writes members, items and unions, an empty object as {}, and stops four levels down', () => {
    expect(shapeText('integer|null')).toBe('integer|null')
    expect(shapeText({ type: 'object', fields: { userName: 'email', password: 'string' } })).toBe('{ userName: email, password: string }')
    expect(shapeText({ type: 'array', items: 'integer' })).toBe('[integer]')
    expect(shapeText({ type: 'object', fields: {} })).toBe('{}')
    expect(shapeText({ type: 'object|null' })).toBe('object|null')
    const deep = {
      type: 'object',
      fields: { a: { type: 'object', fields: { b: { type: 'array', items: { type: 'object', fields: { c: { type: 'object', fields: { d: 'x' } } } } } } } },
    }
    expect(shapeText(deep)).toBe('{ a: { b: [{ c: object }] } }')
  })
})

describe('queryShapeText', () => {
  it('writes each option the client sends, in the description’s order, values as types where they are', () => {
    expect(
      queryShapeText({ count: true, top: 4, skip: true, orderBy: 'Id desc', filter: 'Status eq <string>', relationKey: 'OrderLines', other: ['$select', 'x'] }),
    ).toBe('$inlinecount=allpages&$top=4&$skip=<integer>&$orderby=Id desc&$filter=Status eq <string>&relationKey=OrderLines&$select=<string>&x=<string>')
    expect(queryShapeText({})).toBe('')
    expect(queryShapeText({ top: 0 })).toBe('$top=0')
  })
})

describe('deleteText', () => {
  it('writes the older body with master rows only, and the current one with a group per table', () => {
    expect(deleteText({ form: 'older', tables: [null] })).toBe('[{ Rows: [{ Row: { Id: integer, TIMESTAMP: integer }, Details: [] }] }]')
    expect(deleteText({ form: 'current', tables: [null, 'OrderLines'] })).toBe(
      '[{ RelationKey: null, Rows: [{ Row: { Id: integer, TIMESTAMP: integer } }] }, { RelationKey: "OrderLines", Rows: [{ Row: { Id: integer, TIMESTAMP: integer } }] }]',
    )
  })
})

describe('bodyText and requestText', () => {
  it('writes Get Items with its query in the body, and the older GET and the attachments list with it in the URL', () => {
    const query = { top: 4, filter: 'Status eq <string>' }
    expect(requestText(interaction('queryItems', { query }), 'post', '/ExplorerApi/api/items')).toBe(
      'POST /ExplorerApi/api/items { query: "$top=4&$filter=Status eq <string>" }',
    )
    expect(bodyText(interaction('queryItems', {}))).toBe('{ query: "" }')
    expect(requestText(interaction('queryItemsLegacy', { query }), 'get', '/ExplorerApi/api/items')).toBe(
      'GET /ExplorerApi/api/items?$top=4&$filter=Status eq <string>',
    )
    expect(requestText(interaction('listAttachments', { query: { filter: 'ParentId eq <integer>' } }), 'GET', '/ExplorerApi/api/attachments')).toBe(
      'GET /ExplorerApi/api/attachments?$filter=ParentId eq <integer>',
    )
    expect(requestText(interaction('listAttachments', {}), 'GET', '/ExplorerApi/api/attachments')).toBe('GET /ExplorerApi/api/attachments')
  })

  it('writes a save with its kinds of master rows (a temporary Id as such) and its detail groups, and an update of details alone under a master of Id and version', () => {
    const rows: RequestShape['rows'] = [
      { table: null, action: 'create', fields: { Id: 'temporary', Customer: 'string' } },
      { table: null, action: 'update', fields: { Id: 'integer', TIMESTAMP: 'integer' } },
      { table: 'OrderLines', action: 'create', fields: { Id: 'temporary', Qty: 'integer' } },
    ]
    expect(bodyText(interaction('saveItems', { rows }))).toBe(
      '{ Rows: [{ Row: { Id: <temporary Id>, Customer: string } or { Id: integer, TIMESTAMP: integer }, Details: [{ RelationKey: "OrderLines", Rows: [{ Id: <temporary Id>, Qty: integer }] }] }] }',
    )
    expect(bodyText(interaction('saveItems', { rows: [{ table: 'OrderLines', action: 'update', fields: { Qty: 'integer' } }] }))).toBe(
      '{ Rows: [{ Row: { Id: integer, TIMESTAMP: integer }, Details: [{ RelationKey: "OrderLines", Rows: [{ Qty: integer }] }] }] }',
    )
    expect(bodyText(interaction('saveItems', {}))).toBe('{ Rows: [{ Row: { Id: integer, TIMESTAMP: integer }, Details: [] }] }')
  })

  it('writes a delete in its form, and none without one', () => {
    expect(bodyText(interaction('deleteItems', { delete: { form: 'older', tables: [null] } }))).toContain('Details: []')
    expect(bodyText(interaction('deleteItems', {}))).toBeUndefined()
  })

  it('writes a download with the relation key the client sent in the body (empty when it sent none), or without rk when it sent no query', () => {
    const body = { type: 'object', fields: { ids: { type: 'array', items: 'integer' } } }
    expect(bodyText(interaction('downloadAttachment', { body, query: { relationKey: 'OrderLines' } }))).toBe('{ ids: [integer], rk: "OrderLines" }')
    expect(bodyText(interaction('downloadAttachment', { body, query: {} }))).toBe('{ ids: [integer], rk: "" }')
    expect(bodyText(interaction('downloadAttachment', { body }))).toBe('{ ids: [integer] }')
    expect(bodyText(interaction('downloadAttachment', {}))).toBeUndefined()
  })

  it('writes any other body by its shape, and a request without one as its method and path', () => {
    expect(requestText(interaction('runAction', { body: { type: 'object', fields: { actionId: 'guid' } } }), 'post', '/ExplorerApi/api/action/run')).toBe(
      'POST /ExplorerApi/api/action/run { actionId: guid }',
    )
    expect(requestText(interaction('getIdentities', {}), 'get', '/x/{count}')).toBe('GET /x/{count}')
  })
})
