/**
 * The document is usable as a typed client contract: types generated from spec/openapi.json let a small
 * client sign in, query, save and delete without a single cast, and a wrongly shaped body fails to compile.
 * Everything is written to a temporary directory (removed afterwards) that links the project's node_modules.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import openapiTS, { astToString } from 'openapi-typescript'
import { run } from './support/run.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
let dir = ''

const tsconfig = (file: string) => ({
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: [],
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
  },
  files: [file],
})

const CLIENT = `import createClient from 'openapi-fetch'
import type { paths } from './schema'

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:4080' })

/** Row versions arrive as base64 of 8 big-endian bytes; save and delete take the integer. */
function rowVersion(text: string): number {
  let value = 0
  for (const char of atob(text)) value = value * 256 + char.charCodeAt(0)
  return value
}

export async function roundTrip(): Promise<boolean> {
  const signIn = await client.POST('/identityprovider/{organizationphysicalname}/connect/token', {
    params: { path: { organizationphysicalname: 'acme' } },
    body: { client_id: 'appdataapiv1', username: 'admin@acme.test', password: 'admin-pass', grant_type: 'password', scope: 'openid apiv1 nosession' },
    bodySerializer: (body) => new URLSearchParams(body).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })
  if (signIn.data === undefined) return false
  const header = {
    ApplicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
    SessionToken: signIn.data.access_token,
    WorkspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
  }

  const read = await client.POST('/ExplorerApi/api/items', { params: { header }, body: { query: "$top=1&$filter=Status eq 'Open'" } })
  if (read.data === undefined || !Array.isArray(read.data)) return false
  const row = read.data[0]
  if (row === undefined) return false
  const version = rowVersion(row.TIMESTAMP)

  const saved = await client.POST('/ExplorerApi/api/items/save', {
    params: { header },
    body: {
      Rows: [
        {
          Row: { Id: row.Id, TIMESTAMP: version, Status: 'Shipped' },
          Details: [{ RelationKey: 'OrderLines', Rows: [{ Id: -1, TIMESTAMP: null, IdRow: null, Product: 'Washer', Quantity: 10 }] }],
        },
      ],
    },
  })
  if (saved.data === undefined) return false
  const ok = 'IsSaveSuccessfully' in saved.data ? saved.data.IsSaveSuccessfully : saved.data.IsSaveSuccesfully
  const newKeys = 'ReturnData' in saved.data ? saved.data.ReturnData.PrimaryKeyData[String(row.Id)]?.newKeys : undefined
  const detailId = Number(newKeys?.['OrderLines:-1'] ?? '0')

  const deleted = await client.POST('/ExplorerApi/api/items/delete', {
    params: { header },
    body: [{ RelationKey: 'OrderLines', Rows: [{ Row: { Id: detailId, TIMESTAMP: 0 } }] }],
  })
  const count = await client.POST('/ExplorerApi/api/items', { params: { header }, body: { query: '$inlinecount=allpages' } })
  const total = count.data !== undefined && !Array.isArray(count.data) ? count.data.Items[0]?._FieldCount_ : undefined
  return ok && deleted.data !== undefined && total !== undefined
}
`

const BROKEN = `import createClient from 'openapi-fetch'
import type { paths } from './schema'

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:4080' })

export const call = client.POST('/ExplorerApi/api/items/save', {
  params: { header: { ApplicationId: 'a', SessionToken: 't', WorkspaceId: 'w' } },
  body: { Rows: 'x' },
})
`

async function compile(config: string) {
  return run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, config)], { cwd: dir, timeoutMs: 120_000 })
}

describe('typed client generated from spec/openapi.json', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'appdata-kit-typed-client-'))
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
    const ast = await openapiTS(new URL('../../spec/openapi.json', import.meta.url), { silent: true })
    writeFileSync(join(dir, 'schema.d.ts'), astToString(ast))
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n')
    writeFileSync(join(dir, 'client.ts'), CLIENT)
    writeFileSync(join(dir, 'broken.ts'), BROKEN)
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig('client.ts'), null, 2))
    writeFileSync(join(dir, 'tsconfig.broken.json'), JSON.stringify(tsconfig('broken.ts'), null, 2))
  }, 60_000)

  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it('the client file uses no casts', () => {
    expect(CLIENT).not.toMatch(/[\w)\]}]\s+as\s+(const|unknown|any|string|number|boolean|[A-Z{[(])/)
    expect(CLIENT).not.toMatch(/@ts-(ignore|expect-error|nocheck)/)
  })

  it('sign-in, query, save and delete compile under strict settings', async () => {
    const result = await compile('tsconfig.json')
    expect(result.stdout + result.stderr).toBe('')
    expect(result.code).toBe(0)
  }, 120_000)

  it('a body of the wrong shape does not compile', async () => {
    const result = await compile('tsconfig.broken.json')
    expect(result.code).not.toBe(0)
    expect(result.stdout).toMatch(/broken\.ts\(\d+,\d+\): error TS\d+/)
  }, 120_000)
})
