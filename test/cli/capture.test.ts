/**
 * From an installation to a mock of it, as a team does it: `appdata-kit capture` from a running
 * mock with generated rows (other data than the default fixture), a second mock started from the
 * captured file, and `verify` and `verify --compare-with` between the two.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import type { FixtureFile } from '../../src/fixtures/file-format.ts'
import { IDS } from '../helpers/http.ts'
import { sharedTempDir, tempDir } from '../helpers/temp-dir.ts'
import { capture, verify } from '../contracts/support.ts'
import { unzip } from '../../contracts/zip.ts'

const connection = (url: string) => [
  '--base-url',
  url,
  '--org',
  IDS.org,
  '--username',
  IDS.admin.username,
  '--password',
  IDS.admin.password,
  '--workspace-id',
  IDS.workspaceId,
  '--application-id',
  IDS.applicationId,
]

/** A mock with `rows` generated orders (seed 9090), `appdata-kit capture` of it with `flags` into the folder `dir`, and a mock started from the file written. */
async function captureAndServe(
  dir: string,
  rows: number,
  flags: string[],
): Promise<{ source: LaunchedMock; copy: LaunchedMock; file: string; fixture: FixtureFile & { description: string }; output: string }> {
  const source = await startMock({ logLevel: 'silent', rows, seed: 9090 })
  try {
    const file = join(dir, 'orders.json')
    const captured = await capture([...connection(source.url), '--relation-key', IDS.relationKey, ...flags, '--out', file])
    expect(captured.code, captured.out + captured.err).toBe(0)
    const copy = await startMock({ logLevel: 'silent', fixture: file })
    return { source, copy, file, fixture: JSON.parse(readFileSync(file, 'utf8')), output: captured.out }
  } catch (error) {
    await source.close()
    throw error
  }
}

describe('capture, then a mock of the capture', () => {
  const dir = sharedTempDir('appdata-kit-capture-')
  let source: LaunchedMock
  let copy: LaunchedMock
  let file: string
  let fixture: FixtureFile & { description: string }
  let captureOutput: string

  beforeAll(async () => {
    // 200 orders, 400 lines, from another seed than the default fixture's rows.
    ;({ source, copy, file, fixture, output: captureOutput } = await captureAndServe(dir, 175, ['--rows', '1000', '--attachments']))
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
    const texts = new Set<string>([
      ...rows.flatMap((row) => Object.values(row).filter((value): value is string => typeof value === 'string')),
      ...names,
      IDS.admin.username,
    ])
    const text = readFileSync(file, 'utf8')
    expect([...texts].filter((value) => text.includes(JSON.stringify(value)))).toEqual([])
  })

  it('passes verify, and verify --compare-with finds no difference from the installation it was captured from', async () => {
    const user = fixture.organization.users[0]?.email as string
    const mine = [
      '--base-url',
      copy.url,
      '--org',
      IDS.org,
      '--username',
      user,
      '--password',
      'sandbox-pass',
      '--workspace-id',
      IDS.workspaceId,
      '--application-id',
      IDS.applicationId,
      '--relation-key',
      IDS.relationKey,
    ]
    const verified = await verify([...mine, '--seed', '3'])
    expect(verified.code, verified.out + verified.err).toBe(0)
    const compared = await verify([
      ...mine,
      '--seed',
      '3',
      '--allow-writes',
      '--compare-with',
      source.url,
      '--compare-username',
      IDS.admin.username,
      '--compare-password',
      IDS.admin.password,
    ])
    expect(compared.code, compared.out + compared.err).toBe(0)
    expect(compared.out).toContain(`no differences between ${copy.url} and ${source.url}`)
    expect(compared.out).not.toContain(IDS.admin.password)
  })

  it('reports the differences from a mock that deviates, operation by operation, and exits 1', async () => {
    const deviating = await startMock({ logLevel: 'silent', fixture: file, deviate: ['ignore-top'] })
    const json = join(tempDir('appdata-kit-compare-'), 'compare.json')
    try {
      const user = fixture.organization.users[0]?.email as string
      const compared = await verify([
        '--base-url',
        copy.url,
        '--org',
        IDS.org,
        '--username',
        user,
        '--password',
        'sandbox-pass',
        '--workspace-id',
        IDS.workspaceId,
        '--application-id',
        IDS.applicationId,
        '--seed',
        '3',
        '--compare-with',
        deviating.url,
        '--json',
        json,
      ])
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
    const refused = await capture([
      ...connection(source.url),
      '--relation-key',
      'Payments',
      '--out',
      join(tempDir('appdata-kit-capture-'), 'never-written.json'),
    ])
    expect(refused.code).toBe(2)
    expect(refused.err).toContain('relation key Payments')
  })
})

describe('a capture with default flags (no --attachments), named with --fixture-username', () => {
  const dir = sharedTempDir('appdata-kit-capture-')
  const team = { username: 'ci@team.test', password: 'ci-pass' }
  let source: LaunchedMock
  let copy: LaunchedMock
  let fixture: FixtureFile & { description: string }

  beforeAll(async () => {
    // 75 generated orders beside the default fixture's 25 and its attachments (a file and a folder of two
    // on master 1, a file on its first line): 100 masters, all within capture's default sample of 100.
    ;({ source, copy, fixture } = await captureAndServe(dir, 75, ['--fixture-username', team.username, '--fixture-password', team.password]))
  }, 60_000)

  afterAll(async () => {
    await copy?.close()
    await source?.close()
  })

  it('compares clean with its source: 0 differences, the mock signing in with the name and password given', async () => {
    const mine = [
      '--base-url',
      copy.url,
      '--org',
      IDS.org,
      '--username',
      team.username,
      '--password',
      team.password,
      '--workspace-id',
      IDS.workspaceId,
      '--application-id',
      IDS.applicationId,
      '--relation-key',
      IDS.relationKey,
    ]
    const compared = await verify([
      ...mine,
      '--seed',
      '3',
      '--allow-writes',
      '--compare-with',
      source.url,
      '--compare-username',
      IDS.admin.username,
      '--compare-password',
      IDS.admin.password,
    ])
    expect(compared.out).toContain(`no differences between ${copy.url} and ${source.url}`)
    expect(compared.code, compared.out + compared.err).toBe(0)
    expect(fixture.organization.users.map((user) => [user.email, user.password])).toEqual([[team.username, team.password]])
  })

  it('answers a download of a captured file with placeholder bytes of the recorded size and media type, and a folder as a zip of them', async () => {
    await source.client.signIn(IDS.admin)
    await copy.client.signIn(team)
    const [line] = await source.client.rows({ relationKey: IDS.relationKey, filter: 'MasterId eq 1', orderBy: 'Id asc', top: 1 })
    const cases = [
      ...(await source.client.attachments(1)).map((record) => ({ record, relationKey: undefined })),
      ...(await source.client.attachments(1, { folderId: 2 })).map((record) => ({ record, relationKey: undefined })),
      ...(await source.client.attachments(Number(line?.Id), { relationKey: IDS.relationKey })).map((record) => ({
        record,
        relationKey: IDS.relationKey as string,
      })),
    ].filter(({ record }) => record.IsFolder !== true)
    expect(cases).toHaveLength(4)
    for (const { record, relationKey } of cases) {
      const original = await source.client.download([record.Id], relationKey)
      const served = await copy.client.download([record.Id], relationKey)
      expect(served.bytes.length, String(record.Name)).toBe(original.bytes.length)
      expect(served.mediaType).toBe(original.mediaType)
      // No file content was read: the bytes are the placeholder, not the file.
      expect(Buffer.from(served.bytes).equals(Buffer.from(original.bytes))).toBe(false)
    }
    const folder = await unzip((await copy.client.download([2])).bytes)
    const files = await unzip((await source.client.download([2])).bytes)
    expect(folder.map((entry) => entry.data.length).sort()).toEqual(files.map((entry) => entry.data.length).sort())
    expect(folder.map((entry) => entry.name.replace(/^.*\./, ''))).toEqual(['jpg', 'jpg'])
  })

  it('records the files without their bytes: a placeholder of their size in the fixture', () => {
    const files = (fixture.attachments ?? []).filter((attachment) => attachment.isFolder !== true).sort((a, b) => a.id - b.id)
    expect(files.map((attachment) => [attachment.mediaType, attachment.placeholderBytes, attachment.content])).toEqual([
      ['application/pdf', 687, undefined],
      ['image/jpeg', 188, undefined],
      ['image/jpeg', 187, undefined],
      ['text/plain', 108, undefined],
    ])
    expect(JSON.stringify(fixture)).not.toContain(IDS.admin.username)
  })

  it('refuses a --fixture-username that is no e-mail address, or an empty --fixture-password, with exit 2', async () => {
    const out = join(tempDir('appdata-kit-capture-'), 'never-written.json')
    const name = await capture([...connection(source.url), '--fixture-username', 'ci team', '--out', out])
    expect([name.code, name.err]).toEqual([2, expect.stringContaining('--fixture-username takes an e-mail address (name@domain), got "ci team"')])
    const password = await capture([...connection(source.url), '--fixture-password', '', '--out', out])
    expect([password.code, password.err]).toEqual([2, expect.stringContaining('--fixture-password must not be empty')])
    expect(existsSync(out)).toBe(false)
  })
})

describe('a capture that keeps named fields (--keep-values), and says how to sign in to it', () => {
  const dir = sharedTempDir('appdata-kit-capture-')
  let source: LaunchedMock
  let copy: LaunchedMock
  let fixture: FixtureFile & { description: string }
  let output: string

  beforeAll(async () => {
    ;({ source, copy, fixture, output } = await captureAndServe(dir, 0, ['--keep-values', 'Status']))
  }, 60_000)

  afterAll(async () => {
    await copy?.close()
    await source?.close()
  })

  it("keeps Status as read, so a test's filter on it finds the same rows, while the other texts are anonymised", async () => {
    await source.client.signIn(IDS.admin)
    await copy.client.signIn({ username: 'sandbox@example.test', password: 'sandbox-pass' })
    const open = await source.client.rows({ filter: "Status eq 'Open'", orderBy: 'Id asc' })
    expect(open.length).toBeGreaterThan(0)
    expect((await copy.client.rows({ filter: "Status eq 'Open'", orderBy: 'Id asc' })).map((row) => row.Id)).toEqual(open.map((row) => row.Id))
    const customers = new Set(open.map((row) => row.Customer))
    expect(fixture.data?.[IDS.applicationId]?.masters?.filter((row) => customers.has(row.Customer as string))).toEqual([])
    expect(output).toContain('(values anonymised, but Status kept)')
  })

  it("prints the fixture user's name and password in the closing note", () => {
    expect(output).toContain('sign in to it as sandbox@example.test with password sandbox-pass')
  })

  it('refuses a field name no captured table has, with exit 2 and the fields it has', async () => {
    const out = join(tempDir('appdata-kit-capture-'), 'never-written.json')
    const refused = await capture([...connection(source.url), '--keep-values', 'Statsu', '--out', out])
    expect(refused.code).toBe(2)
    expect(refused.err).toContain('--keep-values Statsu: no captured field has that name (fields: IdRow, Customer, Amount, Status)')
    expect(existsSync(out)).toBe(false)
  })
})
