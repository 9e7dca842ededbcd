/**
 * order-sync's own tests, as the team runs them in its unit-test job: against the appdata-kit mock,
 * which records what the module used (`recordUsage`). The usage file is written when the mock
 * stops; CI keeps it, and a nightly job checks a staging installation against it with
 * `appdata-kit verify --usage` (see docs/usage.md).
 */
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startMock, type RunningMock } from 'appdata-kit'
import {
  createOrder,
  downloadInvoice,
  linesOf,
  openOrdersByCustomer,
  setStatus,
  signIn,
  syncOpenOrders,
  type Connection,
  type Session,
} from '../src/order-sync.ts'

/** Where the usage goes: ORDER_SYNC_USAGE in CI (kept as an artifact), a temporary file otherwise. */
const usageFile = process.env.ORDER_SYNC_USAGE ?? join(tmpdir(), `order-sync-usage-${process.pid}.json`)

let mock: RunningMock
let session: Session

beforeAll(async () => {
  mock = await startMock({ port: 0, logLevel: 'silent', recordUsage: usageFile })
  const connection: Connection = {
    baseUrl: mock.url,
    organization: 'acme',
    clientId: 'appdataapiv1',
    username: 'admin@acme.test',
    password: 'admin-pass',
    workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
    applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
    linesKey: 'OrderLines',
  }
  session = await signIn(connection)
})
// Every test starts from the default fixture; the usage keeps growing across resets.
beforeEach(() => {
  mock.reset()
})
afterAll(async () => {
  await mock.close()
  // Kept only where CI asked for it.
  if (process.env.ORDER_SYNC_USAGE === undefined) rmSync(usageFile, { force: true })
})

describe('order-sync', () => {
  it('pages through every open order, ordered by Customer', async () => {
    const orders = await openOrdersByCustomer(session, 4)
    expect(orders.length).toBeGreaterThan(4)
    expect(orders.every((order) => order.Status === 'Open')).toBe(true)
    const customers = orders.map((order) => order.Customer)
    expect(customers).toEqual([...customers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    expect(new Set(orders.map((order) => order.Id)).size).toBe(orders.length)
  })

  it('reads the lines of each open order', async () => {
    const synced = await syncOpenOrders(session, 4)
    expect(synced.length).toBeGreaterThan(0)
    for (const { order, lines } of synced) expect(lines.every((line) => line.MasterId === order.Id)).toBe(true)
  })

  it('saves a new order with two lines, then closes it with its row version', async () => {
    const id = await createOrder(session, { Customer: 'Order Sync Test', Amount: 42.5 }, [
      { Product: 'Widget', Quantity: 2, UnitPrice: 10 },
      { Product: 'Gadget', Quantity: 1, UnitPrice: 22.5 },
    ])
    const lines = await linesOf(session, id)
    expect(lines.map((line) => line.Product).sort()).toEqual(['Gadget', 'Widget'])
    await setStatus(session, id, 'Closed')
    expect((await openOrdersByCustomer(session)).some((order) => order.Id === id)).toBe(false)
  })

  it('downloads the invoice of order 1 as a PDF', async () => {
    const invoice = await downloadInvoice(session, 1)
    expect(invoice.name).toBe('invoice.pdf')
    expect(invoice.bytes.subarray(0, 4).toString()).toBe('%PDF')
  })

  it('leaves a usage record of what it used, without its password', () => {
    const usage = mock.usage()
    expect(new Set(usage.interactions.map((interaction) => interaction.operation))).toEqual(
      new Set(['signIn', 'queryItems', 'saveItems', 'listAttachments', 'downloadAttachment']),
    )
    expect(JSON.stringify(usage)).not.toContain('admin-pass')
  })
})
