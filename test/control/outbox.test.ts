/** GET and DELETE /__mock/emails: what Send Email queued. */
import { describe, expect, it } from 'vitest'
import { mockPerSuite } from '../helpers/http.ts'
import { IDS } from './support.ts'

describe('/__mock/emails', () => {
  const ctx = mockPerSuite()

  const queue = (subject: string) =>
    ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', {
      headers: { authorization: `Bearer ${ctx.token}`, WorkspaceId: IDS.workspaceId },
      json: { to: ['x@y.test'], subject, body: `Body of ${subject}` },
    })

  it('is empty at start', async () => {
    const reply = await ctx.mock.request('GET', '/__mock/emails')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ count: 0, emails: [] })
  })

  it('holds the e-mails queued through Send Email, oldest first', async () => {
    expect((await queue('First')).status).toBe(200)
    expect((await queue('Second')).status).toBe(200)
    const reply = await ctx.mock.request('GET', '/__mock/emails')
    expect(reply.body.count).toBe(2)
    expect(reply.body.emails.map((m: { subject: string }) => m.subject)).toEqual(['First', 'Second'])
    expect(reply.body.emails[0]).toMatchObject({
      to: ['x@y.test'],
      body: 'Body of First',
      from: IDS.admin.username,
      workspaceId: IDS.workspaceId,
      providerId: IDS.providerId,
    })
  })

  it('empties on DELETE and says how many went', async () => {
    const cleared = await ctx.mock.request('DELETE', '/__mock/emails')
    expect(cleared.status).toBe(200)
    expect(cleared.body).toEqual({ cleared: 2 })
    expect((await ctx.mock.request('GET', '/__mock/emails')).body.count).toBe(0)
    await queue('Third')
    expect((await ctx.mock.request('GET', '/__mock/emails')).body.emails.map((m: { subject: string }) => m.subject)).toEqual(['Third'])
  })
})
