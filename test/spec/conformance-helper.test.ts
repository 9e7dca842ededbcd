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

  it('rejects the other release\'s spelling, a missing member, an undocumented status and media type', () => {
    expect(save('3.0.19', result('IsSaveSuccesfully')).length).toBeGreaterThan(0)
    expect(save('2.9.0', result('IsSaveSuccessfully')).length).toBeGreaterThan(0)
    const { ReturnStates: _dropped, ...partial } = result('IsSaveSuccessfully')
    expect(save('3.0.19', partial).join()).toContain('ReturnStates')
    expect(save('3.0.19', result('IsSaveSuccessfully'), 418).join()).toContain('418')
    expect(conformanceProblems('3.0.19', { method: 'POST', path: '/ExplorerApi/api/items/save', status: 200, contentType: 'text/html', body: '' }).length).toBeGreaterThan(0)
  })

  it('rejects an operation the release does not have', () => {
    expect(conformanceProblems('3.0.19', { method: 'GET', path: '/ExplorerApi/api/items', status: 200, contentType: 'application/json', body: [] }).length).toBeGreaterThan(0)
  })
})
