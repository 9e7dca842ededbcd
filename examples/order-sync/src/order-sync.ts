/**
 * order-sync: a small module as a team integrating with the Application Data Web API would write
 * it, with nothing but `fetch`. It signs in, pages through the open orders by Customer, reads their
 * lines, saves a new order with two lines, updates an order's status with its row version, and
 * downloads an order's invoice (a PDF: it refuses a file labelled otherwise).
 *
 * It knows the API only as its description shows it; its tests run it against the appdata-kit
 * mock, which records what it used, so that `appdata-kit verify --usage` can later check exactly
 * that against a real installation.
 */

export interface Connection {
  baseUrl: string
  organization: string
  clientId: string
  username: string
  password: string
  workspaceId: string
  applicationId: string
  /** The Detail Relation Key of the order lines. */
  linesKey: string
}

export interface Session {
  connection: Connection
  token: string
}

export interface Order {
  Id: number
  Customer: string
  Amount: number
  Status: string
  TIMESTAMP: string
}

export interface OrderLine {
  Id: number
  MasterId: number
  Product: string
  Quantity: number
  UnitPrice: number
}

export class OrderSyncError extends Error {
  override name = 'OrderSyncError'
}

async function expectOk(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new OrderSyncError(`${what}: ${response.status} ${await response.text()}`)
  return response
}

/** Sign in (current form, with the organization in the path): the session token. */
export async function signIn(connection: Connection): Promise<Session> {
  const form = new URLSearchParams({
    client_id: connection.clientId,
    username: connection.username,
    password: connection.password,
    grant_type: 'password',
    scope: 'openid apiv1 nosession',
  })
  const response = await fetch(`${connection.baseUrl}/identityprovider/${connection.organization}/connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  })
  const body = (await (await expectOk(response, 'sign-in')).json()) as { access_token: string }
  return { connection, token: body.access_token }
}

function headers(session: Session): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    ApplicationId: session.connection.applicationId,
    WorkspaceId: session.connection.workspaceId,
    SessionToken: session.token,
  }
}

async function items<T>(session: Session, query: string): Promise<T> {
  const response = await fetch(`${session.connection.baseUrl}/ExplorerApi/api/items`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ query }),
  })
  return (await (await expectOk(response, `Get Items ${query}`)).json()) as T
}

/** Every open order, ordered by Customer, read page by page. */
export async function openOrdersByCustomer(session: Session, pageSize = 10): Promise<Order[]> {
  const orders: Order[] = []
  for (let skip = 0; ; skip += pageSize) {
    const page = await items<Order[]>(session, `$filter=Status eq 'Open'&$orderby=Customer asc&$top=${pageSize}&$skip=${skip}`)
    orders.push(...page)
    if (page.length < pageSize) return orders
  }
}

/** The lines of one order. */
export function linesOf(session: Session, orderId: number): Promise<OrderLine[]> {
  return items<OrderLine[]>(session, `$filter=MasterId eq ${orderId}&relationKey=${session.connection.linesKey}`)
}

/** Saves a new order with its lines; the new order's Id. */
export async function createOrder(
  session: Session,
  order: { Customer: string; Amount: number },
  lines: Array<Omit<OrderLine, 'Id' | 'MasterId'>>,
): Promise<number> {
  const body = {
    Rows: [
      {
        Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: order.Customer, Amount: order.Amount, Status: 'Open' },
        Details: [{ RelationKey: session.connection.linesKey, Rows: lines.map((line, i) => ({ Id: -(i + 1), IdRow: null, TIMESTAMP: null, ...line })) }],
      },
    ],
  }
  const response = await fetch(`${session.connection.baseUrl}/ExplorerApi/api/items/save`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(body),
  })
  const result = (await (await expectOk(response, 'save')).json()) as {
    IsSaveSuccessfully: boolean
    ReturnStates: unknown[]
    ReturnData: { PrimaryKeyData: Record<string, { newKeys: Record<string, string> }> }
  }
  if (!result.IsSaveSuccessfully) throw new OrderSyncError(`the order was not saved: ${JSON.stringify(result.ReturnStates)}`)
  const keys = result.ReturnData.PrimaryKeyData['-1']?.newKeys ?? {}
  const id = Number(Object.values(keys)[0])
  if (!Number.isInteger(id)) throw new OrderSyncError('the save answered no Id for the new order')
  return id
}

/** The row version a read row carries (base64 of a big-endian integer) as the number a save takes. */
function rowVersion(timestamp: string): number {
  let value = 0
  for (const byte of Buffer.from(timestamp, 'base64')) value = value * 256 + byte
  return value
}

/** Changes an order's status: reads its row version, then saves only Id, TIMESTAMP and Status. */
export async function setStatus(session: Session, orderId: number, status: string): Promise<void> {
  const [order] = await items<Order[]>(session, `$filter=Id eq ${orderId}`)
  if (order === undefined) throw new OrderSyncError(`order ${orderId} not found`)
  const body = { Rows: [{ Row: { Id: orderId, TIMESTAMP: rowVersion(order.TIMESTAMP), Status: status }, Details: [] }] }
  const response = await fetch(`${session.connection.baseUrl}/ExplorerApi/api/items/save`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify(body),
  })
  const result = (await (await expectOk(response, 'status update')).json()) as { IsSaveSuccessfully: boolean; ReturnStates: unknown[] }
  if (!result.IsSaveSuccessfully) throw new OrderSyncError(`the status was not saved: ${JSON.stringify(result.ReturnStates)}`)
}

/** The invoice (the first PDF attached to the order) as bytes; refuses a file not labelled application/pdf. */
export async function downloadInvoice(session: Session, orderId: number): Promise<{ name: string; bytes: Buffer }> {
  const url = `${session.connection.baseUrl}/ExplorerApi/api/attachments?$filter=${encodeURIComponent(`ParentId eq ${orderId}`)}`
  const list = (await (await expectOk(await fetch(url, { headers: headers(session) }), 'attachments')).json()) as Array<{
    Id: number
    IsFolder: boolean
    Name: string
    TypeImage: string
  }>
  const invoice = list.find((record) => !record.IsFolder && record.TypeImage === 'application/pdf')
  if (invoice === undefined) throw new OrderSyncError(`order ${orderId} has no PDF invoice`)
  const response = await fetch(`${session.connection.baseUrl}/ExplorerApi/api/attachments/download`, {
    method: 'POST',
    headers: headers(session),
    body: JSON.stringify({ ids: [invoice.Id], rk: '' }),
  })
  await expectOk(response, 'download')
  // Our archive stores what the label says; a PDF labelled otherwise would be filed wrong.
  const type = response.headers.get('content-type') ?? ''
  if (!type.startsWith('application/pdf')) throw new OrderSyncError(`the invoice ${invoice.Name} came as ${type}, not application/pdf`)
  return { name: invoice.Name, bytes: Buffer.from(await response.arrayBuffer()) }
}

/** One sync run: every open order, by Customer, with its lines. */
export async function syncOpenOrders(session: Session, pageSize = 10): Promise<Array<{ order: Order; lines: OrderLine[] }>> {
  const out: Array<{ order: Order; lines: OrderLine[] }> = []
  for (const order of await openOrdersByCustomer(session, pageSize)) out.push({ order, lines: await linesOf(session, order.Id) })
  return out
}
