/**
 * How the proxy routes an exchange to an operation (src/commands/proxy/views.ts): by method and path
 * as the mock routes (any letter case, a trailing slash, path parameters decoded), within the
 * release judged and across every release (with the releases that have the operation), the
 * sign-in matchers its main thread reads, and the body alternatives looked up once.
 */
import { describe, expect, it } from 'vitest'
import { alternativesOf, anyReleaseRoute, releaseView, routeOf, signInMatchers } from '../../src/commands/proxy/views.ts'

const IDENTITIES = '/ExplorerApi/api/storage/{storage_id}/identity/{field_name}/next/{count}'

describe('routeOf', () => {
  const view = releaseView('3.0.19')

  it('routes by method and path, in any letter case and with a trailing slash, with the path parameters decoded', () => {
    expect(routeOf(view, 'POST', '/ExplorerApi/api/items')?.route.operationId).toBe('queryItems')
    expect(routeOf(view, 'POST', '/explorerapi/API/Items/')?.route.operationId).toBe('queryItems')
    const routed = routeOf(view, 'GET', '/ExplorerApi/api/storage/Orders%20Table/identity/IdRow/next/3')
    expect(routed?.route).toMatchObject({ operationId: 'getIdentities', path: IDENTITIES, method: 'GET' })
    expect(routed?.params).toEqual({ storage_id: 'Orders Table', field_name: 'IdRow', count: '3' })
  })

  it('keeps a parameter that does not decode as it came', () => {
    expect(routeOf(view, 'GET', '/ExplorerApi/api/storage/100%/identity/IdRow/next/3')?.params.storage_id).toBe('100%')
  })

  it('routes no other method, no longer path, and no operation the release does not have', () => {
    expect(routeOf(view, 'GET', '/ExplorerApi/api/items/save')).toBeUndefined()
    expect(routeOf(view, 'POST', '/ExplorerApi/api/items/extra')).toBeUndefined()
    expect(routeOf(view, 'GET', '/ExplorerApi/api/items')).toBeUndefined()
    expect(routeOf(releaseView('2.9.0'), 'GET', '/ExplorerApi/api/items')?.route.operationId).toBe('queryItemsLegacy')
  })

  it('is built once per release, with a route for each operation the release has in all its documents', () => {
    expect(releaseView('3.0.19')).toBe(view)
    expect(view.routes.map((route) => route.operationId)).toContain('signIn')
    expect(view.routes.map((route) => route.operationId)).not.toContain('signInLegacy')
    expect(view.routes.every((route) => route.checked.operationId === route.operationId && route.strict.operationId === route.operationId)).toBe(true)
  })
})

describe('anyReleaseRoute', () => {
  it('names the operation of any release a request reaches, with the releases that have it', () => {
    expect(anyReleaseRoute('GET', '/ExplorerApi/api/items')).toMatchObject({ operationId: 'queryItemsLegacy', versions: '<3.0.0' })
    expect(anyReleaseRoute('POST', '/identityprovider/acme/connect/token')).toMatchObject({ operationId: 'signIn', versions: '>=3.0.19' })
    expect(anyReleaseRoute('POST', '/ExplorerApi/api/items/save')).toMatchObject({ operationId: 'saveItems', versions: '*' })
  })

  it('needs the method to match as well as the path', () => {
    expect(anyReleaseRoute('GET', '/ExplorerApi/api/items/save')).toBeUndefined()
    expect(anyReleaseRoute('DELETE', '/ExplorerApi/api/items')).toBeUndefined()
    expect(anyReleaseRoute('POST', '/nowhere')).toBeUndefined()
  })
})

describe('signInMatchers', () => {
  it('gives every operation as plain data, the sign-ins with the release their path shows', () => {
    const matchers = signInMatchers()
    const signIns = matchers.filter((matcher) => matcher.release !== null)
    // Each sign-in path with the newest release that shows it (the one without the organization ends at 3.0.18).
    expect(signIns.map((matcher) => matcher.release).sort()).toEqual(['2.9.0', '3.0.18', '3.0.19'])
    const legacy = matchers.find((matcher) => matcher.release === '2.9.0')
    expect(legacy?.method).toBe('POST')
    expect(new RegExp(legacy?.source ?? '', legacy?.flags).test('/intelligenceusermanagementservice/UserManagementService.svc/Token')).toBe(true)
    expect(matchers.filter((matcher) => matcher.release === null).length).toBeGreaterThan(5)
  })
})

describe('alternativesOf', () => {
  it('looks up the alternatives of a pointer once per document, the same list each time', () => {
    const { checked } = releaseView('3.0.19')
    const pointer = '/paths/~1ExplorerApi~1api~1items~1delete/post/requestBody/content/application~1json/schema'
    const first = alternativesOf(checked, pointer)
    expect(alternativesOf(checked, pointer)).toBe(first)
    expect(alternativesOf(releaseView('2.9.0').checked, pointer)).not.toBe(first)
  })
})
