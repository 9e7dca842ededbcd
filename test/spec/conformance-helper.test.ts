import { describe, expect, it } from 'vitest'
import { conformanceProblems } from '../../contracts/conformance.ts'

// The helper that checks every reply of the HTTP tests must itself be able to fail.
const result = (flag: string) => ({
  [flag]: true,
  ReturnStates: [],
  ReturnData: { PrimaryKeyData: {} },
  MasterToRecalculate: [],
  CreatedItems: 0,
  UpdatedItems: 1,
  DeletedItems: 0,
  LockedItems: 0,
  MasterRowLink: null,
  RowIdentifier: 'IdRow',
  StorageName: 'Orders',
  SavedItems: null,
})
const save = (version: string, body: unknown, status = 200) =>
  conformanceProblems(version, { method: 'POST', path: '/ExplorerApi/api/items/save', status, contentType: 'application/json; charset=utf-8', body })

describe('conformance helper', () => {
  it('accepts a documented result in the spelling of its release', () => {
    expect(save('3.0.19', result('IsSaveSuccessfully'))).toEqual([])
    expect(save('2.9.0', result('IsSaveSuccesfully'))).toEqual([])
  })

  it("rejects the other release's spelling, a missing member, an undocumented status and media type", () => {
    expect(save('3.0.19', result('IsSaveSuccesfully')).length).toBeGreaterThan(0)
    expect(save('2.9.0', result('IsSaveSuccessfully')).length).toBeGreaterThan(0)
    const { ReturnStates: _dropped, ...partial } = result('IsSaveSuccessfully')
    expect(save('3.0.19', partial).join()).toContain('ReturnStates')
    expect(save('3.0.19', result('IsSaveSuccessfully'), 418).join()).toContain('418')
    expect(
      conformanceProblems('3.0.19', { method: 'POST', path: '/ExplorerApi/api/items/save', status: 200, contentType: 'text/html', body: '' }).length,
    ).toBeGreaterThan(0)
  })

  it("holds a real installation only to the description: the mock's own choices are set aside", () => {
    const row = {
      Id: 1,
      TIMESTAMP: 'AAAAAAAAAAE=',
      CT_ATTACHMENTS: null,
      DT_CREATION: 20240101000000,
      DT_LAST_UPDATE: null,
      ROW_ORDER: 1,
      USER_ID_CREATION: 1,
      USER_ID_LAST_UPDATE: 1,
    }
    // Formats the description leaves open: dates as ISO text, a marker as text, a row version of other length.
    const installation = { ...row, DT_CREATION: '2024-01-01T00:00:00Z', CT_ATTACHMENTS: 'yes', TIMESTAMP: 'AAE=' }
    const rows = (body: unknown, holdTo?: 'mock' | 'description') =>
      conformanceProblems('3.0.19', { method: 'POST', path: '/ExplorerApi/api/items', status: 200, contentType: 'application/json', body }, holdTo)
    expect(rows([row])).toEqual([])
    expect(rows([installation]).length).toBeGreaterThanOrEqual(3)
    expect(rows([installation], 'description')).toEqual([])
    // What the description says still holds: Id is an integer, TIMESTAMP is text.
    expect(rows([{ ...installation, Id: '1' }], 'description').join()).toContain('/0/Id')
    expect(rows([{ ...installation, TIMESTAMP: 5 }], 'description').join()).toContain('/0/TIMESTAMP')
    // An error answer is never held to the mock's problem bodies.
    expect(
      conformanceProblems(
        '3.0.19',
        { method: 'POST', path: '/ExplorerApi/api/items', status: 401, contentType: 'text/html', body: '<h1>401</h1>' },
        'description',
      ),
    ).toEqual([])
  })

  it('rejects an operation the release does not have', () => {
    expect(
      conformanceProblems('3.0.19', { method: 'GET', path: '/ExplorerApi/api/items', status: 200, contentType: 'application/json', body: [] }).length,
    ).toBeGreaterThan(0)
  })
})
