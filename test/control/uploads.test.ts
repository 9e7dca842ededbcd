/** POST /__mock/attachments: multipart upload, then the API lists and downloads the files. */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { unzip } from '../../contracts/zip.ts'
import { mockPerSuite, startTestMock, type TestClient } from '../helpers/http.ts'
import { form, IDS, listAttachments, upload } from './support.ts'

/** Bytes that are not valid UTF-8, so a download that decodes and re-encodes them would differ. */
function binary(size: number): Uint8Array {
  const bytes = new Uint8Array(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 131 + 7) & 0xff
  return bytes
}

describe('POST /__mock/attachments', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ uploadLimit: 64 * 1024 })
    token = await mock.signIn()
  })
  afterAll(() => mock.close())
  beforeEach(async () => {
    await mock.request('POST', '/__mock/reset')
  })

  it('adds a file that Get Attachments List shows and Download Attachment returns byte for byte', async () => {
    const bytes = binary(5000)
    const reply = await upload(mock, form({ parentId: '2' }, [{ name: 'delivery-note.pdf', bytes, type: 'application/pdf' }]))
    expect(reply.status).toBe(201)
    expect(reply.body).toHaveLength(1)
    const record = reply.body[0]
    expect(record).toMatchObject({ ParentId: 2, FolderId: null, IsFolder: false, Name: 'delivery-note.pdf', TypeImage: 'application/pdf' })

    const listed = await listAttachments(mock, token, 2)
    expect(listed).toEqual([record])

    const download = await mock.post('/ExplorerApi/api/attachments/download', token, { ids: [record.Id], rk: '' })
    expect(download.status).toBe(200)
    expect(download.contentType).toMatch(/^application\/pdf/)
    expect(Buffer.compare(download.raw, Buffer.from(bytes))).toBe(0)
  })

  it("counts the files in the row's CT_ATTACHMENTS", async () => {
    await upload(
      mock,
      form({ parentId: '5' }, [
        { name: 'a.txt', bytes: 'a' },
        { name: 'b.txt', bytes: 'b' },
      ]),
    )
    const row = (await mock.items(token, '$filter=Id eq 5')).body[0]
    expect(row.CT_ATTACHMENTS).toBe(2)
  })

  it('creates a named folder, puts the files in it, and reuses it next time', async () => {
    const first = await upload(mock, form({ parentId: '2', folder: 'Scans' }, [{ name: 'page1.png', bytes: binary(10), type: 'image/png' }]))
    expect(first.status).toBe(201)
    expect(first.body.map((r: { IsFolder: boolean; Name: string }) => [r.IsFolder, r.Name])).toEqual([
      [true, 'Scans'],
      [false, 'page1.png'],
    ])
    const folderId = first.body[0].Id as number
    expect(first.body[1].FolderId).toBe(folderId)

    const second = await upload(mock, form({ parentId: '2', folder: 'Scans' }, [{ name: 'page2.png', bytes: binary(11), type: 'image/png' }]))
    expect(second.body).toHaveLength(1)
    expect(second.body[0].FolderId).toBe(folderId)
    expect((await listAttachments(mock, token, 2, folderId)).map((r) => r.Name)).toEqual(['page1.png', 'page2.png'])
  })

  it('attaches to a detail row with relationKey', async () => {
    const details = await mock.items(token, `$filter=MasterId eq 3&relationKey=${IDS.relationKey}`)
    const detailId = details.body[0].Id as number
    const reply = await upload(
      mock,
      form({ parentId: String(detailId), relationKey: IDS.relationKey }, [{ name: 'line.txt', bytes: 'line', type: 'text/plain' }]),
    )
    expect(reply.status).toBe(201)
    const listed = await mock.request(
      'GET',
      `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${detailId}`)}&relationKey=${IDS.relationKey}`,
      { headers: mock.dataHeaders(token) },
    )
    expect(listed.body.map((r: { Name: string }) => r.Name)).toEqual(['line.txt'])
  })

  it('guesses the media type of a file sent as application/octet-stream', async () => {
    const reply = await upload(mock, form({ parentId: '2' }, [{ name: 'photo.JPG', bytes: binary(20) }]))
    expect(reply.body[0].TypeImage).toBe('image/jpeg')
  })

  it('answers 413 for a file over the upload limit and adds nothing', async () => {
    const reply = await upload(
      mock,
      form({ parentId: '2' }, [
        { name: 'small.txt', bytes: 'ok' },
        { name: 'big.bin', bytes: binary(64 * 1024 + 1) },
      ]),
    )
    expect(reply.status).toBe(413)
    expect(reply.body.code).toBe('PAYLOAD_TOO_LARGE')
    expect(reply.body.limit).toBe(64 * 1024)
    expect(await listAttachments(mock, token, 2)).toEqual([])
  })

  it('accepts a file exactly at the limit', async () => {
    const reply = await upload(mock, form({ parentId: '2' }, [{ name: 'edge.bin', bytes: binary(64 * 1024) }]))
    expect(reply.status).toBe(201)
  })

  it('answers 404 for a row, relation key, application or folder that does not exist', async () => {
    const file = [{ name: 'x.txt', bytes: 'x' }]
    expect((await upload(mock, form({ parentId: '999' }, file))).body.code).toBe('UNKNOWN_ROW')
    expect((await upload(mock, form({ parentId: '2', relationKey: 'Nope' }, file))).body.code).toBe('UNKNOWN_RELATION_KEY')
    expect((await upload(mock, form({ parentId: '2', applicationId: '00000000-0000-4000-8000-000000000000' }, file))).body.code).toBe('UNKNOWN_APPLICATION')
    // Attachment 1 is master row 1's invoice.pdf: a file, and not row 2's.
    const folder = await upload(mock, form({ parentId: '2', folderId: '1' }, file))
    expect(folder.status).toBe(404)
    expect(folder.body.code).toBe('UNKNOWN_ATTACHMENT')
    expect(await listAttachments(mock, token, 2)).toEqual([])
  })

  it('answers 400 naming the field for a missing parentId, a bad parentId, a missing file or an unknown field', async () => {
    const file = [{ name: 'x.txt', bytes: 'x' }]
    const missing = await upload(mock, form({}, file))
    expect(missing.status).toBe(400)
    expect(missing.body.violations.map((v: { pointer: string }) => v.pointer)).toContain('/body/parentId')
    expect((await upload(mock, form({ parentId: 'two' }, file))).body.violations[0].pointer).toBe('/body/parentId')
    expect((await upload(mock, form({ parentId: '2' }, []))).body.violations[0].pointer).toBe('/body/file')
    expect((await upload(mock, form({ parentId: '2', colour: 'red' }, file))).body.violations[0].pointer).toBe('/body/colour')
  })

  it('parses multipart only under /__mock/: an API route refuses it', async () => {
    const response = await fetch(`${mock.url}/ExplorerApi/api/items/save`, {
      method: 'POST',
      body: form({ parentId: '2' }, []),
      headers: mock.dataHeaders(token),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { code: string }).code).toBe('BAD_BODY')
  })

  it('answers 400 BAD_BODY, not 500, for a multipart body cut before its closing boundary, and adds nothing', async () => {
    for (const body of ['------b\r\nContent-Disposition: form-data; name="par', '------b\r\nContent-Disposition: form-data; name="parentId"\r\n\r\n2\r\n']) {
      const reply = await mock.request('POST', '/__mock/attachments', { body, headers: { 'content-type': 'multipart/form-data; boundary=----b' } })
      expect(reply.status, body).toBe(400)
      expect(reply.body).toMatchObject({ code: 'BAD_BODY', detail: expect.stringContaining('multipart/form-data body cannot be read') })
    }
    expect(await listAttachments(mock, token, 2)).toEqual([])
  })

  it('answers 409 SEQUENCE_EXHAUSTED, adding nothing, when the next attachment Id would pass 2^53 - 1', async () => {
    const state = (await mock.request('GET', '/__mock/state')).body as { attachments: Array<{ id: number; folderId: number | null }> }
    const last = state.attachments.at(-1) as { id: number }
    last.id = Number.MAX_SAFE_INTEGER
    expect((await mock.request('POST', '/__mock/fixture', { json: state })).status).toBe(200)
    const reply = await upload(mock, form({ parentId: '4', folder: 'Late' }, [{ name: 'late.txt', bytes: 'x' }]))
    expect(reply.status).toBe(409)
    expect(reply.body).toMatchObject({ code: 'SEQUENCE_EXHAUSTED' })
    expect(await listAttachments(mock, token, 4)).toEqual([])
    await mock.request('POST', '/__mock/fixture', { json: (await import('../../fixtures/default.json', { with: { type: 'json' } })).default })
  })

  it('answers 400 for a body that is not multipart', async () => {
    const reply = await mock.request('POST', '/__mock/attachments', { json: { parentId: 2 } })
    expect(reply.status).toBe(400)
    expect(reply.body.detail).toContain('multipart/form-data')
  })
})

describe('folder downloads of attachments whose names step out of the folder', () => {
  const ctx = mockPerSuite()
  const download = (ids: number[]) => ctx.mock.post('/ExplorerApi/api/attachments/download', ctx.token, { ids })

  it('zips an uploaded folder named .. (and one named . inside it) with entry names that stay inside the archive', async () => {
    const outer = await upload(ctx.mock, form({ parentId: '2', folder: '..' }, [{ name: 'a.txt', bytes: 'a', type: 'text/plain' }]))
    expect(outer.status).toBe(201)
    const folderId = outer.body[0].Id as number
    const inner = await upload(ctx.mock, form({ parentId: '2', folderId: String(folderId), folder: '.' }, [{ name: 'b.txt', bytes: 'b', type: 'text/plain' }]))
    expect(inner.status).toBe(201)

    const folder = await download([folderId])
    expect(folder.status).toBe(200)
    expect((await unzip(folder.raw)).map((e) => [e.name, e.data.toString()])).toEqual([
      ['a.txt', 'a'],
      ['_/b.txt', 'b'],
    ])
    const both = await download([folderId, inner.body[0].Id as number])
    expect(both.status).toBe(200)
    expect((await unzip(both.raw)).map((e) => e.name)).toEqual(['__/a.txt', '__/_/b.txt', '_/b.txt'])
  })

  it('zips fixture attachments named ../x.txt, /etc/passwd and C:x.txt as names inside the archive', async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'))
    const base = { applicationId: IDS.applicationId, relationKey: null, parentId: 5, createdAt: '2024-03-06T11:20:00.000Z', userId: 1 }
    fixture.attachments.push(
      { ...base, id: 900, folderId: null, isFolder: true, name: '..' },
      { ...base, id: 901, folderId: 900, isFolder: false, name: '../x.txt', mediaType: 'text/plain', content: Buffer.from('x').toString('base64') },
      { ...base, id: 902, folderId: 900, isFolder: false, name: '/etc/passwd', mediaType: 'text/plain', content: Buffer.from('p').toString('base64') },
      { ...base, id: 903, folderId: 900, isFolder: false, name: 'C:x.txt', mediaType: 'text/plain', content: Buffer.from('c').toString('base64') },
    )
    expect((await ctx.mock.request('POST', '/__mock/fixture', { json: fixture })).status).toBe(200)
    const folder = await download([900])
    expect(folder.status).toBe(200)
    expect((await unzip(folder.raw)).map((e) => e.name)).toEqual(['.._x.txt', '_etc_passwd', 'C_x.txt'])
    const files = await download([901, 902])
    expect(files.status).toBe(200)
    expect((await unzip(files.raw)).map((e) => e.name)).toEqual(['.._x.txt', '_etc_passwd'])
  })
})
