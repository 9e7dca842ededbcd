/**
 * The loop with a real foreign client: examples/order-sync (plain fetch) runs against a mock that
 * records its usage; `verify --usage` then passes against a faithful mock, fails against one that
 * ignores $orderby (naming the interaction), fails against one that mislabels downloads only when
 * the module downloads, and `coverage` names the operations the module never used.
 */
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startMock } from '../../src/mock/mock.ts'
import { createOrder, downloadInvoice, setStatus, signIn, syncOpenOrders } from '../../examples/order-sync/src/order-sync.ts'
import { IDS, startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { verify } from '../contracts/support.ts'
import { ROOT, runToEnd, startProcess, stopStarted } from '../cli/processes.ts'

const dir = sharedTempDir('appdata-kit-order-sync-')
const withDownload = join(dir, 'with-download.json')
const withoutDownload = join(dir, 'without-download.json')
afterEach(stopStarted)

/** One run of the module against a recording mock: the sync, a new order closed again, and the invoice if asked. */
async function record(file: string, invoice: boolean): Promise<void> {
  const mock = await startMock({ port: 0, logLevel: 'silent', recordUsage: file })
  try {
    const session = await signIn({
      baseUrl: mock.url,
      organization: IDS.org,
      clientId: IDS.clientId,
      username: IDS.admin.username,
      password: IDS.admin.password,
      workspaceId: IDS.workspaceId,
      applicationId: IDS.applicationId,
      linesKey: IDS.relationKey,
    })
    await syncOpenOrders(session, 4)
    const id = await createOrder(session, { Customer: 'Loop Test', Amount: 10 }, [
      { Product: 'A', Quantity: 1, UnitPrice: 4 },
      { Product: 'B', Quantity: 2, UnitPrice: 3 },
    ])
    await setStatus(session, id, 'Closed')
    if (invoice) await downloadInvoice(session, 1)
  } finally {
    await mock.close()
  }
}

beforeAll(async () => {
  await record(withDownload, true)
  await record(withoutDownload, false)
})

const flags = (url: string, file: string) => [
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
  '--usage',
  file,
]

async function verifyAgainst(file: string, deviate: string[] = []) {
  const mock = await startTestMock({ deviate })
  try {
    return await verify(flags(mock.url, file))
  } finally {
    await mock.close()
  }
}

describe('verify --usage with the usage of examples/order-sync', () => {
  it('passes against a fresh mock', async () => {
    const result = await verifyAgainst(withDownload)
    expect(result.code, result.out).toBe(0)
    expect(result.out).toMatch(/0 failed/)
  })

  it('fails against a mock started with --deviate ignore-orderby, naming the paging interaction (the command line, over HTTP)', async () => {
    const server = await startProcess(process.execPath, [join(ROOT, 'dist/src/mock/server.js'), '--port', '0', '--quiet', '--deviate', 'ignore-orderby'])
    const result = await runToEnd(process.execPath, [join(ROOT, 'bin/appdata-kit.js'), 'verify', ...flags(server.url as string, withDownload)])
    expect(result.code, result.stdout + result.stderr).toBe(1)
    expect(result.stdout).toContain(
      'FAIL Get Items on master rows, filter Status eq <string>, order by Customer asc, top 4, skip: the installation ignores the order',
    )
    expect(result.stdout).toContain('the installation would break the client')
    expect(result.stdout).not.toContain(IDS.admin.password)
  })

  it('against --deviate wrong-media-type fails when the module downloads, and passes with a usage recorded without the download', async () => {
    const downloads = await verifyAgainst(withDownload, ['wrong-media-type'])
    expect(downloads.code, downloads.out).toBe(1)
    expect(downloads.out).toContain('FAIL Download Attachment of a master row: the installation labels a application/pdf file application/octet-stream')
    expect(downloads.out.match(/^FAIL /gm)).toHaveLength(1)
    const noDownload = await verifyAgainst(withoutDownload, ['wrong-media-type'])
    expect(noDownload.code, noDownload.out).toBe(0)
  })

  it('replays the saves only with --allow-writes, on rows it creates and removes again, leaving the data as found', async () => {
    const mock = await startTestMock()
    try {
      const client = mock.client(await mock.signIn())
      const everyRow = async () =>
        JSON.stringify([await client.rows({ orderBy: 'Id asc' }), await client.rows({ orderBy: 'Id asc', relationKey: IDS.relationKey })])
      const before = await everyRow()
      const readOnly = await verify(flags(mock.url, withoutDownload))
      expect(readOnly.out).toMatch(/skipped 2: needs --allow-writes/)
      const writes = await verify([...flags(mock.url, withoutDownload), '--allow-writes'])
      expect(writes.code, writes.out).toBe(0)
      expect(writes.out).toMatch(/0 failed, 0 skipped/)
      expect(writes.out).toMatch(/cleanup: removed the \d+ row\(s\) this run created/)
      expect(await everyRow()).toBe(before)
    } finally {
      await mock.close()
    }
  })

  it('with --allow-writes fails against a mock that spells the success flag the older way, naming both saves as one cause', async () => {
    const mock = await startTestMock({ deviate: ['misspelled-flag'] })
    try {
      const result = await verify([...flags(mock.url, withoutDownload), '--allow-writes'])
      expect(result.code, result.out).toBe(1)
      expect(result.out).toContain('FAIL Save create OrderLines row, create master row: IsSaveSuccessfully is missing (the client received boolean)')
      // One cause, one FAIL line: the other save that meets it is named under it.
      expect(result.out).toContain('the same cause in 1 more interaction(s): Save update master row')
      expect(result.out.match(/^FAIL /gm)).toHaveLength(1)
    } finally {
      await mock.close()
    }
  })

  it('coverage names the operations the module never used', async () => {
    const result = await runToEnd(process.execPath, [join(ROOT, 'bin/appdata-kit.js'), 'coverage', withDownload, '--format', 'json'])
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(new Set(report.used)).toEqual(new Set(['signIn', 'queryItems', 'saveItems', 'listAttachments', 'downloadAttachment']))
    expect(new Set(report.unused)).toEqual(new Set(['deleteItems', 'runAction', 'sendEmail', 'generateRowLink', 'getIdentities']))
  })
})
