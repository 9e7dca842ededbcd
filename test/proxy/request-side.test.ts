/**
 * The client's side of an exchange held to the document (src/commands/proxy/request-side.ts), as
 * the strict mock holds a request: what the lenient mock refuses is a violation, what it takes with
 * a warning is a warning, each once. Requests of 3.0.19 (and the older GET of 2.9) written here, as
 * a client would send them through the proxy.
 */
import { describe, expect, it } from 'vitest'
import { dedupe, judgeRequest, queryOf } from '../../src/commands/proxy/request-side.ts'
import { releaseView, routeOf } from '../../src/commands/proxy/views.ts'
import type { Observation } from '../../src/commands/proxy/findings.ts'
import { WARNINGS } from '../../src/policy/warnings.ts'
import { IDS } from '../helpers/http.ts'

const HEADERS = {
  'content-type': 'application/json',
  sessiontoken: 'tokentokentokentokentokentokentokentokento',
  applicationid: IDS.applicationId,
  workspaceid: IDS.workspaceId,
}

function judged(release: string, method: string, url: string, body: string | 'too-large', headers: Record<string, string> = HEADERS): Observation[] {
  const view = releaseView(release)
  const routed = routeOf(view, method, url.split('?')[0] as string)
  if (routed === undefined) throw new Error(`${method} ${url} reaches no operation of ${release}`)
  return judgeRequest(routed, view, { method, url, headers, body: body === 'too-large' ? body : Buffer.from(body) }).observations
}
const items = (body: string | 'too-large', headers?: Record<string, string>) => judged('3.0.19', 'POST', '/ExplorerApi/api/items', body, headers)
const said = (observations: readonly Observation[]) => observations.map((o) => `${o.severity} ${o.pointer} ${o.message}`)

describe('the body as the mock reads it', () => {
  it('a valid request gives nothing', () => {
    expect(items(JSON.stringify({ query: '$top=1' }))).toEqual([])
  })

  it('JSON that does not parse is a violation of the body, and the body is not checked further', () => {
    // JSON.parse's own words, which differ between Node's lines.
    expect(said(items('{bad'))).toEqual([expect.stringMatching(/^violation \/body must be JSON, as its Content-Type says \(.*position 1.*\)$/)])
  })

  it('a body of a type the API does not read, or of none given, is a violation of the body and of the Content-Type, with the type as example', () => {
    const plain = items('x', { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' })
    expect(said(plain)).toEqual([
      'violation /body is of type text/plain, which the API does not read',
      'violation /headers/Content-Type must be application/json: queryItems takes no other body',
    ])
    expect(plain[1]?.example).toBe('text/plain')
    expect(said(items('x', { ...HEADERS, 'content-type': '' }))[0]).toBe('violation /body is of type (none given), which the API does not read')
  })

  it('reads a JSON type with a suffix (+json) as JSON', () => {
    expect(said(items('{bad', { ...HEADERS, 'content-type': 'application/problem+json' }))[0]).toMatch(/^violation \/body must be JSON/)
  })

  it('a body past the check limit is not read, its headers still are', () => {
    expect(said(items('too-large', { 'content-type': 'application/json' }))).toEqual([
      "violation /headers/ApplicationId must have required property 'ApplicationId'",
      "violation /headers/SessionToken must have required property 'SessionToken'",
      "violation /headers/WorkspaceId must have required property 'WorkspaceId'",
    ])
  })

  it('a sign-in sent as JSON is taken with a warning: strict mode takes the form only', () => {
    const body = JSON.stringify({ grant_type: 'password', username: 'a@b.c', password: 'p', client_id: 'x', scope: 'openid' })
    const found = judged('3.0.19', 'POST', '/identityprovider/acme/connect/token', body, { 'content-type': 'application/json' })
    expect(found).toEqual([
      {
        side: 'request',
        severity: 'warning',
        pointer: '/headers/Content-Type',
        message: `SIGN_IN_JSON_BODY: ${WARNINGS.SIGN_IN_JSON_BODY} Strict mode takes application/x-www-form-urlencoded only.`,
        example: 'application/json',
      },
    ])
    const form = new URLSearchParams({ grant_type: 'password', username: 'a@b.c', password: 'p', client_id: 'x', scope: 'openid' }).toString()
    expect(judged('3.0.19', 'POST', '/identityprovider/acme/connect/token', form, { 'content-type': 'application/x-www-form-urlencoded' })).toEqual([])
  })
})

describe('violations and warnings of the document', () => {
  it('a wrong value in every row is one violation with * for the rows, its example the first row’s value', () => {
    const save = JSON.stringify({
      Rows: [
        { Row: { Id: 'x', TIMESTAMP: null }, Details: [] },
        { Row: { Id: 'y', TIMESTAMP: null }, Details: [] },
      ],
    })
    expect(judged('3.0.19', 'POST', '/ExplorerApi/api/items/save', save)).toEqual([
      { side: 'request', severity: 'violation', pointer: '/body/Rows/*/Row/Id', message: 'must be integer', example: 'x' },
    ])
  })

  it('a member no schema names is a warning, with its value as example', () => {
    expect(items(JSON.stringify({ query: '$top=1', extra: 1 }))).toEqual([
      { side: 'request', severity: 'warning', pointer: '/body/extra', message: `UNKNOWN_MEMBER: ${WARNINGS.UNKNOWN_MEMBER}`, example: 1 },
    ])
  })

  it('an undeclared URL parameter is a warning, but a violation on the older Get Items, which refuses it', () => {
    expect(said(judged('3.0.19', 'GET', '/ExplorerApi/api/attachments?$filter=ParentId%20eq%201&zzz=1', ''))).toEqual([
      `warning /query/zzz UNKNOWN_PARAMETER: ${WARNINGS.UNKNOWN_PARAMETER}`,
    ])
    expect(said(judged('2.9.0', 'GET', '/ExplorerApi/api/items?$top=1&zzz=1', ''))).toEqual([
      'violation /query/zzz is not one of the URL parameters the older Get Items takes ($top, $skip, $orderby, $filter, $inlinecount)',
    ])
  })

  it('what only strict mode refuses is a warning that says so; a refused request gets no such warning on top', () => {
    const older = JSON.stringify([{ Rows: [{ Row: { Id: 1, TIMESTAMP: 1 }, Details: [] }] }])
    const found = judged('3.0.19', 'POST', '/ExplorerApi/api/items/delete', older)
    expect(found.every((o) => o.severity === 'warning' && o.message.endsWith(': the lenient mock accepts this with a warning, strict mode refuses it'))).toBe(
      true,
    )
    expect(found.map((o) => o.pointer)).toContain('/body/*/RelationKey')
    const wrong = JSON.stringify([{ RelationKey: null, Rows: [{ Row: { Id: 'a', TIMESTAMP: 1 } }] }])
    expect(judged('3.0.19', 'POST', '/ExplorerApi/api/items/delete', wrong)).toEqual([
      { side: 'request', severity: 'violation', pointer: '/body/*/Rows/*/Row/Id', message: 'must be integer', example: 'a' },
    ])
  })

  it('a Get Items query option the description does not list is a warning on the query text', () => {
    expect(said(items(JSON.stringify({ query: '$top=1&$foo=2' })))).toEqual([
      `warning /body/query UNSUPPORTED_QUERY_OPTION: ${WARNINGS.UNSUPPORTED_QUERY_OPTION} The query option '$foo' changed nothing.`,
    ])
    // A query text that does not parse is refused by the check itself, with no warning of its options.
    expect(items(JSON.stringify({ query: 7 })).every((o) => o.severity === 'violation')).toBe(true)
  })
})

describe('the side', () => {
  it('says of every observation that it is the request’s', () => {
    const all = [
      ...items('{bad'),
      ...items('x', { ...HEADERS, 'content-type': 'text/plain' }),
      ...items(JSON.stringify({ query: '$top=1&$foo=2', extra: 1 })),
      ...judged('2.9.0', 'GET', '/ExplorerApi/api/items?$top=1&zzz=1', ''),
      ...judged('3.0.19', 'GET', '/ExplorerApi/api/attachments?zzz=1', ''),
      ...judged('3.0.19', 'POST', '/ExplorerApi/api/items/delete', JSON.stringify([{ Rows: [{ Row: { Id: 1, TIMESTAMP: 1 }, Details: [] }] }])),
    ]
    expect(all.length).toBeGreaterThan(7)
    expect(all.filter((o) => o.side !== 'request')).toEqual([])
  })
})

describe('queryOf and dedupe', () => {
  it('reads the URL query as Node does: a repeated parameter as a list, none as nothing', () => {
    expect(queryOf('/a?x=1&x=2&y=')).toEqual({ x: ['1', '2'], y: '' })
    expect(queryOf('/a')).toEqual({})
    expect(queryOf('/a?')).toEqual({})
  })

  it('keeps one observation per side, severity, pointer and message, the first', () => {
    const a: Observation = { side: 'request', severity: 'violation', pointer: '/p', message: 'm', example: 1 }
    const kept = dedupe([a, { ...a, example: 2 }, { ...a, severity: 'warning' }, { ...a, side: 'answer' }, { ...a, pointer: '/q' }, { ...a, message: 'n' }])
    expect(kept.map((o) => `${o.side} ${o.severity} ${o.pointer} ${o.message} ${String(o.example)}`)).toEqual([
      'request violation /p m 1',
      'request warning /p m 1',
      'answer violation /p m 1',
      'request violation /q m 1',
      'request violation /p n 1',
    ])
  })
})
