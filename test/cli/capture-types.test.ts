/**
 * Capture knows the product's data types: it infers Date, DateTime and Time from the values, keeps
 * 0/1 fields Numeric unless `--field-type NAME=TYPE` says otherwise, and anonymises every value
 * into one still valid for its type (the captured file loads).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { loadFixture } from '../../src/fixtures/load.ts'
import { valueFits, type FieldType } from '../../src/wire/type-forms.ts'
import { IDS } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { capture } from '../contracts/support.ts'

describe('capture of the Deliveries application', () => {
  let source: LaunchedMock
  const dir = sharedTempDir('appdata-kit-capture-types-')
  const args = () => [
    '--base-url',
    source.url,
    '--org',
    IDS.org,
    '--username',
    IDS.admin.username,
    '--password',
    IDS.admin.password,
    '--workspace-id',
    IDS.workspaceId,
    '--application-id',
    IDS.deliveriesId,
  ]
  beforeAll(async () => {
    source = await startMock({ logLevel: 'silent' })
  })
  afterAll(() => source?.close())

  const typesOf = (file: string) => Object.fromEntries(loadFixture(file).applications[0]?.master.fields.map((f) => [f.name, f.type]) ?? [])

  it('infers the date types, keeps 0/1 Numeric, and takes --field-type over it', async () => {
    const inferred = join(dir, 'inferred.json')
    expect((await capture([...args(), '--out', inferred])).code).toBe(0)
    expect(typesOf(inferred)).toMatchObject({ ShipDate: 'Date', DeliveredAt: 'DateTime', SlotStart: 'Time', Delivered: 'Numeric', Handling: 'Multiselection' })
    const told = join(dir, 'told.json')
    const result = await capture([
      ...args(),
      '--field-type',
      'Delivered=Boolean',
      '--field-type',
      'ProofOfDelivery=File',
      '--field-type',
      'TrackingLink=Link',
      '--out',
      told,
    ])
    expect(result.code, result.err).toBe(0)
    expect(typesOf(told)).toMatchObject({ Delivered: 'Boolean', ProofOfDelivery: 'File', TrackingLink: 'Link' })
  })

  it('anonymises into values valid for their types, and keeps the dates', async () => {
    const file = join(dir, 'anonymised.json')
    const result = await capture([
      ...args(),
      '--field-type',
      'ProofOfDelivery=File',
      '--field-type',
      'TrackingLink=Link',
      '--field-type',
      'Photo=ImageUri',
      '--field-type',
      'LabelColor=Color',
      '--out',
      file,
    ])
    expect(result.code, result.err).toBe(0)
    const fixture = loadFixture(file)
    const app = fixture.applications[0]
    const rows = fixture.data[app?.id ?? '']?.masters ?? []
    expect(rows).toHaveLength(10)
    for (const row of rows)
      for (const field of app?.master.fields ?? [])
        expect(valueFits(field.type as FieldType, row[field.name] ?? null, field.decimals), `${field.name} ${JSON.stringify(row[field.name])}`).toBe(true)
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain('https://tracking.example.test/DLV-2024-0001"')
    expect(rows[0]?.ShipDate).toBe(20240304)
    expect(String(rows[0]?.TrackingLink)).toMatch(/^https:\/\/tracking\.example\.test\//)
  })

  it('refuses a --field-type the values do not fit, or that names no type', async () => {
    const bad = await capture([...args(), '--field-type', 'Reference=Date', '--out', join(dir, 'bad.json')])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('--field-type Reference=Date: the value "DLV-2024-0001" read is not a Date value')
    const unknown = await capture([...args(), '--field-type', 'Reference=Money', '--out', join(dir, 'bad.json')])
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain('--field-type takes Field=Type')
  })
})
