/**
 * Usage files recorded the way a team records them, in the test itself: a mock of a release started
 * with `recordUsage`, and a client run against it. The client that uses every operation and variant
 * of a release is `verify --allow-writes` (every contract, writes included) plus the attachments of
 * detail rows, which its contracts do not read below 3.0.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMock } from '../../src/mock/mock.ts'
import { createClient, rowVersion } from '../../src/client/client.ts'
import { verify } from '../contracts/support.ts'
import { IDS } from '../helpers/http.ts'
import { ROOT, runInProcessToEnd, runToEnd, underMutation } from '../cli/processes.ts'
import type { UsageFile } from '../../src/usage-file/file.ts'

export const BIN = join(ROOT, 'bin/appdata-kit.js')
const DEFAULT_FIXTURE_FILE = join(ROOT, 'fixtures/default.json')

/** Who signs in where: the default fixture's, or a fixture of the test's own. */
export interface Connection {
  fixture?: string
  org: string
  username: string
  password: string
  workspaceId: string
  applicationId: string
  storageId: string
  actionId: string
}

export const DEFAULT_CONNECTION: Connection = {
  org: IDS.org,
  username: IDS.admin.username,
  password: IDS.admin.password,
  workspaceId: IDS.workspaceId,
  applicationId: IDS.applicationId,
  storageId: IDS.masterStorageId,
  actionId: IDS.actionFails,
}

/** A mock of `release` recording usage into `file`, for one run of `client`; the file is written when it stops. */
async function recording(file: string, release: string, connection: Connection, client: (url: string) => Promise<void>): Promise<void> {
  const mock = await startMock({
    port: 0,
    logLevel: 'silent',
    productVersion: release,
    recordUsage: file,
    ...(connection.fixture === undefined ? {} : { fixture: connection.fixture }),
  })
  try {
    await client(mock.url)
  } finally {
    await mock.close()
  }
}

/** A typed client of the connection's workspace and application, on `release`, signed in. */
async function signedIn(url: string, release: string, connection: Connection) {
  const client = createClient({
    transport: url,
    productVersion: release,
    organization: connection.org,
    workspaceId: connection.workspaceId,
    applicationId: connection.applicationId,
  })
  await client.signIn({ username: connection.username, password: connection.password })
  return client
}

/** Lists and downloads the fixture's file attached to a detail row (its relation key named), and a master row's. */
async function readAttachments(url: string, release: string, connection: Connection): Promise<void> {
  const fixture = JSON.parse(readFileSync(connection.fixture ?? DEFAULT_FIXTURE_FILE, 'utf8')) as {
    attachments: Array<{ id: number; parentId: number; relationKey: string | null; isFolder?: boolean }>
  }
  const client = await signedIn(url, release, connection)
  for (const relationKey of [null, 'OrderLines']) {
    const file = fixture.attachments.find((a) => a.relationKey === relationKey && a.isFolder !== true)
    if (file === undefined) throw new Error(`the fixture has no file attached to a ${relationKey ?? 'master'} row`)
    await client.attachments(file.parentId, relationKey === null ? {} : { relationKey })
    await client.download([file.id], relationKey ?? undefined)
  }
}

/**
 * Records the usage of a client that uses every operation and variant of `release`: verify with
 * writes allowed (its contracts sign in, read, count, save, delete, list and download, run an
 * action, queue an e-mail, link rows, reserve identities), then the attachments of detail rows.
 */
export async function recordFullUsage(file: string, release: string, connection: Connection = DEFAULT_CONNECTION): Promise<UsageFile> {
  await recording(file, release, connection, async (url) => {
    const flags = [
      '--base-url',
      url,
      '--org',
      connection.org,
      '--username',
      connection.username,
      '--password',
      connection.password,
      '--workspace-id',
      connection.workspaceId,
      '--application-id',
      connection.applicationId,
      '--relation-key',
      IDS.relationKey,
      '--allow-writes',
      '--email-to',
      'ops@example.test',
      '--action-id',
      connection.actionId,
      '--storage-id',
      connection.storageId,
      '--seed',
      '11',
      '--fuzz-runs',
      '5',
    ]
    const run = await verify(flags)
    if (run.code !== 0) throw new Error(`verify --allow-writes against the recording mock of ${release} ended ${run.code}:\n${run.out}\n${run.err}`)
    await readAttachments(url, release, connection)
  })
  return JSON.parse(readFileSync(file, 'utf8')) as UsageFile
}

/**
 * A client written for 2.9, as a team wrote it then, with nothing but `fetch` and the forms 2.9
 * takes: the legacy sign-in, Get Items by GET, the older delete body, the flag read as
 * `IsSaveSuccesfully`. It knows nothing of the release profiles, so a change of theirs changes what
 * the mocks answer it, never what it sends. It uses every operation and every variant of 2.9.
 */
async function client29(url: string): Promise<void> {
  const json = async (response: Response, what: string) => {
    if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`)
    const text = await response.text()
    return text === '' ? undefined : JSON.parse(text)
  }
  const refused = await fetch(`${url}/IntelligenceUserManagementService/UserManagementService.svc/Token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ userName: IDS.admin.username, password: 'wrong-pass', clientId: IDS.legacyClientId }),
  })
  if (refused.status !== 400) throw new Error(`a wrong password answered ${refused.status}`)
  const signIn = await json(
    await fetch(`${url}/IntelligenceUserManagementService/UserManagementService.svc/Token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }),
    }),
    'sign-in',
  )
  const headers = {
    'Content-Type': 'application/json',
    ApplicationId: IDS.applicationId,
    WorkspaceId: IDS.workspaceId,
    SessionToken: signIn.SessionToken as string,
  }
  // Get Items by GET, its options in the URL and no body (the description, Get Items, older variant).
  const get = async (query: string) =>
    json(
      await fetch(`${url}/ExplorerApi/api/items?${query}`, {
        headers: { ApplicationId: headers.ApplicationId, WorkspaceId: headers.WorkspaceId, SessionToken: headers.SessionToken },
      }),
      query,
    )
  const post = async (path: string, body: unknown, extra: Record<string, string> = {}) =>
    json(await fetch(`${url}${path}`, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) }), path)
  // The client's screens: lists of several sizes and orders, pages after the first, lists by status or amount, and counts.
  for (const top of [5, 10, 25]) for (const order of ['Customer asc', 'Amount desc', 'Id asc']) await get(`$top=${top}&$orderby=${encodeURIComponent(order)}`)
  for (const order of ['Customer asc', 'Id asc']) await get(`$top=10&$skip=10&$orderby=${encodeURIComponent(order)}`)
  for (const filter of ["Status eq 'Open'", "Status ne 'Closed'", 'Amount gt 1000', "Customer eq 'Northwind Traders'"]) {
    await get(`$filter=${encodeURIComponent(filter)}&$orderby=Amount%20desc&$top=5`)
    await get(`$inlinecount=allpages&$filter=${encodeURIComponent(filter)}`)
  }
  await get('$inlinecount=allpages')
  const created = await post('/ExplorerApi/api/items/save', {
    Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 120, Status: 'Open' }, Details: [] }],
  })
  // The flag is read, as the client reads it; the new row's Id is what the session goes on with.
  if (created.IsSaveSuccesfully === false || created.ReturnData?.PrimaryKeyData?.['-1'] === undefined)
    throw new Error(`the save was refused: ${JSON.stringify(created)}`)
  const id = Number(created.ReturnData.PrimaryKeyData['-1'].newKeys.Id)
  const [reserved] = await json(await fetch(`${url}/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/1`, { headers }), 'identities')
  const second = await post('/ExplorerApi/api/items/save', {
    Rows: [{ Row: { Id: -1, IdRow: reserved, TIMESTAMP: null, Customer: 'Globex', Amount: 80, Status: 'New' }, Details: [] }],
  })
  const [row] = await get(`$filter=${encodeURIComponent(`Id eq ${id}`)}`)
  const version = rowVersion(String(row.TIMESTAMP))
  await post('/ExplorerApi/api/items/save', { Rows: [{ Row: { Id: id, TIMESTAMP: version, Status: 'Closed' }, Details: [] }] })
  const [again] = await get(`$filter=${encodeURIComponent(`Id eq ${id}`)}`)
  const deleted = await post('/ExplorerApi/api/items/delete', [{ Rows: [{ Row: { Id: id, TIMESTAMP: rowVersion(String(again.TIMESTAMP)) }, Details: [] }] }])
  if (deleted.IsSaveSuccesfully === false) throw new Error(`the delete was refused: ${JSON.stringify(deleted)}`)
  const [secondRow] = await get(`$filter=${encodeURIComponent(`Id eq ${second.ReturnData.PrimaryKeyData['-1'].newKeys.Id}`)}`)
  await post('/ExplorerApi/api/items/delete', [{ Rows: [{ Row: { Id: secondRow.Id, TIMESTAMP: rowVersion(String(secondRow.TIMESTAMP)) }, Details: [] }] }])
  const fixture = JSON.parse(readFileSync(DEFAULT_FIXTURE_FILE, 'utf8')) as {
    attachments: Array<{ id: number; parentId: number; folderId: number | null; relationKey: string | null; isFolder?: boolean }>
  }
  for (const relationKey of [null, 'OrderLines']) {
    const file = fixture.attachments.find((a) => a.relationKey === relationKey && a.isFolder !== true && a.folderId === null)
    if (file === undefined) throw new Error(`the default fixture has no file of a ${relationKey ?? 'master'} row`)
    await json(
      await fetch(
        `${url}/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${file.parentId}`)}${relationKey === null ? '' : `&relationKey=${relationKey}`}`,
        { headers },
      ),
      'attachments',
    )
    const download = await fetch(`${url}/ExplorerApi/api/attachments/download`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ids: [file.id], rk: relationKey ?? '' }),
    })
    if (!download.ok) throw new Error(`download: ${download.status}`)
    await download.arrayBuffer()
  }
  const inFolder = fixture.attachments.find((a) => a.folderId !== null)
  if (inFolder !== undefined)
    await json(
      await fetch(`${url}/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${inFolder.parentId} and FolderId eq ${inFolder.folderId}`)}`, {
        headers,
      }),
      'folder',
    )
  await post('/ExplorerApi/api/action/run', { actionId: IDS.actionOk, parametersMap: [{ Name: 'ProcedureName', Value: 'usp_RecalculateTotals' }] })
  await post('/ExplorerApi/api/metadata/generaterowlink', { relationKey: null, values: 1, valueType: 1 })
  await post('/ExplorerApi/api/metadata/generaterowlink', { relationKey: null, values: [1, 2], valueType: 1 })
  const email = await fetch(`${url}/webaggregator/api/v1/email/queue`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', WorkspaceId: IDS.workspaceId, Authorization: `Bearer ${headers.SessionToken}` },
    body: JSON.stringify({ to: ['buyer@example.test'], subject: 'Order shipped', body: 'It left today.' }),
  })
  if (!email.ok) throw new Error(`e-mail: ${email.status}`)
}

/** Records the usage of the client written for 2.9 (every operation and variant of 2.9), against a mock of 2.9. */
export async function record29Client(file: string): Promise<UsageFile> {
  await recording(file, '2.9', DEFAULT_CONNECTION, client29)
  return JSON.parse(readFileSync(file, 'utf8')) as UsageFile
}

/** Records a session that reads, counts, creates and updates orders and reads attachments, and deletes nothing. */
export async function recordSessionWithoutDeletes(file: string, release: string): Promise<UsageFile> {
  await recording(file, release, DEFAULT_CONNECTION, async (url) => {
    const client = await signedIn(url, release, DEFAULT_CONNECTION)
    await client.rows({ top: 5, orderBy: 'Id asc' })
    await client.rows({ filter: "Status eq 'Open'", orderBy: 'Customer desc', top: 10 })
    await client.count({ filter: "Status eq 'Open'" })
    const saved = await client.save({
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 120, Status: 'Open' }, Details: [] }],
    })
    const id = Number(saved.result.ReturnData.PrimaryKeyData['-1']?.newKeys.Id)
    const [row] = await client.rows({ filter: `Id eq ${id}` })
    await client.save({ Rows: [{ Row: { Id: id, TIMESTAMP: rowVersion(String(row?.TIMESTAMP)), Status: 'Closed' }, Details: [] }] })
    await client.attachments(1)
  })
  return JSON.parse(readFileSync(file, 'utf8')) as UsageFile
}

/**
 * A fixture of the test's own: the default fixture with another organization, user, password,
 * workspace and application Ids, and the orders' `Customer` field named `Client`. A usage recorded
 * on it replays on the default fixture only in part.
 */
export function ownFixture(dir: string): { file: string; connection: Connection } {
  let text = readFileSync(DEFAULT_FIXTURE_FILE, 'utf8')
  const swaps: Array<[string, string]> = [
    ['a1b2c3d4-0000-4000-8000-00000000000', 'b7e1c2d3-2222-4222-9222-00000000000'],
    ['6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b7', '9a8b7c6d-1111-4111-a111-0000000000a'],
    ['"Customer"', '"Client"'],
    ['"acme"', '"globex"'],
    [IDS.admin.username, 'ops@globex.test'],
    [IDS.admin.password, 'globex-secret-pass'],
    [IDS.viewer.username, 'reader@globex.test'],
  ]
  for (const [from, to] of swaps) text = text.replaceAll(from, to)
  const fixture = JSON.parse(text) as { $schema?: string; attachments: Array<{ file?: string }> }
  delete fixture.$schema
  // The attachments' files stay the package's own.
  for (const attachment of fixture.attachments) if (attachment.file !== undefined) attachment.file = join(ROOT, 'fixtures', attachment.file)
  const file = join(dir, 'own-fixture.json')
  writeFileSync(file, JSON.stringify(fixture, null, 2))
  return {
    file,
    connection: {
      fixture: file,
      org: 'globex',
      username: 'ops@globex.test',
      password: 'globex-secret-pass',
      workspaceId: '9a8b7c6d-1111-4111-a111-0000000000a0',
      applicationId: 'b7e1c2d3-2222-4222-9222-000000000001',
      storageId: IDS.masterStorageId,
      actionId: IDS.actionFails,
    },
  }
}

/**
 * `appdata-kit upgrade` run from the built package, as a user runs it: exit code and output. Under
 * `npm run mutate` (underMutation, set by its vitest configuration) the command runs in
 * this process instead, from the sources: a mutant lives only in the process that runs the tests.
 */
export async function upgrade(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (underMutation()) {
    const { runUpgrade } = await import('../../src/commands/cli/upgrade.ts')
    return runInProcessToEnd((io) => runUpgrade(args, io))
  }
  return runToEnd(process.execPath, [BIN, 'upgrade', ...args])
}

/** The JSON report of `appdata-kit upgrade ... --format json`. */
export interface JsonReport {
  from: string
  to: string
  findings: Array<{
    kind: string
    operationId: string | string[]
    breaks: boolean
    shapes: number
    message: string
    now: Record<string, unknown>
    then: Record<string, unknown>
  }>
  ignored?: Array<{ kind: string; operationId: string | string[]; reason?: string }>
}

/** Runs upgrade with `--format json` and reads its report. */
export async function upgradeJson(args: string[]): Promise<{ code: number | null; report: JsonReport; stderr: string }> {
  const run = await upgrade([...args, '--format', 'json'])
  if (run.stdout.trim() === '') throw new Error(`upgrade wrote no report (exit ${run.code}): ${run.stderr}`)
  return { code: run.code, report: JSON.parse(run.stdout) as JsonReport, stderr: run.stderr }
}

/**
 * A usage of `n` interactions grown from a recorded one, as a large client's would be: its Get
 * Items shapes repeated, each copy with a page size of its own (so each is a shape of its own, as
 * the recorder keeps them), its other interactions once.
 */
export function grownUsage(recorded: UsageFile, n: number): UsageFile {
  const reads = recorded.interactions.filter(
    (i) => i.operation === 'queryItems' && i.request.query?.count !== true && Object.keys(i.answers).some((status) => status.startsWith('2')),
  )
  if (reads.length === 0) throw new Error('the recorded usage has no Get Items that was answered')
  const interactions = recorded.interactions.filter((i) => !reads.includes(i)).slice(0, n)
  for (let copy = 0; interactions.length < n; copy++) {
    const read = reads[copy % reads.length] as UsageFile['interactions'][number]
    interactions.push({ ...read, request: { ...read.request, query: { ...read.request.query, top: 1000 + Math.floor(copy / reads.length) } } })
  }
  return { appdataKitUsage: 1, interactions }
}

/** The median of three runs of `work`, in milliseconds. */
export async function medianOfThree(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let run = 0; run < 3; run++) {
    const start = performance.now()
    await work()
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[1] as number
}
