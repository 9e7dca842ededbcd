/**
 * What a replay fills into the recorded shapes from the fixture (src/commands/upgrade/replay-ids.ts):
 * the field names a usage uses, the application whose fields it names most, a user who may write and
 * open its workspace, and the fixture's own action, provider, attachments and template rows.
 */
import { describe, expect, it } from 'vitest'
import { replayIds, usedFields } from '../../src/commands/upgrade/replay-ids.ts'
import { DEFAULTS } from '../../src/mock/config.ts'
import { prepareFixture } from '../../src/mock/mock.ts'
import type { Interaction, UsageFile } from '../../src/usage-file/file.ts'
import type { RequestShape } from '../../src/usage-file/request-shape.ts'
import type { Fixture } from '../../src/store/model/types.ts'

const ORDERS = 'a1b2c3d4-0000-4000-8000-000000000001'
const SUPPLIERS = 'a1b2c3d4-0000-4000-8000-000000000002'
const SHIPMENTS = 'a1b2c3d4-0000-4000-8000-000000000003'

const interaction = (operation: string, request: Partial<RequestShape>, answers: Interaction['answers'] = { 200: { count: 1 } }): Interaction => ({
  operation,
  release: '3.0.19',
  request: { auth: 'session-token', headers: [], ...request },
  count: 1,
  answers,
})
const usage = (...interactions: Interaction[]): UsageFile => ({ interactions }) as unknown as UsageFile
const fixture = (): Fixture => structuredClone(prepareFixture({ ...DEFAULTS }))

describe('usedFields', () => {
  it('gathers the fields of filters, orders, saved rows and rows received, system fields left out', () => {
    const names = usedFields(
      usage(
        interaction(
          'queryItems',
          { query: { filter: 'Status eq <string> and Amount gt <number>', orderBy: 'Customer desc, Id asc' } },
          {
            200: { count: 1, body: { type: 'array', items: { type: 'object', fields: { Id: 'integer', TIMESTAMP: 'string', Reference: 'string' } } } },
          },
        ),
        interaction(
          'queryItemsLegacy',
          { query: { filter: 'Status eq <string>', orderBy: ' ' } },
          {
            200: { count: 1, body: { type: 'array', items: 'string' } },
          },
        ),
        interaction('saveItems', { rows: [{ table: null, action: 'create', fields: { Id: 'temporary', Rating: 'integer' } }] }),
        interaction(
          'listAttachments',
          { query: { filter: 'ParentId eq <integer>' } },
          { 200: { count: 1, body: { type: 'array', items: { type: 'object', fields: { Ignored: 'x' } } } } },
        ),
        interaction('queryItems', { query: { filter: 'not a filter ((' } }),
      ),
    )
    expect([...names].sort()).toEqual(['Amount', 'Customer', 'ParentId', 'Rating', 'Reference', 'Status'])
  })
})

describe('replayIds', () => {
  it('takes the application whose fields the usage names most, with its workspace and a user who may write', () => {
    const ids = replayIds(
      fixture(),
      usage(interaction('saveItems', { rows: [{ table: null, action: 'create', fields: { Name: 'string', Country: 'string' } }] })),
    )
    expect(ids?.application.id).toBe(SUPPLIERS)
    expect(ids?.workspaceId).toBe('6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b71')
    expect(ids?.user).toEqual({ email: 'admin@acme.test', password: 'admin-pass' })
    expect(ids).toMatchObject({ organization: 'acme', clientId: 'appdataapiv1', legacyClientId: 'appdata-legacy' })
    // No action of its own, no attachment.
    expect(ids?.action).toBeUndefined()
    expect(ids?.attachments).toEqual([])
    expect(ids?.providerId).toBe('e0000000-0000-4000-8000-000000000001')
  })

  it('counts identity fields and detail links as the application’s, and takes the first on a tie', () => {
    const orders = replayIds(fixture(), usage(interaction('queryItems', { query: { filter: 'MasterId eq <integer>', relationKey: 'OrderLines' } })))
    expect(orders?.application.id).toBe(ORDERS)
    expect(orders?.action).toEqual({ id: 'c0ffee00-0000-4000-8000-000000000001', procedureName: 'usp_RecalculateTotals' })
    expect(orders?.attachments.length).toBeGreaterThan(0)
    expect(orders?.templates.OrderLines).toBeDefined()
    expect(orders?.templates['']?.Customer).toBeDefined()
    expect(replayIds(fixture(), usage())?.application.id).toBe(ORDERS)
    expect(replayIds(fixture(), usage(interaction('queryItems', { query: { filter: 'Reference eq <string>' } })))?.application.id).toBe(SHIPMENTS)
  })

  it('takes a user of the workspace who may write over one who may not, and the first when none may', () => {
    const none = fixture()
    for (const user of none.organization.users) user.canWrite = false
    expect(replayIds(none, usage())?.user.email).toBe('admin@acme.test')
    const later = fixture()
    later.organization.users.reverse()
    expect(replayIds(later, usage())?.user.email).toBe('admin@acme.test')
  })

  it('takes an action meant for any application, the default provider (else the first), and none when there is none', () => {
    const any = fixture()
    any.actions = [{ ...any.actions[0]!, id: 'for-all', applicationId: undefined } as never, ...any.actions]
    expect(replayIds(any, usage())?.action?.id).toBe('for-all')
    const providers = fixture()
    providers.emailProviders = [
      { ...providers.emailProviders[0]!, id: 'first', isDefault: false },
      { ...providers.emailProviders[0]!, id: 'default', isDefault: true },
    ]
    expect(replayIds(providers, usage())?.providerId).toBe('default')
    providers.emailProviders = [{ ...providers.emailProviders[0]!, id: 'only', isDefault: false }]
    expect(replayIds(providers, usage())?.providerId).toBe('only')
    providers.emailProviders = []
    providers.actions = []
    const bare = replayIds(providers, usage())
    expect(bare !== undefined && 'providerId' in bare).toBe(false)
    expect(bare !== undefined && 'action' in bare).toBe(false)
  })

  it('is undefined without an application in a workspace, or without a user of its workspace', () => {
    const orphan = fixture()
    for (const workspace of orphan.organization.workspaces) workspace.applicationIds = []
    expect(replayIds(orphan, usage())).toBeUndefined()
    const nobody = fixture()
    nobody.organization.users = []
    expect(replayIds(nobody, usage())).toBeUndefined()
  })
})
