/**
 * The mistakes a client author makes first get an answer that names the fix, not only the rule:
 * each case below sends the mistake over HTTP and reads the problem's text (`detail`, `hint`).
 */
import { describe, expect, it } from 'vitest'
import { IDS, mockPerSuite } from '../helpers/http.ts'

describe('errors that teach', () => {
  const ctx = mockPerSuite()
  const firstRow = async () => (await ctx.mock.items(ctx.token, '$top=1&$orderby=Id asc')).body[0] as { Id: number; TIMESTAMP: string }

  it('a TIMESTAMP sent back as read is told the number to send (save)', async () => {
    const row = await firstRow()
    const reply = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [{ Row: { Id: row.Id, TIMESTAMP: row.TIMESTAMP, Status: 'x' }, Details: [] }],
    })
    expect(reply.status).toBe(400)
    const version = Buffer.from(row.TIMESTAMP, 'base64').readBigUInt64BE(0)
    expect(reply.body.hint).toBe(
      `TIMESTAMP is read as base64 text of the row version (an 8-byte big-endian integer) and sent back as that integer: send ${version}, the number "${row.TIMESTAMP}" encodes at /Rows/0/Row/TIMESTAMP.`,
    )
  })

  it("the same mistake in a delete names only the current body's violation, with the same hint", async () => {
    const row = await firstRow()
    const reply = await ctx.mock.post('/ExplorerApi/api/items/delete', ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: row.Id, TIMESTAMP: row.TIMESTAMP } }] },
    ])
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([{ pointer: '/body/0/Rows/0/Row/TIMESTAMP', keyword: 'type', message: 'must be integer,null' }])
    expect(reply.body.detail).toBe('/body/0/Rows/0/Row/TIMESTAMP must be integer,null')
    expect(reply.body.hint).toMatch(/^TIMESTAMP is read as base64 text .* send \d+, the number/)
  })

  it('a body that is not JSON says where it stops being JSON', async () => {
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
      body: '{\n  "query": "$top=1",\n}',
    })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('BAD_JSON')
    expect(reply.body.position).toBe(23)
    // The project's words, the same on every Node line (the runtime's own message changed between lines).
    expect(reply.body.detail).toBe("The body is not valid JSON: '}' where a member name in double quotes was expected (line 3, column 1).")
  })

  it('a body without Content-Type is told the type to send', async () => {
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', { headers: ctx.mock.dataHeaders(ctx.token), body: '{"query":"$top=1"}' })
    expect(reply.status).toBe(400)
    expect(reply.body.detail).toBe('The request has a body but no Content-Type.')
    expect(reply.body.hint).toBe('Send the body with Content-Type: application/json.')
    const signIn = await ctx.mock.request('POST', '/identityprovider/acme/connect/token', {
      headers: { 'content-type': 'application/xml' },
      body: '<username>a</username>',
    })
    expect(signIn.body.hint).toBe('Send the body with Content-Type: application/x-www-form-urlencoded.')
  })

  it('a form sent to an operation that takes JSON is refused and told the type to send, in both modes', async () => {
    for (const strict of ['0', '1']) {
      const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
        headers: { ...ctx.mock.dataHeaders(ctx.token), 'x-mock-strict': strict },
        form: { query: '$top=1' },
      })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({
        code: 'BAD_BODY',
        detail: 'A body of type "application/x-www-form-urlencoded" is not read here.',
        hint: 'Send the body with Content-Type: application/json.',
      })
    }
  })

  it('a sign-in sent as JSON is told to send a form', async () => {
    const reply = await ctx.mock.request('POST', '/identityprovider/acme/connect/token', {
      json: { client_id: IDS.clientId, username: IDS.admin.username, password: IDS.admin.password, grant_type: 'password' },
    })
    expect(reply.status).toBe(400)
    expect(reply.body.hint).toBe(
      'Sign-in takes a form, not JSON: send Content-Type: application/x-www-form-urlencoded with client_id, username, password, grant_type=password and scope.',
    )
  })

  it('a row link with a relation key names the constant and says detail rows have no links', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, { relationKey: IDS.relationKey, values: 1, valueType: 1 })
    expect(reply.status).toBe(400)
    expect(reply.body.detail).toBe('/body/relationKey must be null')
    expect(reply.body.hint).toBe("Only master rows have row links (detail rows have no direct link): send relationKey null and the master rows' Ids in values.")
  })

  it('an old DomainId header is told of the rename', async () => {
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      headers: { ApplicationId: IDS.applicationId, SessionToken: ctx.token, DomainId: IDS.workspaceId },
      json: { query: '$top=1' },
    })
    expect(reply.status).toBe(400)
    expect(reply.body.hint).toBe(
      'Release 3.0 renamed the Domain Id to Workspace Id: send the Workspace Id in the WorkspaceId header (a Domain Id from before 3.0 is not valid).',
    )
  })

  it('"Bearer " in SessionToken is told to send the token alone', async () => {
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', { headers: ctx.mock.dataHeaders(`Bearer ${ctx.token}`), json: { query: '$top=1' } })
    expect(reply.status).toBe(401)
    expect(reply.body.code).toBe('UNKNOWN_TOKEN')
    expect(reply.body.hint).toBe(
      'Send the access_token alone in the SessionToken header, without "Bearer " (Authorization: Bearer is for the e-mail operation only).',
    )
  })

  it('a 30-digit $top is told the bound and how to read every row', async () => {
    const reply = await ctx.mock.items(ctx.token, `$top=${'1'.repeat(30)}`)
    expect(reply.status).toBe(400)
    expect(reply.body.detail).toBe('$top must be a whole number up to 9007199254740991, got a number of 30 digits; leave $top out to read every row')
  })
})
