import { describe, expect, it } from 'vitest'
import { IDS, mockPerSuite } from '../helpers/http.ts'
import { apiDocument } from '../../src/document/reader.ts'

describe('Run Action', () => {
  const ctx = mockPerSuite()

  const run = (actionId: string, parametersMap: unknown[], as = ctx.token) => ctx.mock.post('/ExplorerApi/api/action/run', as, { actionId, parametersMap })

  it('runs an action whose effect a re-read shows', async () => {
    const before = (await ctx.mock.items(ctx.token, '$filter=Id eq 3 or Id eq 4')).body
    const reply = await run(IDS.actionOk, [
      { Name: 'ProcedureName', Value: 'usp_RecalculateTotals' },
      { Name: 'Parameters', Value: [{ key: 'Ids', value: '3,4' }] },
    ])
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ IsSuccessful: true, IsAsync: false })
    expect(typeof reply.body.Message).toBe('string')
    const after = (await ctx.mock.items(ctx.token, '$filter=Id eq 3 or Id eq 4&$orderby=Id asc')).body
    expect(after.map((r: { Status: string }) => r.Status)).toEqual(['Recalculated', 'Recalculated'])
    expect(after[0].TIMESTAMP).not.toBe(before.find((r: { Id: number }) => r.Id === 3).TIMESTAMP)
    const five = (await ctx.mock.items(ctx.token, '$filter=Id eq 5')).body[0]
    expect(five.Status).not.toBe('Recalculated')
  })

  it('reports a failing action in IsSuccessful, with 200', async () => {
    const reply = await run(IDS.actionFails, [])
    expect(reply.status).toBe(200)
    expect(reply.body.IsSuccessful).toBe(false)
    expect(reply.body.Message.length).toBeGreaterThan(0)
  })

  it('refuses an unknown action and a malformed parameter', async () => {
    const unknown = await run('c0ffee00-0000-4000-8000-0000000000ff', [])
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('UNKNOWN_ACTION')
    const malformed = await run(IDS.actionOk, [{ Name: 'Parameters', Value: 'Ids=3' }])
    expect(malformed.status).toBe(400)
    expect(malformed.body.code).toBe('VALIDATION')
  })

  it('lets the read-only user run no action that changes rows', async () => {
    const viewer = await ctx.mock.signIn(IDS.viewer)
    const reply = await run(IDS.actionOk, [{ Name: 'Parameters', Value: [{ key: 'Ids', value: '6' }] }], viewer)
    expect(reply.status).toBe(403)
    expect((await ctx.mock.items(ctx.token, '$filter=Id eq 6')).body[0].Status).not.toBe('Recalculated')
  })
})

describe('Send Email', () => {
  const ctx = mockPerSuite()

  const send = (body: unknown, headers: Record<string, string> = { Authorization: `Bearer ${ctx.token}`, WorkspaceId: IDS.workspaceId }) =>
    ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', { json: body, headers })

  it('queues a mail with a Bearer ctx.token and answers 200 with an empty body', async () => {
    const reply = await send({ to: ['buyer@example.test'], subject: 'Order 7', body: 'Shipped.' })
    expect(reply.status).toBe(200)
    expect(reply.raw.length).toBe(0)
    const mail = ctx.mock.mock.app.outbox.list().at(-1)
    expect(mail).toMatchObject({ to: ['buyer@example.test'], subject: 'Order 7', providerId: IDS.providerId, from: IDS.admin.username })
    const named = await send({ providerId: IDS.providerId, to: ['a@example.test', 'b@example.test'], subject: 's', body: 'b' })
    expect(named.status).toBe(200)
    expect(ctx.mock.mock.app.outbox.list()).toHaveLength(2)
  })

  it('refuses a SessionToken instead of Bearer, an unknown provider and a bad recipient', async () => {
    const session = await send({ to: ['x@example.test'], subject: 's', body: 'b' }, { SessionToken: ctx.token, WorkspaceId: IDS.workspaceId })
    expect(session.status).toBe(401)
    const provider = await send({ providerId: '00000000-0000-4000-8000-000000000000', to: ['x@example.test'], subject: 's', body: 'b' })
    expect(provider.status).toBe(404)
    const recipient = await send({ to: ['not an address'], subject: 's', body: 'b' })
    expect(recipient.status).toBe(400)
    expect(recipient.body.violations[0].pointer).toBe('/body/to/0')
  })
})

describe('Send Email: the recipient pattern reads alike in ECMAScript and Python', () => {
  const ctx = mockPerSuite({ strict: true })
  const schemas = apiDocument().components?.schemas as Record<string, { properties: { to: { items: { pattern: string } } } }>
  const pattern = schemas.EmailRequest?.properties.to.items.pattern ?? ''

  it('uses no construct the two dialects read differently (\\s \\d \\w \\b and ., a bare $)', () => {
    // \s: Python's takes U+001C..U+001F and U+0085, ECMAScript's U+FEFF; \d and \w: Unicode in Python's str patterns;
    // `.`: ECMAScript's leaves out \r and U+2028/9 too; `$`: Python's also matches before a final newline.
    expect(pattern).not.toMatch(/\\[sSdDwWbB]|(?<!\\)\.|\[\^?\]/)
    expect(pattern.match(/\$/g)?.length).toBe(1)
    expect(pattern.endsWith('$(?!\\n)')).toBe(true)
  })

  // What Python 3.11's re.search(pattern, value) answers for each value, computed by hand (python3 -c ...), next to
  // ECMAScript's reading as ajv applies it in the strict mock: a value the document allows is accepted, another refused.
  const PYTHON_READS: Array<[string, boolean]> = [
    ['buyer@northwind.example', true],
    ['Jane Doe <jane@northwind.example>', true],
    ['ops@localhost', true],
    ['élève@école.example', true],
    ['\u{1F600}@x.example', true],
    ['a@b.example\n', false],
    ['Jane <a@b.example>\n', false],
    ['a\u001c@b.example', false],
    ['a\u0085@b.example', false],
    ['a\ufeff@b.example', false],
    ['a\u0001@b.example', false],
    ['Jane\r\nBcc: x@y <a@b.example>', false],
    ['a b@c', false],
    ['a@b@c', false],
  ]

  it.each(PYTHON_READS)('%j: allowed by the pattern in Python = %s, and so answered by the strict mock', async (recipient, allowed) => {
    const reply = await ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', {
      json: { to: [recipient], subject: 's', body: 'b' },
      headers: { Authorization: `Bearer ${ctx.token}`, WorkspaceId: IDS.workspaceId },
    })
    expect(reply.status).toBe(allowed ? 200 : 400)
    expect(new RegExp(pattern, 'u').test(recipient)).toBe(allowed)
  })
})

describe('Generate Row Link', () => {
  const ctx = mockPerSuite()

  const link = (body: unknown) => ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, body)

  it('answers a URL that opens the row on the mock', async () => {
    const reply = await link({ relationKey: null, values: 4, valueType: 1 })
    expect(reply.status).toBe(200)
    expect(typeof reply.body).toBe('string')
    const url = new URL(reply.body)
    expect(url.origin).toBe(ctx.mock.url)
    const opened = await fetch(reply.body, { headers: { SessionToken: ctx.token } })
    expect(opened.status).toBe(200)
    const rows = (await opened.json()) as Array<{ Id: number }>
    expect(rows.map((r) => r.Id)).toEqual([4])
    const several = await link({ relationKey: null, values: [4, 9], valueType: 1 })
    const both = await fetch(several.body, { headers: { Authorization: `Bearer ${ctx.token}` } })
    expect(((await both.json()) as Array<{ Id: number }>).map((r) => r.Id)).toEqual([4, 9])
  })

  it('refuses detail rows and unknown rows', async () => {
    const detail = await link({ relationKey: IDS.relationKey, values: 1, valueType: 1 })
    expect(detail.status).toBe(400)
    const unknown = await link({ relationKey: null, values: [4, 999], valueType: 1 })
    expect(unknown.status).toBe(404)
    expect(unknown.body.detail).toContain('999')
  })
})
