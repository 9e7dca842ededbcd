/** Helpers the control-plane tests share: rows read and changed over the API, uploads, raw requests. */
import { expect } from 'vitest'
import { conformanceProblems } from '../../contracts/conformance.ts'
import { IDS, rowVersion, type Reply, type TestClient } from '../helpers/http.ts'

/** One master row as Get Items answers it. */
export async function readMaster(mock: TestClient, token: string, id: number): Promise<Record<string, unknown>> {
  const reply = await mock.items(token, `$filter=Id eq ${id}`)
  expect(reply.status).toBe(200)
  expect(reply.body).toHaveLength(1)
  return reply.body[0] as Record<string, unknown>
}

/** The save body that changes one master row's Customer. */
export function customerChange(row: Record<string, unknown>, customer: string): unknown {
  return { Rows: [{ Row: { Id: row.Id, TIMESTAMP: rowVersion(String(row.TIMESTAMP)), Customer: customer }, Details: [] }] }
}

/** Changes a master row's Customer over the API and checks the save succeeded. */
export async function renameCustomer(mock: TestClient, token: string, id: number, customer: string): Promise<void> {
  const row = await readMaster(mock, token, id)
  const reply = await mock.post('/ExplorerApi/api/items/save', token, customerChange(row, customer))
  expect(reply.status).toBe(200)
  expect(reply.body.IsSaveSuccessfully).toBe(true)
}

/** Attachments of a master row at its top level (or in one folder), through the API. */
export async function listAttachments(mock: TestClient, token: string, parentId: number, folderId?: number): Promise<Array<Record<string, unknown>>> {
  const filter = folderId === undefined ? `ParentId eq ${parentId}` : `ParentId eq ${parentId} and FolderId eq ${folderId}`
  const reply = await mock.request('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(filter)}`, { headers: mock.dataHeaders(token) })
  expect(reply.status).toBe(200)
  return reply.body as Array<Record<string, unknown>>
}

/** POSTs a multipart form to the upload route; the reply is checked against the control-plane document. */
export async function upload(mock: TestClient, form: FormData, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(`${mock.url}/__mock/attachments`, { method: 'POST', body: form, headers, signal: AbortSignal.timeout(20_000) })
  const raw = Buffer.from(await response.arrayBuffer())
  const contentType = response.headers.get('content-type') ?? ''
  const body = /json/.test(contentType) ? JSON.parse(raw.toString('utf8')) : raw.toString('utf8')
  expect(
    conformanceProblems(mock.mock.config.productVersion, { method: 'POST', path: '/__mock/attachments', status: response.status, contentType, body }),
  ).toEqual([])
  return { status: response.status, headers: response.headers, contentType, body, raw }
}

/** A form with the given text fields and files. */
export function form(fields: Record<string, string>, files: Array<{ name: string; bytes: Uint8Array | string; type?: string }>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  for (const file of files) data.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name)
  return data
}

/** A JSON POST sent with fetch, for requests the test expects to fail at the socket. */
export function rawPost(mock: TestClient, path: string, headers: Record<string, string>, json: unknown): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(json),
    signal: AbortSignal.timeout(20_000),
  })
}

export { IDS }
