import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unzip } from '../../contracts/zip.ts'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const payload = (name: string) => readFileSync(new URL(`../../fixtures/files/${name}`, import.meta.url))

describe('attachments', () => {
  let mock: TestClient
  let token: string
  let firstLineId: number
  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
    const [line] = (await mock.items(token, `$filter=MasterId eq 1&$orderby=Id asc&$top=1&relationKey=${IDS.relationKey}`)).body
    firstLineId = line.Id
  })
  afterAll(() => mock.close())

  const list = (filter: string, relationKey?: string) =>
    mock.request('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(filter)}${relationKey ? `&relationKey=${relationKey}` : ''}`, {
      headers: mock.dataHeaders(token),
    })
  const download = (ids: number[], rk?: string) => mock.post('/ExplorerApi/api/attachments/download', token, rk === undefined ? { ids } : { ids, rk })

  it("lists a master row's top level, a folder, and a detail row's files", async () => {
    const top = await list('ParentId eq 1')
    expect(top.status).toBe(200)
    expect(top.body.map((a: { Name: string }) => a.Name)).toEqual(['invoice.pdf', 'Photos'])
    const [invoice, photos] = top.body
    expect(invoice).toMatchObject({ ParentId: 1, FolderId: null, IsFolder: false, TypeImage: 'application/pdf' })
    expect(String(invoice.DT_CREATION)).toMatch(/^\d{14}$/)
    expect(photos.IsFolder).toBe(true)
    const inside = await list(`ParentId eq 1 and FolderId eq ${photos.Id}`)
    expect(inside.body.map((a: { Name: string; TypeImage: string }) => [a.Name, a.TypeImage])).toEqual([
      ['front.jpg', 'image/jpeg'],
      ['back.jpg', 'image/jpeg'],
    ])
    const detail = await list(`ParentId eq ${firstLineId}`, IDS.relationKey)
    expect(detail.body.map((a: { Name: string }) => a.Name)).toEqual(['spec.txt'])
    expect((await list('ParentId eq 2')).body).toEqual([])
  })

  it.each([
    ['ParentId eq 1 or FolderId eq 2', 'joined by "and" only'],
    ['not ParentId eq 1', 'joined by "and" only'],
    ['ParentId gt 1', 'joined by "and" only'],
    ['ParentId eq 1 and ParentId eq 2', '"ParentId" is not expected'],
    ['FolderId eq 2', 'ParentId is missing'],
    ['ParentId eq -1', 'must equal a row or folder Id'],
    ["ParentId eq 'one'", 'must equal a row or folder Id'],
    ['ParentId eq', 'character'],
  ])('refuses the filter %j, saying why', async (filter, why) => {
    const reply = await list(filter)
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('BAD_FILTER')
    expect(reply.body.detail).toContain(why)
  })

  it('refuses a filter of another form and an unknown relation key', async () => {
    const bad = await list("Name eq 'x'")
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('BAD_FILTER')
    expect(bad.body.detail).toContain('"Name" is not expected')
    const unknown = await list('ParentId eq 1', 'Invoices')
    expect(unknown.status).toBe(404)
  })

  it('streams one file with its media type and Content-Disposition', async () => {
    const [invoice] = (await list('ParentId eq 1')).body
    const reply = await download([invoice.Id], '')
    expect(reply.status).toBe(200)
    expect(reply.contentType).toBe('application/pdf')
    expect(reply.headers.get('content-disposition')).toBe('attachment; filename=invoice.pdf')
    expect(reply.raw.equals(payload('invoice.pdf'))).toBe(true)
    const [spec] = (await list(`ParentId eq ${firstLineId}`, IDS.relationKey)).body
    const text = await download([spec.Id], IDS.relationKey)
    expect(text.contentType).toMatch(/^text\/plain/)
    expect(text.raw.equals(payload('spec.txt'))).toBe(true)
  })

  it('streams a folder as a deterministic zip of its files in listing order', async () => {
    const photos = (await list('ParentId eq 1')).body.find((a: { IsFolder: boolean }) => a.IsFolder)
    const first = await download([photos.Id])
    expect(first.status).toBe(200)
    expect(first.contentType).toBe('application/zip')
    expect(first.headers.get('content-disposition')).toBe('attachment; filename=Photos.zip')
    const entries = await unzip(first.raw)
    expect(entries.map((e) => e.name)).toEqual(['front.jpg', 'back.jpg'])
    expect(entries[0]!.data.equals(payload('front.jpg'))).toBe(true)
    expect(entries[1]!.data.equals(payload('back.jpg'))).toBe(true)
    const second = await download([photos.Id])
    expect(second.raw.equals(first.raw)).toBe(true)
  })

  it('zips several ids, a folder as a directory inside', async () => {
    const [invoice, photos] = (await list('ParentId eq 1')).body
    const reply = await download([invoice.Id, photos.Id])
    expect(reply.headers.get('content-disposition')).toBe('attachment; filename=attachments.zip')
    expect((await unzip(reply.raw)).map((e) => e.name)).toEqual(['invoice.pdf', 'Photos/front.jpg', 'Photos/back.jpg'])
  })

  it('answers 404 for an unknown id and 400 when rk does not fit the row', async () => {
    const unknown = await download([9999])
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('UNKNOWN_ATTACHMENT')
    const [invoice] = (await list('ParentId eq 1')).body
    const rkForMaster = await download([invoice.Id], IDS.relationKey)
    expect(rkForMaster.status).toBe(400)
    expect(rkForMaster.body.detail).toMatch(/master row/)
    const [spec] = (await list(`ParentId eq ${firstLineId}`, IDS.relationKey)).body
    const missingRk = await download([spec.Id])
    expect(missingRk.status).toBe(400)
    expect(missingRk.body.detail).toContain(IDS.relationKey)
    expect((await download([])).status).toBe(400)
  })
})

describe('a file recorded by size only (placeholderBytes, as a capture without --attachments writes it)', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'))
    // Larger than the mock's 64 KB placeholder piece, so it is sent in several.
    Object.assign(fixture.attachments[0], { file: undefined, placeholderBytes: 200_000 })
    Object.assign(fixture.attachments[2], { file: undefined, placeholderBytes: 70_001 })
    mock = await startTestMock({ fixtureData: JSON.parse(JSON.stringify(fixture)) })
    token = await mock.signIn()
  })
  afterAll(() => mock.close())

  const download = (ids: number[]) => mock.post('/ExplorerApi/api/attachments/download', token, { ids, rk: '' })

  it('answers placeholder bytes of the recorded size under the recorded media type and name', async () => {
    const reply = await download([1])
    expect([reply.status, reply.contentType, reply.headers.get('content-length'), reply.headers.get('content-disposition')]).toEqual([
      200,
      'application/pdf',
      '200000',
      'attachment; filename=invoice.pdf',
    ])
    expect(reply.raw.equals(Buffer.alloc(200_000, '.'))).toBe(true)
  })

  it('zips a folder of them with each entry of its size, beside files that have bytes', async () => {
    const entries = await unzip((await download([2])).raw)
    expect(entries.map((e) => [e.name, e.data.length])).toEqual([
      ['front.jpg', 70_001],
      ['back.jpg', payload('back.jpg').length],
    ])
    expect(entries[0]!.data.equals(Buffer.alloc(70_001, '.'))).toBe(true)
    expect(entries[1]!.data.equals(payload('back.jpg'))).toBe(true)
  })

  it('keeps the size, not bytes, in the exported state', async () => {
    const state = await mock.request('GET', '/__mock/state')
    expect(state.body.attachments.slice(0, 3).map((a: Record<string, unknown>) => [a.placeholderBytes, a.content === undefined])).toEqual([
      [200_000, true],
      [undefined, true],
      [70_001, true],
    ])
  })
})
