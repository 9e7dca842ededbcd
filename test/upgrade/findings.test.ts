/**
 * upgrade's findings as a team reads them (src/commands/upgrade/findings.ts): one finding per change
 * however many recorded shapes meet it, the message of each kind in the client's terms with what
 * the target's document says, breaking findings first, and the ignore file's entries setting some
 * apart with their reason. The changes are written here as compare.ts makes them; test/upgrade/
 * upgrade.test.ts drives the same findings from a recorded client through the command line.
 */
import { describe, expect, it } from 'vitest'
import type { Change } from '../../src/commands/upgrade/compare.ts'
import { strictReleaseDocument } from '../../src/commands/upgrade/documents.ts'
import { applyIgnore, findingsOf } from '../../src/commands/upgrade/findings.ts'
import type { Finding, FindingSide } from '../../src/commands/upgrade/types.ts'

const FROM = strictReleaseDocument('2.9')
const TO = strictReleaseDocument('3.0.19')

function change(kind: Change['kind'], fields: Partial<Change> & { now?: FindingSide; then?: FindingSide } = {}): Change {
  return {
    kind,
    operationId: 'queryItems',
    key: kind,
    breaks: true,
    index: 0,
    title: 'Get Items on master rows',
    why: '405 GET_ITEMS_METHOD',
    now: {},
    then: {},
    ...fields,
  }
}

/** The one finding of these changes. */
function only(...changes: Change[]): Finding {
  const found = findingsOf(changes, FROM, TO)
  expect(found).toHaveLength(1)
  return found[0] as Finding
}

const SIGN_IN = {
  operationId: 'signInWithoutOrganization',
  key: 'signInWithoutOrganization>signIn',
  title: 'Sign in (without the organization segment)',
  why: '404 NOT_FOUND',
}

describe('the message of each kind of finding', () => {
  it('path-moved: the segment the path gains with what the document says of it, the form, what to send and where the token goes', () => {
    const moved = (index: number) =>
      change('path-moved', {
        ...SIGN_IN,
        index,
        now: {
          method: 'POST',
          path: '/identityprovider/connect/token',
          contentType: 'application/x-www-form-urlencoded',
          token: { member: 'SessionToken', headers: [] },
        },
        then: {
          method: 'POST',
          path: '/identityprovider/{organizationphysicalname}/connect/token',
          contentType: 'application/x-www-form-urlencoded',
          body: '{ grant_type: string }',
          send: { client_id: '"appdataapiv1"', scope: 'string|null' },
          token: {
            member: 'access_token',
            headers: [
              { header: 'SessionToken', operationIds: ['queryItems'] },
              { header: 'Authorization: Bearer', operationIds: ['sendEmail', 'runAction'] },
            ],
          },
        },
      })
    const finding = only(moved(0), moved(3), moved(3))
    expect(finding).toMatchObject({ kind: 'path-moved', operationId: 'signInWithoutOrganization', breaks: true, shapes: 2 })
    expect(finding.message).toBe(
      'Sign in (signInWithoutOrganization) moved: 3.0.19 does not serve POST /identityprovider/connect/token (404 NOT_FOUND); ' +
        'it takes POST /identityprovider/{organizationphysicalname}/connect/token: the path gains {organizationphysicalname} ' +
        '(physical name of the organization, as shown on its information tab in the product), with a form body { grant_type: string }. ' +
        'Send client_id "appdataapiv1" and scope (string|null). ' +
        "The token is the answer's access_token (not SessionToken): send it in the SessionToken header (queryItems) and as Authorization: Bearer <token> (sendEmail, runAction). " +
        '2 recorded shapes use it.',
    )
  })

  it('path-moved: a segment lost, a JSON body that was a form, the token member unchanged; no delta when the paths share little, and no dangling comma without a body', () => {
    const lost = only(
      change('path-moved', {
        ...SIGN_IN,
        title: 'Sign in',
        now: {
          method: 'POST',
          path: '/identityprovider/{organizationphysicalname}/connect/token',
          contentType: 'application/x-www-form-urlencoded',
          token: { member: 'access_token', headers: [] },
        },
        then: {
          method: 'POST',
          path: '/identityprovider/connect/token',
          contentType: 'application/json',
          token: { member: 'access_token', headers: [{ header: 'SessionToken', operationIds: ['queryItems'] }] },
        },
      }),
    )
    expect(lost.message).toBe(
      'Sign in (signInWithoutOrganization) moved: 3.0.19 does not serve POST /identityprovider/{organizationphysicalname}/connect/token (404 NOT_FOUND); ' +
        'it takes POST /identityprovider/connect/token: loses {organizationphysicalname}, with a JSON body (instead of form). ' +
        "The token is the answer's access_token: send it in the SessionToken header (queryItems). 1 recorded shape uses it.",
    )
    const token = { headers: [{ header: 'SessionToken', operationIds: ['queryItems'] }] }
    const elsewhere = only(change('path-moved', { now: { method: 'GET', path: '/a/b/c' }, then: { method: 'GET', path: '/x/y/z', token } }))
    expect(elsewhere.message).toBe(
      'Get Items on master rows (queryItems) moved: 3.0.19 does not serve GET /a/b/c (405 GET_ITEMS_METHOD); it takes GET /x/y/z. Send the token in the SessionToken header (queryItems). 1 recorded shape uses it.',
    )
    // A sign-in whose token no recorded operation sends: where it is, and nothing about headers.
    const unsent = only(
      change('path-moved', {
        now: { method: 'POST', path: '/a/b/c' },
        then: { method: 'POST', path: '/a/b/d', token: { member: 'access_token', headers: [] } },
      }),
    )
    expect(unsent.message).toBe(
      "Get Items on master rows (queryItems) moved: 3.0.19 does not serve POST /a/b/c (405 GET_ITEMS_METHOD); it takes POST /a/b/d: the path gains d and loses c. The token is the answer's access_token. 1 recorded shape uses it.",
    )
    expect(only(change('path-moved', { now: { path: '/a' }, then: { path: '/b', token: { headers: [] } } })).message).toBe(
      'Get Items on master rows (queryItems) moved: 3.0.19 does not serve /a (405 GET_ITEMS_METHOD); it takes /b. 1 recorded shape uses it.',
    )
  })

  it('variant-gone: with what takes its place, and with nothing in its place', () => {
    const replaced = only(
      change('variant-gone', {
        operationId: 'queryItemsLegacy',
        now: { method: 'GET', path: '/ExplorerApi/api/items' },
        then: { method: 'POST', path: '/ExplorerApi/api/items', contentType: 'application/json', body: '{ query: string }', answer: 'the rows, as before' },
      }),
    )
    expect(replaced.message).toBe(
      'GET /ExplorerApi/api/items (queryItemsLegacy) is gone in 3.0.19 (405 GET_ITEMS_METHOD); send POST /ExplorerApi/api/items with a JSON body { query: string }. It answers the rows, as before. 1 recorded shape uses it.',
    )
    const nothing = only(change('variant-gone', { operationId: 'signInLegacy', why: '404', now: { method: 'POST', path: '/legacy' } }))
    expect(nothing.message).toBe(
      '3.0.19 no longer has signInLegacy (POST /legacy: 404), and its document names nothing in its place. 1 recorded shape uses it.',
    )
  })

  it('request-refused: a header to send on every call, a body it takes, or neither', () => {
    const header = (index: number) => change('request-refused', { operationId: 'saveItems', why: '400 MISSING_HEADER', index, then: { header: 'WorkspaceId' } })
    expect(only(header(0), header(1), header(2)).message).toBe(
      '3.0.19 refuses saveItems without the header WorkspaceId (400 MISSING_HEADER); send it on every call. 3 recorded shapes leave it out.',
    )
    expect(only(header(5)).message).toBe(
      '3.0.19 refuses saveItems without the header WorkspaceId (400 MISSING_HEADER); send it on every call. 1 recorded shape leaves it out.',
    )
    const body = only(change('request-refused', { why: '400 BAD_REQUEST', then: { body: '{ query: string }', send: { relationKey: 'string|null' } } }))
    expect(body.message).toBe(
      '3.0.19 refuses queryItems as the client sends it (400 BAD_REQUEST); it takes { query: string }. Send relationKey (string|null). 1 recorded shape meets it.',
    )
    const bare = only(change('request-refused', { why: '400 BAD_REQUEST', index: 1 }), change('request-refused', { why: '400 BAD_REQUEST', index: 2 }))
    expect(bare.message).toBe('3.0.19 refuses queryItems as the client sends it (400 BAD_REQUEST). 2 recorded shapes meet it.')
  })

  it('request-tolerated: taken with a warning, with the body to send, and without one', () => {
    const tolerated = only(
      change('request-tolerated', {
        operationId: 'deleteItems',
        why: 'LEGACY_DELETE_BODY',
        breaks: false,
        then: { body: '[{ RelationKey, Rows }]', send: { RelationKey: 'null' } },
      }),
    )
    expect(tolerated.message).toBe(
      "3.0.19 takes the client's deleteItems only with a warning (LEGACY_DELETE_BODY); a stricter installation may refuse it: send [{ RelationKey, Rows }]. Send RelationKey null. 1 recorded shape meets it.",
    )
    expect(tolerated.breaks).toBe(false)
    expect(only(change('request-tolerated', { why: 'W', breaks: false })).message).toBe(
      "3.0.19 takes the client's queryItems only with a warning (W); a stricter installation may refuse it. 1 recorded shape meets it.",
    )
  })

  it('answer members: one finding for a member met in the answers of several operations, naming them all', () => {
    const flag = (operationId: string, index: number) =>
      change('answer-renamed', {
        operationId,
        index,
        key: 'IsSaveSuccesfully',
        now: { member: 'IsSaveSuccesfully', type: 'boolean' },
        then: { member: 'IsSaveSuccessfully', type: 'boolean' },
      })
    const renamed = only(flag('saveItems', 0), flag('deleteItems', 1), flag('saveItems', 2))
    expect(renamed.operationId).toEqual(['saveItems', 'deleteItems'])
    expect(renamed.message).toBe(
      "IsSaveSuccesfully is named IsSaveSuccessfully in 3.0.19's answers of saveItems and deleteItems: the client reads IsSaveSuccesfully (boolean). 3 recorded shapes receive it.",
    )
    const removed = only(change('answer-removed', { now: { member: '[].Customer', type: 'string' } }))
    expect(removed.message).toBe(
      "3.0.19's answers of queryItems no longer carry [].Customer, which the client receives (string). 1 recorded shape receives it.",
    )
    const retyped = only(change('answer-retyped', { now: { member: '[].Amount', type: 'number' }, then: { type: 'string' } }))
    expect(retyped.message).toBe("[].Amount is string in 3.0.19's answers of queryItems; the client receives number. 1 recorded shape receives it.")
  })

  it('status-changed: a status that breaks the client, and one it handles', () => {
    expect(only(change('status-changed', { why: '409 where the client met 200' })).message).toBe(
      '3.0.19 answers queryItems otherwise (409 where the client met 200). 1 recorded shape meets it.',
    )
    expect(only(change('status-changed', { breaks: false, why: '3.0.19 no longer lists 404' })).message).toBe(
      '3.0.19 no longer lists 404; the client handles that status. 1 recorded shape meets it.',
    )
  })

  it('unreplayable: on the target, and on the recorded release itself (another fixture, or another release)', () => {
    expect(only(change('unreplayable', { onTarget: true, why: 'no row to update' })).message).toBe(
      '1 recorded shape of queryItems could not be replayed on 3.0.19 (no row to update); nothing is said of it.',
    )
    expect(only(change('unreplayable', { onTarget: true, why: 'x', index: 1 }), change('unreplayable', { onTarget: true, why: 'x', index: 2 })).message).toBe(
      '2 recorded shapes of queryItems could not be replayed on 3.0.19 (x); nothing is said of them.',
    )
    expect(only(change('unreplayable', { why: '404 NOT_FOUND' })).message).toBe(
      '2.9 itself does not serve 1 recorded shape of queryItems as the client saw it (404 NOT_FOUND): was the usage recorded with another fixture, or on another release? Give that one with --fixture (or --from). Nothing is said of it.',
    )
    expect(only(change('unreplayable', { why: 'y', index: 1 }), change('unreplayable', { why: 'y', index: 4 })).message).toBe(
      '2.9 itself does not serve 2 recorded shapes of queryItems as the client saw them (y): was the usage recorded with another fixture, or on another release? Give that one with --fixture (or --from). Nothing is said of them.',
    )
  })
})

describe('the words of a message', () => {
  const twice = (kind: Change['kind'], fields: Partial<Change> = {}) =>
    only(change(kind, { ...fields, index: 1 }), change(kind, { ...fields, index: 2 })).message

  it('counts the shapes in the plural, with the verb to match, for every kind', () => {
    expect(twice('variant-gone', { now: { method: 'GET', path: '/x' } })).toMatch(/\. 2 recorded shapes use it\.$/)
    expect(twice('variant-gone', { now: { method: 'GET', path: '/x' }, then: { method: 'POST', path: '/x' } })).toMatch(/\. 2 recorded shapes use it\.$/)
    expect(twice('request-refused', { then: { body: '{}' } })).toMatch(/\. 2 recorded shapes meet it\.$/)
    expect(twice('request-tolerated')).toMatch(/\. 2 recorded shapes meet it\.$/)
    expect(twice('answer-renamed', { now: { member: 'A' }, then: { member: 'B' } })).toMatch(/\. 2 recorded shapes receive it\.$/)
    expect(twice('answer-removed', { now: { member: 'A' } })).toMatch(/\. 2 recorded shapes receive it\.$/)
    expect(twice('answer-retyped', { now: { member: 'A' } })).toMatch(/\. 2 recorded shapes receive it\.$/)
    expect(twice('status-changed')).toMatch(/\. 2 recorded shapes meet it\.$/)
    expect(twice('status-changed', { breaks: false })).toMatch(/\. 2 recorded shapes meet it\.$/)
  })

  it('names a media type other than JSON and form as it is, and lists three members as "a, b and c"', () => {
    const message = only(
      change('variant-gone', {
        now: { method: 'GET', path: '/x', contentType: 'application/json' },
        then: { method: 'POST', path: '/x', contentType: 'text/plain', send: { a: '1', b: 'true', c: '[1]' } },
      }),
    ).message
    expect(message).toContain('send POST /x with a text/plain body (instead of JSON). Send a 1, b true and c [1].')
  })

  it('names the segments a path gains and loses while it keeps at least half of them (and two)', () => {
    const moved = (now: string, then: string) => only(change('path-moved', { now: { path: now }, then: { path: then } })).message
    // ['', a, b, c] keeps '' and a: two of four, as many as it must.
    expect(moved('/a/x', '/a/b/c')).toContain('it takes /a/b/c: the path gains b and c and loses x.')
    // ['', a, b, c, d] keeps '' and a: two of five, fewer than half.
    expect(moved('/a/x', '/a/b/c/d')).toContain('it takes /a/b/c/d. 1 recorded')
  })
})

describe('the findings of a usage', () => {
  it('keeps the first change as the example, after its interaction (and the interaction alone when it has none)', () => {
    expect(only(change('status-changed', { now: { example: '{"query":"$top=<integer>"}' } })).now.example).toBe(
      'Get Items on master rows: {"query":"$top=<integer>"}',
    )
    expect(only(change('status-changed')).now.example).toBe('Get Items on master rows')
  })

  it('keeps changes of one kind apart by operation and cause, answer members by member alone', () => {
    const found = findingsOf(
      [
        change('request-refused', { key: 'a' }),
        change('request-refused', { key: 'b' }),
        change('request-refused', { key: 'a', operationId: 'saveItems' }),
        change('answer-removed', { key: 'm', operationId: 'saveItems', now: { member: 'M', type: 'string' } }),
        change('answer-removed', { key: 'm', operationId: 'deleteItems', now: { member: 'M', type: 'string' } }),
      ],
      FROM,
      TO,
    )
    expect(found.map((finding) => [finding.kind, finding.operationId])).toEqual([
      ['request-refused', 'queryItems'],
      ['request-refused', 'queryItems'],
      ['request-refused', 'saveItems'],
      ['answer-removed', ['saveItems', 'deleteItems']],
    ])
  })

  it('puts breaking findings first, then by kind in the order of FINDING_KINDS, then those more shapes meet first', () => {
    const found = findingsOf(
      [
        change('status-changed', { key: 's', breaks: false }),
        change('answer-removed', { key: 'one', now: { member: 'A' } }),
        change('unreplayable', { key: 'u' }),
        change('answer-removed', { key: 'two', index: 1, now: { member: 'B' } }),
        change('answer-removed', { key: 'two', index: 2, now: { member: 'B' } }),
        change('path-moved', { key: 'p', now: { path: '/a' }, then: { path: '/b' } }),
        change('request-tolerated', { key: 't', breaks: false }),
      ],
      FROM,
      TO,
    )
    expect(found.map((finding) => `${finding.kind}${finding.breaks ? '' : ' (warning)'} ${finding.shapes}`)).toEqual([
      'path-moved 1',
      'answer-removed 2',
      'answer-removed 1',
      'unreplayable 1',
      'request-tolerated (warning) 1',
      'status-changed (warning) 1',
    ])
  })

  it('breaks when any of its changes breaks', () => {
    expect(only(change('status-changed', { breaks: false }), change('status-changed', { index: 1 })).breaks).toBe(true)
  })
})

describe('applyIgnore', () => {
  const findings = findingsOf(
    [
      change('variant-gone', { operationId: 'queryItemsLegacy', now: { method: 'GET', path: '/x' } }),
      change('answer-renamed', { key: 'f', operationId: 'saveItems', now: { member: 'F' }, then: { member: 'G' } }),
      change('answer-renamed', { key: 'f', operationId: 'deleteItems', index: 1, now: { member: 'F' }, then: { member: 'G' } }),
    ],
    FROM,
    TO,
  )

  it('sets apart what an entry accepts, with the first accepting entry’s reason, and keeps the rest in order', () => {
    const { findings: kept, ignored } = applyIgnore(findings, [
      { operationId: 'deleteItems', reason: 'we read both spellings' },
      { kind: 'answer-renamed', reason: 'second' },
    ])
    expect(kept.map((finding) => finding.kind)).toEqual(['variant-gone'])
    expect(ignored).toHaveLength(1)
    expect(ignored[0]).toMatchObject({ kind: 'answer-renamed', operationId: ['saveItems', 'deleteItems'], reason: 'we read both spellings' })
  })

  it('gives no reason when the entry gives none, and keeps everything when no entry accepts', () => {
    const { ignored } = applyIgnore(findings, [{ kind: 'variant-gone' }])
    expect(ignored).toHaveLength(1)
    expect('reason' in (ignored[0] as object)).toBe(false)
    expect(applyIgnore(findings, [{ kind: 'status-changed' }])).toEqual({ findings, ignored: [] })
  })
})
