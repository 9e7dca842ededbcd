/**
 * Capture against a running mock with generated rows (another seed, other data than the default
 * fixture): the fixture it writes loads unchanged, a mock started from it has the same shape, and
 * no text of the captured rows or attachment names is left in it.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFixture, DEFAULT_FIXTURE_USERNAME } from '../../src/commands/capture/build-fixture.ts'
import { captureApplication, CaptureError, type CaptureOptions } from '../../src/commands/capture/capture.ts'
import { parseFixture } from '../../src/fixtures/load.ts'
import { createClient } from '../../src/client/client.ts'
import type { Transport } from '../../src/wire/transport.ts'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { IDS } from '../helpers/http.ts'

function options(overrides: Partial<CaptureOptions> = {}): CaptureOptions {
  return {
    credentials: IDS.admin,
    organization: IDS.org,
    clientId: IDS.clientId,
    legacyClientId: IDS.legacyClientId,
    workspaceId: IDS.workspaceId,
    applicationId: IDS.applicationId,
    relationKeys: [IDS.relationKey],
    rows: 60,
    attachments: 'files',
    attachmentLimit: 1024 * 1024,
    identityField: undefined,
    masterFields: {},
    storageId: undefined,
    concurrency: 4,
    progress: () => undefined,
    now: () => new Date('2026-11-22T10:00:00.000Z'),
    ...overrides,
  }
}

/** Every string a row or an attachment record holds, as read from the source. */
function stringsOf(values: Iterable<Record<string, unknown>>): Set<string> {
  const texts = new Set<string>()
  for (const record of values) for (const value of Object.values(record)) if (typeof value === 'string') texts.add(value)
  return texts
}

describe('capture', () => {
  let source: LaunchedMock
  beforeAll(async () => {
    source = await startMock({ logLevel: 'silent', rows: 400, seed: 4242 })
  })
  afterAll(() => source.close())

  it('writes a fixture the loader takes, of the same shape, without any captured text', async () => {
    const captured = await captureApplication(source.client, options())
    expect(captured.master.rows).toHaveLength(60)
    expect(captured.master.count).toBe(425)
    expect(captured.master.identityField).toBe('IdRow')
    expect(captured.details[0]).toMatchObject({ relationKey: 'OrderLines', masterField: 'MasterId', identityField: 'IdRow', count: 850 })
    expect(captured.details[0]?.rows).toHaveLength(120)
    expect(captured.attachments.map((a) => a.record.Name)).toEqual(expect.arrayContaining(['invoice.pdf', 'Photos', 'front.jpg', 'back.jpg']))

    const { fixture, notes } = buildFixture(captured, { anonymise: true, seed: 1, password: 'sandbox-pass', rowsAsGenerator: false })
    expect(notes.join('\n')).toContain('generated')
    // The loader takes it unchanged.
    const loaded = parseFixture(JSON.parse(JSON.stringify(fixture)), 'captured')
    const [app] = loaded.applications
    expect(app?.master.fields.map((f) => [f.name, f.type])).toEqual([
      ['Customer', 'String'],
      ['Amount', 'Numeric'],
      ['Status', 'String'],
    ])
    expect(app?.details.map((d) => [d.relationKey, d.masterField, d.storage.fields.map((f) => [f.name, f.type, f.decimals])])).toEqual([
      [
        'OrderLines',
        'MasterId',
        [
          ['MasterId', 'Numeric', 0],
          ['Product', 'String', undefined],
          ['Quantity', 'Numeric', 0],
          ['UnitPrice', 'Numeric', undefined],
        ],
      ],
    ])
    // Dated as the product dates rows: DateTime numbers, kept as the loader takes them.
    expect(loaded.notices).toBeUndefined()
    for (const row of loaded.data[app?.id ?? '']?.masters ?? []) expect(String(row.DT_CREATION)).toMatch(/^20\d{12}$/)

    const text = JSON.stringify(fixture)
    const originals = stringsOf([...captured.master.rows, ...(captured.details[0]?.rows ?? []), ...captured.attachments.map((a) => ({ Name: a.record.Name }))])
    originals.delete('')
    const left = [...originals].filter((value) => text.includes(JSON.stringify(value)))
    expect(left).toEqual([])
    expect(text).not.toContain(IDS.admin.username)
    expect(text).not.toContain(IDS.admin.password)

    // A mock of the capture serves the same shape: the sample's rows, their lines, the attachments' tree.
    const copy = await startMock({ logLevel: 'silent', fixtureData: fixture })
    try {
      await copy.client.signIn({ username: fixture.organization.users[0]?.email as string, password: 'sandbox-pass' })
      expect(await copy.client.count()).toBe(60)
      expect(await copy.client.count({ relationKey: 'OrderLines' })).toBe(120)
      const [first] = await copy.client.rows({ top: 1, orderBy: 'Id asc' })
      const [original] = captured.master.rows
      expect(Object.keys(first ?? {}).sort()).toEqual(Object.keys(original ?? {}).sort())
      expect(first?.IdRow).toBe(original?.IdRow)
      const top = await copy.client.attachments(1)
      expect(top.map((a) => a.IsFolder).sort()).toEqual([false, true])
      // Equal values stay equal, so a filter on a value finds the same rows.
      const status = (first as Record<string, unknown>).Status
      const sameStatus = captured.master.rows.filter((row) => row.Status === original?.Status).length
      expect(await copy.client.count({ filter: `Status eq '${String(status)}'` })).toBe(sameStatus)
    } finally {
      await copy.close()
    }
  })

  it('keeps the values with --no-anonymise, and writes generate schemas with --rows-as-generator', async () => {
    const captured = await captureApplication(source.client, options({ rows: 20, attachments: 'none' }))
    const plain = buildFixture(captured, { anonymise: false, seed: 1, password: 'p', rowsAsGenerator: false }).fixture
    expect(plain.data[IDS.applicationId]?.masters?.[0]?.Customer).toBe(captured.master.rows[0]?.Customer)
    const generator = buildFixture(captured, { anonymise: true, seed: 1, password: 'p', rowsAsGenerator: true }).fixture
    expect(generator.data[IDS.applicationId]?.masters).toEqual([])
    const status = generator.applications[0]?.master.fields.find((f) => f.name === 'Status')
    expect(status?.generate?.enum).toEqual(expect.arrayContaining([expect.any(String)]))
    const mock = await startMock({ logLevel: 'silent', fixtureData: generator, rows: 500 })
    try {
      await mock.client.signIn({ username: generator.organization.users[0]?.email as string, password: 'p' })
      expect(await mock.client.count()).toBe(500)
      const amounts = (await mock.client.rows({ top: 500 })).map((row) => row.Amount as number)
      const seen = captured.master.rows.map((row) => row.Amount as number)
      expect(Math.min(...amounts)).toBeGreaterThanOrEqual(Math.min(...seen))
      expect(Math.max(...amounts)).toBeLessThanOrEqual(Math.max(...seen))
    } finally {
      await mock.close()
    }
  })

  it('downloads attachment files only up to --attachment-limit, and records the others by size', async () => {
    const captured = await captureApplication(source.client, options({ rows: 2, attachmentLimit: 600 }))
    const files = captured.attachments.filter((a) => a.record.IsFolder !== true)
    const kept = files.filter((a) => a.content !== undefined)
    expect(kept.length).toBeGreaterThan(0)
    expect(kept.length).toBeLessThan(files.length)
    expect(kept.reduce((sum, a) => sum + (a.content?.length ?? 0), 0)).toBeLessThanOrEqual(600)
    const { fixture, notes } = buildFixture(captured, { anonymise: false, seed: 1, password: 'p', rowsAsGenerator: false })
    const written = (fixture.attachments ?? []).filter((a) => a.isFolder !== true)
    expect(written.filter((a) => a.content !== undefined)).toHaveLength(kept.length)
    expect(written.filter((a) => a.placeholderBytes !== undefined).map((a) => a.placeholderBytes)).toEqual(
      files.filter((a) => a.content === undefined).map((a) => a.size),
    )
    expect(notes).toContainEqual(expect.stringContaining(`${files.length - kept.length} attachment file(s) recorded without their bytes`))
  })

  it('names the captured user: --fixture-username, else a fixed name when anonymising, else the real one', async () => {
    const captured = await captureApplication(source.client, options({ rows: 1, attachments: 'none' }))
    const email = (build: Partial<Parameters<typeof buildFixture>[1]>) =>
      buildFixture(captured, { anonymise: true, seed: 1, password: 'p', rowsAsGenerator: false, ...build }).fixture.organization.users[0]?.email
    expect(email({ username: 'ci@team.test' })).toBe('ci@team.test')
    expect(email({})).toBe(DEFAULT_FIXTURE_USERNAME)
    expect(email({ seed: 2 })).toBe(DEFAULT_FIXTURE_USERNAME)
    expect(email({ anonymise: false })).toBe(IDS.admin.username)
  })

  it('says how many sampled rows carry an attachment marker other than the files listed for them', async () => {
    // An installation whose marker on master 1 says 7, where the mock of the capture will count its 3 files.
    const transport = {
      ...source.client.transport,
      async send(request: Parameters<Transport['send']>[0]) {
        const answer = await source.client.transport.send(request)
        if (!request.path.endsWith('/api/items') || String(request.body).includes('relationKey') || !answer.body.toString().startsWith('[')) return answer
        const rows = JSON.parse(answer.body.toString()) as Array<Record<string, unknown>>
        for (const row of rows) if (row.Id === 1 && typeof row.CT_ATTACHMENTS === 'number') row.CT_ATTACHMENTS = 7
        return { ...answer, body: Buffer.from(JSON.stringify(rows)) }
      },
    }
    const lines: string[] = []
    const client = createClient({ transport, organization: IDS.org, workspaceId: IDS.workspaceId, applicationId: IDS.applicationId })
    await captureApplication(client, options({ rows: 3, attachments: 'records', progress: (line) => lines.push(line) }))
    expect(lines).toContain('attachments: 1 row(s) whose CT_ATTACHMENTS is not the number of files listed for them; the mock of the capture counts the files')
    lines.length = 0
    await captureApplication(source.client, options({ rows: 3, attachments: 'records', progress: (line) => lines.push(line) }))
    expect(lines.filter((line) => line.includes('CT_ATTACHMENTS'))).toEqual([])
  })

  it('refuses an --identity-field or --master-field the loader would not take', async () => {
    await expect(captureApplication(source.client, options({ identityField: 'Customer', attachments: 'none' }))).rejects.toThrow(
      /--identity-field Customer: the rows read do not hold it as an integer/,
    )
    await expect(captureApplication(source.client, options({ masterFields: { OrderLines: 'Product' }, attachments: 'none' }))).rejects.toThrow(
      /--master-field OrderLines=Product: the detail rows read do not hold it as an integer/,
    )
    const given = await captureApplication(
      source.client,
      options({ identityField: 'IdRow', masterFields: { OrderLines: 'MasterId' }, attachments: 'none', rows: 5 }),
    )
    expect(given.details[0]?.masterField).toBe('MasterId')
  })

  it('gives attachments names no capture held, even short ones, keeping their extension', () => {
    const names = Array.from({ length: 9 }, (_, i) => `${i + 1}.jpg`)
    const captured = {
      organization: 'acme',
      clientId: 'c',
      legacyClientId: 'l',
      username: 'u@example.test',
      workspaceId: IDS.workspaceId,
      applicationId: IDS.applicationId,
      master: { fields: [], identityField: 'IdRow', storageId: undefined, rows: [{ Id: 1, IdRow: 1 }], count: 1 },
      details: [],
      attachments: names.map((name, i) => ({
        relationKey: null,
        record: { Id: i + 1, ParentId: 1, FolderId: null, IsFolder: false, Name: name, TypeImage: 'image/jpeg' },
        content: Buffer.from('x'),
        size: 1,
        mediaType: 'image/jpeg',
      })),
      capturedAt: '2026-11-22T10:00:00.000Z',
    }
    const out = buildFixture(captured, { anonymise: true, seed: 1, password: 'p', rowsAsGenerator: false }).fixture.attachments?.map((a) => a.name) ?? []
    expect(out).toHaveLength(9)
    for (const name of out) expect(name).toMatch(/\.jpg$/)
    expect(out.filter((name) => names.includes(name))).toEqual([])
    expect(new Set(out).size).toBe(9)
  })

  it('refuses a relation key the application does not have, naming it', async () => {
    await expect(captureApplication(source.client, options({ relationKeys: ['Payments'], attachments: 'none' }))).rejects.toThrow(CaptureError)
    await expect(captureApplication(source.client, options({ relationKeys: ['Payments'], attachments: 'none' }))).rejects.toThrow(/relation key Payments/)
  })
})

describe('capture of an installation with field rules and locked rows', () => {
  it('invents no rules and no locks: the API shows neither, so the fixture holds neither', async () => {
    const json = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>
    json.applications[0].master.fields[0].rules = { required: true, maxLength: 60 }
    json.applications[0].details[0].storage.fields[2].rules = { minimum: 1 }
    json.locks = { [IDS.applicationId]: { master: [1], OrderLines: [2] } }
    const source = await startMock({ logLevel: 'silent', fixtureData: json })
    try {
      const captured = await captureApplication(source.client, options({ rows: 10, attachments: 'none' }))
      for (const rowsAsGenerator of [false, true]) {
        const { fixture } = buildFixture(captured, { anonymise: true, seed: 1, password: 'p', rowsAsGenerator })
        const fields = fixture.applications.flatMap((app) => [app.master, ...(app.details ?? []).map((d) => d.storage)]).flatMap((storage) => storage.fields)
        expect(fields.length).toBeGreaterThan(0)
        expect(fields.filter((field) => 'rules' in field)).toEqual([])
        expect(fixture).not.toHaveProperty('locks')
        expect(JSON.stringify(fixture)).not.toMatch(/"rules"|"locks"/)
      }
    } finally {
      await source.close()
    }
  })
})
