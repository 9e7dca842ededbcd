/**
 * From an installation to a mock of it, as a team does it: `appdata-kit capture` from a running
 * mock with generated rows (other data than the default fixture), a second mock started from the
 * captured file, and `verify` and `verify --compare-with` between the two.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type RunningMock } from '../../src/mock.ts'
import type { FixtureFile } from '../../src/fixtures/file-format.ts'
import { IDS } from '../helpers/http.ts'
import { capture, verify } from '../contracts/support.ts'

const connection = (url: string) => ['--base-url', url, '--org', IDS.org, '--username', IDS.admin.username, '--password', IDS.admin.password, '--workspace-id', IDS.workspaceId, '--application-id', IDS.applicationId]

describe('capture, then a mock of the capture', () => {
  let source: RunningMock
  let copy: RunningMock
  let file: string
  let fixture: FixtureFile & { description: string }
  let captureOutput: string

  beforeAll(async () => {
    // 200 orders, 400 lines, from another seed than the default fixture's rows.
    source = await startMock({ logLevel: 'silent', rows: 175, seed: 9090 })
    file = join(mkdtempSync(join(tmpdir(), 'appdata-kit-capture-')), 'orders.json')
    const captured = await capture([...connection(source.url), '--relation-key', IDS.relationKey, '--rows', '1000', '--attachments', '--out', file])
    expect(captured.code, captured.out + captured.err).toBe(0)
    captureOutput = captured.out
    fixture = JSON.parse(readFileSync(file, 'utf8'))
    copy = await startMock({ logLevel: 'silent', fixture: file })
  }, 60_000)

  afterAll(async () => {
    await copy?.close()
    await source?.close()
  })

  it('reads only: sign-in, Get Items, Count, the attachments list and download', () => {
    const operations = new Set(source.requests({ limit: 10_000 }).map((entry) => entry.operationId))
    expect([...operations].sort()).toEqual(['downloadAttachment', 'listAttachments', 'queryItems', 'signIn'])
    expect(captureOutput).toContain('master: 200 of 200 rows; Identity field IdRow; fields Customer String, Amount Numeric, Status String')
    expect(captureOutput).toContain('OrderLines: 400 of 400 rows; Identity field IdRow, master link MasterId')
  })

  it('gives a mock of the same shape: fields and types, relation keys, counts', async () => {
    const original = source.app.store.application(IDS.applicationId)
    const captured = copy.app.store.application(IDS.applicationId)
    const shape = (app: typeof original) => ({
      master: app?.master.fields.map((f) => [f.name, f.type]),
      identity: app?.master.identityField,
      details: app?.details.map((d) => [d.relationKey, d.masterField, d.storage.identityField, d.storage.fields.map((f) => [f.name, f.type])]),
    })
    expect(shape(captured)).toEqual(shape(original))
    await source.client.signIn(IDS.admin)
    await copy.client.signIn({ username: fixture.organization.users[0]?.email as string, password: 'sandbox-pass' })
    expect(await copy.client.count()).toBe(await source.client.count())
    expect(await copy.client.count({ relationKey: IDS.relationKey })).toBe(await source.client.count({ relationKey: IDS.relationKey }))
  })

  it('holds no string value of a captured row or attachment name', async () => {
    await source.client.signIn(IDS.admin)
    const rows = [...(await source.client.rows({ top: 1000 })), ...(await source.client.rows({ top: 1000, relationKey: IDS.relationKey }))]
    const names = (await source.client.attachments(1)).map((a) => a.Name)
    const texts = new Set<string>([...rows.flatMap((row) => Object.values(row).filter((value): value is string => typeof value === 'string')), ...names, IDS.admin.username])
    const text = readFileSync(file, 'utf8')
    expect([...texts].filter((value) => text.includes(JSON.stringify(value)))).toEqual([])
  })

  it('passes verify, and verify --compare-with finds no difference from the installation it was captured from', async () => {
    const user = fixture.organization.users[0]?.email as string
    const mine = ['--base-url', copy.url, '--org', IDS.org, '--username', user, '--password', 'sandbox-pass', '--workspace-id', IDS.workspaceId, '--application-id', IDS.applicationId, '--relation-key', IDS.relationKey]
    const verified = await verify([...mine, '--seed', '3'])
    expect(verified.code, verified.out + verified.err).toBe(0)
    const compared = await verify([...mine, '--seed', '3', '--allow-writes', '--compare-with', source.url, '--compare-username', IDS.admin.username, '--compare-password', IDS.admin.password])
    expect(compared.code, compared.out + compared.err).toBe(0)
    expect(compared.out).toContain(`no differences between ${copy.url} and ${source.url}`)
    expect(compared.out).not.toContain(IDS.admin.password)
  })

  it('reports the differences from a mock that deviates, operation by operation, and exits 1', async () => {
    const deviating = await startMock({ logLevel: 'silent', fixture: file, deviate: ['ignore-top'] })
    const json = join(mkdtempSync(join(tmpdir(), 'appdata-kit-compare-')), 'compare.json')
    try {
      const user = fixture.organization.users[0]?.email as string
      const compared = await verify(['--base-url', copy.url, '--org', IDS.org, '--username', user, '--password', 'sandbox-pass', '--workspace-id', IDS.workspaceId, '--application-id', IDS.applicationId, '--seed', '3', '--compare-with', deviating.url, '--json', json])
      expect(compared.code).toBe(1)
      expect(compared.out).toMatch(/\d+ difference\(s\) between/)
      expect(compared.out).toMatch(/ {2}queryItems\n/)
      expect(compared.out).toMatch(/paging: \/ \d+ items \| \/ 200 items/)
      const report = JSON.parse(readFileSync(json, 'utf8')) as { differences: Array<{ kind: string; operationId: string }> }
      expect(report.differences).toContainEqual(expect.objectContaining({ kind: 'paging', operationId: 'queryItems' }))
    } finally {
      await deviating.close()
    }
  })

  it('refuses a relation key the application does not have, with exit 2 and its name', async () => {
    const refused = await capture([...connection(source.url), '--relation-key', 'Payments', '--out', join(tmpdir(), 'never-written.json')])
    expect(refused.code).toBe(2)
    expect(refused.err).toContain('relation key Payments')
  })
})
