import { describe, expect, it } from 'vitest'
import { IDS, mockPerSuite } from '../helpers/http.ts'

describe('Get Items and Get Items Count', () => {
  const ctx = mockPerSuite()

  it('reads a page of master rows with every system field', async () => {
    const reply = await ctx.mock.items(ctx.token, '$top=200&$skip=0')
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(25)
    const first = reply.body[0]
    for (const field of [
      'Id',
      'CT_ATTACHMENTS',
      'DT_CREATION',
      'DT_LAST_UPDATE',
      'ROW_ORDER',
      'TIMESTAMP',
      'USER_ID_CREATION',
      'USER_ID_LAST_UPDATE',
      'IdRow',
      'Customer',
      'Amount',
      'Status',
    ]) {
      expect(first).toHaveProperty(field)
    }
    expect(Buffer.from(first.TIMESTAMP, 'base64')).toHaveLength(8)
  })

  it('pages with $top and $skip and orders by several fields', async () => {
    const all = (await ctx.mock.items(ctx.token, '$orderby=Status asc,Id desc')).body as Array<{ Id: number; Status: string }>
    const sorted = [...all].sort((a, b) => (a.Status < b.Status ? -1 : a.Status > b.Status ? 1 : b.Id - a.Id))
    expect(all.map((r) => r.Id)).toEqual(sorted.map((r) => r.Id))
    const page = (await ctx.mock.items(ctx.token, '$orderby=Status asc,Id desc&$top=5&$skip=3')).body as Array<{ Id: number }>
    expect(page.map((r) => r.Id)).toEqual(sorted.slice(3, 8).map((r) => r.Id))
  })

  it('filters with the documented language, percent-encoded or not', async () => {
    const all = (await ctx.mock.items(ctx.token, '')).body as Array<{ Id: number; Amount: number; Status: string; Customer: string }>
    const expected = all.filter((r) => (r.Amount > 500 && r.Status !== 'Closed') || r.Id === 1).map((r) => r.Id)
    const text = "(Amount gt '500' and not Status eq 'Closed') or Id eq 1"
    const plain = (await ctx.mock.items(ctx.token, `$filter=${text}`)).body as Array<{ Id: number }>
    const encoded = (await ctx.mock.items(ctx.token, `$filter=${encodeURIComponent(text)}`)).body as Array<{ Id: number }>
    expect(plain.map((r) => r.Id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b))
    expect(encoded.map((r) => r.Id)).toEqual(plain.map((r) => r.Id))
    const first = all[0]
    expect(first).toBeDefined()
    const starts = (await ctx.mock.items(ctx.token, `$filter=startswith(Customer,'${first!.Customer.slice(0, 3)}')`)).body as Array<{ Customer: string }>
    expect(starts.length).toBeGreaterThan(0)
    for (const row of starts) expect(row.Customer.startsWith(first!.Customer.slice(0, 3))).toBe(true)
  })

  it('reads + in the query text as a space, as %20 is read, and %2B as a plus (form-encoded parameters)', async () => {
    const [first] = (await ctx.mock.items(ctx.token, '$filter=Id eq 1')).body as Array<{ Customer: string }>
    const customer = first!.Customer
    expect(customer).toContain(' ')
    const byPercent = (await ctx.mock.items(ctx.token, `$filter=Customer%20eq%20'${customer.replaceAll(' ', '%20')}'`)).body as Array<{ Id: number }>
    const byPlus = await ctx.mock.items(ctx.token, `$filter=Customer+eq+'${customer.replaceAll(' ', '+')}'&$orderby=Id+desc`)
    expect(byPercent.map((r) => r.Id)).toContain(1)
    expect(byPlus.status).toBe(200)
    expect((byPlus.body as Array<{ Id: number }>).map((r) => r.Id)).toEqual([...byPercent.map((r) => r.Id)].sort((a, b) => b - a))
    // A literal plus is %2B: no customer has one, so nothing matches, and nothing is refused.
    const plus = await ctx.mock.items(ctx.token, `$filter=Customer eq '${customer.replaceAll(' ', '%2B')}'`)
    expect(plus.status).toBe(200)
    expect(plus.body).toEqual([])
  })

  it('counts with $inlinecount=allpages, filters and relation keys', async () => {
    const masters = await ctx.mock.items(ctx.token, '$inlinecount=allpages')
    expect(masters.body.Items).toEqual([{ _FieldCount_: 25 }])
    expect(Number.isInteger(masters.body.Timestamp)).toBe(true)
    const open = (await ctx.mock.items(ctx.token, "$filter=Status eq 'Open'")).body.length
    expect((await ctx.mock.items(ctx.token, "$inlinecount=allpages&$filter=Status eq 'Open'")).body.Items[0]._FieldCount_).toBe(open)
    expect((await ctx.mock.items(ctx.token, `$inlinecount=allpages&relationKey=${IDS.relationKey}`)).body.Items[0]._FieldCount_).toBe(50)
  })

  it('reads detail rows by relation key, filtered by MasterId', async () => {
    const reply = await ctx.mock.items(ctx.token, `$filter=MasterId eq '3'&relationKey=${IDS.relationKey}`)
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(2)
    for (const row of reply.body) {
      expect(row.MasterId).toBe(3)
      expect(row).toHaveProperty('Product')
      expect(row).toHaveProperty('TIMESTAMP')
    }
  })

  it.each([
    ['an unknown operator', "$filter=Status like 'O%'", 400, 'BAD_FILTER'],
    ['an unclosed quote', "$filter=Status eq 'Open", 400, 'BAD_FILTER'],
    ['an unknown field', "$filter=Colour eq 'red'", 400, 'UNKNOWN_FIELD'],
    ['an unknown order field', '$orderby=Colour desc', 400, 'UNKNOWN_FIELD'],
    ['a bad $top', '$top=-1', 400, 'BAD_QUERY'],
    ['a value-less known option', '$top&$skip=1', 400, 'BAD_QUERY'],
    ['an unknown relation key', '$top=1&relationKey=Invoices', 404, 'UNKNOWN_RELATION_KEY'],
  ])('refuses %s with a problem that says what', async (_name, query, status, code) => {
    const reply = await ctx.mock.items(ctx.token, query)
    expect(reply.status).toBe(status)
    expect(reply.body.code).toBe(code)
    expect(reply.body.detail).toMatch(/\w{4,}/)
  })

  it('refuses a body without query with a 400 naming the field', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/items', ctx.token, { top: 5 })
    expect(reply.status).toBe(400)
    expect(reply.body.violations.map((v: { pointer: string }) => v.pointer)).toContain('/body/query')
  })
})
