/** The control plane as methods of the object startMock() returns: no HTTP to steer the mock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINIMAL_FIXTURE } from '../../spec/control-plane.ts'
import { fixedDeps } from '../../src/deps.ts'
import { ProblemError } from '../../src/errors.ts'
import { FixtureError } from '../../src/fixtures/load.ts'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { IDS } from '../helpers/http.ts'

describe('startMock() controls', () => {
  let mock: LaunchedMock
  beforeAll(async () => {
    mock = await startMock({ logLevel: 'silent', deps: fixedDeps('2026-11-01T09:00:00.000Z'), uploadLimit: 1024 })
  })
  afterAll(() => mock.close())

  /** The in-memory store, read directly: these tests make no HTTP calls to check their effects. */
  const store = () => mock.app.store

  it('loadFixture replaces the data; reset goes back to the start fixture', () => {
    const loaded = mock.loadFixture(MINIMAL_FIXTURE, { rows: 3, seed: 5 })
    expect(loaded).toMatchObject({ loaded: true, generatedRows: 3, fixture: { masterRows: 5 } })
    expect(store().getRow(IDS.applicationId, null, 1)?.row.Customer).toBe('Initech')
    expect(store().getRow(IDS.applicationId, null, 25)).toBeNull()

    const reset = mock.reset()
    expect(reset.fixture.masterRows).toBe(38)
    expect(store().getRow(IDS.applicationId, null, 25)).not.toBeNull()
  })

  it('loadFixture throws FixtureError naming the path, and changes nothing', () => {
    const bad = { ...structuredClone(MINIMAL_FIXTURE), applications: 'none' }
    expect(() => mock.loadFixture(bad)).toThrow(FixtureError)
    expect(() => mock.loadFixture(bad)).toThrow('/applications')
    expect(store().getRow(IDS.applicationId, null, 25)).not.toBeNull()
  })

  it('addAttachment attaches files, refusing one over the upload limit', () => {
    const records = mock.addAttachment({ parentId: 3, folder: 'Docs', files: [{ name: 'a.txt', content: 'alpha' }] })
    expect(records.map((r) => [r.IsFolder, r.Name])).toEqual([
      [true, 'Docs'],
      [false, 'a.txt'],
    ])
    const file = store().getAttachment(IDS.applicationId, null, records[1]?.Id as number)
    expect(Buffer.from(file?.content ?? []).toString()).toBe('alpha')
    expect(() => mock.addAttachment({ parentId: 3, files: [{ name: 'big', content: new Uint8Array(1025) }] })).toThrow(ProblemError)
    expect(() => mock.addAttachment({ parentId: 999, files: [{ name: 'x', content: 'x' }] })).toThrow(/Row 999/)
  })

  it('setFaults, faults and clearFaults manage the rules, refusing bad ones', () => {
    const set = mock.setFaults([{ operationId: 'saveItems', status: 503, times: 2 }], { seed: 9 })
    expect(set).toEqual({ seed: 9, rules: [{ id: 1, operationId: 'saveItems', status: 503, times: 2, rate: 1, remaining: 2, applied: 0 }] })
    expect(mock.faults().rules).toHaveLength(1)
    expect(() => mock.setFaults([{ operationId: 'nope', status: 503 }])).toThrow(ProblemError)
    expect(() => mock.setFaults([{ operationId: 'saveItems', latencyMs: -1 }])).toThrow(/latencyMs/)
    expect(mock.clearFaults()).toBe(1)
    expect(mock.faults().rules).toEqual([])
  })

  it('advanceClock and clock move and read the time', () => {
    expect(mock.clock()).toEqual({ now: '2026-11-01T09:00:00.000Z', offsetMs: 0 })
    expect(mock.advanceClock(90_000)).toEqual({ now: '2026-11-01T09:01:30.000Z', offsetMs: 90_000 })
    expect(() => mock.advanceClock(-1)).toThrow(ProblemError)
    expect(() => mock.advanceClock(1.5)).toThrow(ProblemError)
  })

  it('emails, requests and their clear methods read what clients did', async () => {
    mock.reset()
    mock.clearRequests()
    // One client call, so there is something to read.
    const form = new URLSearchParams({
      client_id: IDS.clientId,
      username: IDS.admin.username,
      password: IDS.admin.password,
      grant_type: 'password',
      scope: 'openid apiv1 nosession',
    })
    const signIn = await fetch(`${mock.url}/identityprovider/${IDS.org}/connect/token`, { method: 'POST', body: form })
    const token = ((await signIn.json()) as { access_token: string }).access_token
    const queued = await fetch(`${mock.url}/webaggregator/api/v1/email/queue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, WorkspaceId: IDS.workspaceId, 'content-type': 'application/json' },
      body: JSON.stringify({ to: ['x@y.test'], subject: 'Hello', body: 'there' }),
    })
    expect(queued.status).toBe(200)

    expect(mock.emails().map((m) => m.subject)).toEqual(['Hello'])
    expect(mock.requests().map((e) => e.operationId)).toEqual(['signIn', 'sendEmail'])
    expect(mock.requests({ operationId: 'signIn', bodies: true })[0]?.request?.body).toMatchObject({ password: '[redacted]' })
    expect(mock.clearEmails()).toBe(1)
    expect(mock.emails()).toEqual([])
    expect(mock.clearRequests()).toBe(2)
    expect(mock.requests()).toEqual([])
  })
})
