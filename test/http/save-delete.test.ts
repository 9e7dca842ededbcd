import { describe, expect, it } from 'vitest'
import { freshMockPerTest, IDS, rowVersion as version } from '../helpers/http.ts'

describe('Save and Delete, as the description walks through them', () => {
  const ctx = freshMockPerTest()

  const count = async (query = '$inlinecount=allpages') => (await ctx.mock.items(ctx.token, query)).body.Items[0]._FieldCount_ as number

  it('creates a master with details, updates it with the TIMESTAMP read before, then deletes it', async () => {
    const created = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [
        {
          Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 120.5, Status: 'Open' },
          Details: [
            {
              RelationKey: IDS.relationKey,
              Rows: [
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Stapler', Quantity: 2, UnitPrice: 60.25 },
                { Id: -2, IdRow: null, TIMESTAMP: null, Product: 'Paper', Quantity: 1, UnitPrice: 0 },
              ],
            },
          ],
        },
      ],
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], CreatedItems: 3, UpdatedItems: 0, RowIdentifier: 'IdRow' })
    const keys = created.body.ReturnData.PrimaryKeyData['-1'].newKeys
    const id = Number(keys.Id)
    expect(id).toBeGreaterThan(25)
    expect(Number(keys.IdRow)).toBeGreaterThan(0)
    expect(Object.keys(keys)).toEqual(expect.arrayContaining([`${IDS.relationKey}:-1`, `${IDS.relationKey}:-2`]))
    expect(created.body.MasterRowLink).toContain(`/${id}`)

    const [row] = (await ctx.mock.items(ctx.token, `$filter=Id eq ${id}`)).body
    expect(row).toMatchObject({ Id: id, Customer: 'Initech', Amount: 120.5, USER_ID_CREATION: 1 })
    const lines = (await ctx.mock.items(ctx.token, `$filter=MasterId eq ${id}&relationKey=${IDS.relationKey}`)).body
    expect(lines.map((l: { Product: string }) => l.Product).sort()).toEqual(['Paper', 'Stapler'])

    const updated = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [{ Row: { Id: id, TIMESTAMP: version(row.TIMESTAMP), Status: 'Shipped' }, Details: [] }],
    })
    expect(updated.body).toMatchObject({ IsSaveSuccessfully: true, UpdatedItems: 1, CreatedItems: 0 })
    const [after] = (await ctx.mock.items(ctx.token, `$filter=Id eq ${id}`)).body
    expect(after).toMatchObject({ Status: 'Shipped', Customer: 'Initech', Amount: 120.5 })
    expect(version(after.TIMESTAMP)).toBeGreaterThan(version(row.TIMESTAMP))

    const deleted = await ctx.mock.post('/ExplorerApi/api/items/delete', ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: id, TIMESTAMP: version(after.TIMESTAMP) } }] },
    ])
    expect(deleted.body).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [] })
    expect(deleted.body.DeletedItems).toBeGreaterThanOrEqual(1)
    expect((await ctx.mock.items(ctx.token, `$filter=Id eq ${id}`)).body).toEqual([])
    expect(await count(`$inlinecount=allpages&$filter=MasterId eq ${id}&relationKey=${IDS.relationKey}`)).toBe(0)
  })

  it('refuses a stale TIMESTAMP and writes nothing of the request', async () => {
    const [one, two] = (await ctx.mock.items(ctx.token, '$filter=Id le 2&$orderby=Id asc')).body
    const stale = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [
        { Row: { Id: 1, TIMESTAMP: version(one.TIMESTAMP), Status: 'Changed' }, Details: [] },
        { Row: { Id: 2, TIMESTAMP: version(two.TIMESTAMP) - 1, Status: 'Changed' }, Details: [] },
        { Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'New' }, Details: [] },
      ],
    })
    expect(stale.status).toBe(200)
    expect(stale.body.IsSaveSuccessfully).toBe(false)
    expect(stale.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'CONCURRENCY', Id: 2 })])
    expect(stale.body.CreatedItems).toBe(0)
    const [oneAfter] = (await ctx.mock.items(ctx.token, '$filter=Id eq 1')).body
    expect(oneAfter.Status).toBe(one.Status)
    expect(oneAfter.TIMESTAMP).toBe(one.TIMESTAMP)
    expect(await count()).toBe(25)
  })

  it('reports every problem of a request, one ReturnStates entry each', async () => {
    const [one] = (await ctx.mock.items(ctx.token, '$filter=Id eq 1')).body
    const reply = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [
        { Row: { Id: 999, TIMESTAMP: 1, Status: 'x' }, Details: [] },
        { Row: { Id: -1, IdRow: one.IdRow, TIMESTAMP: null, Customer: 'Dup' }, Details: [] },
        { Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Again' }, Details: [] },
      ],
    })
    expect(reply.body.IsSaveSuccessfully).toBe(false)
    const codes = reply.body.ReturnStates.map((s: { Code: string }) => s.Code).sort()
    expect(codes).toEqual(['DUPLICATE_KEY', 'DUPLICATE_TEMPORARY_ID', 'NOT_FOUND'])
    expect(await count()).toBe(25)
  })

  it('hands Identity values out in a block: one sent after the sequence gave it to a new row is taken, one sent ahead of it is stepped over', async () => {
    const save = (rows: unknown[]) => ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, { Rows: rows.map((Row) => ({ Row, Details: [] })) })
    const refused = await save([
      { Id: -1, IdRow: null, TIMESTAMP: null },
      { Id: -2, IdRow: 1026, TIMESTAMP: null },
    ])
    expect(refused.body.ReturnStates.map((s: { Code: string; Id: number }) => [s.Code, s.Id])).toEqual([['DUPLICATE_KEY', -2]])
    expect(await count()).toBe(25)
    const saved = await save([
      { Id: -1, IdRow: 1027, TIMESTAMP: null },
      { Id: -2, IdRow: null, TIMESTAMP: null },
      { Id: -3, IdRow: null, TIMESTAMP: null },
    ])
    const keys = saved.body.ReturnData.PrimaryKeyData
    expect([keys['-1'].newKeys.IdRow, keys['-2'].newKeys.IdRow, keys['-3'].newKeys.IdRow]).toEqual(['1027', '1026', '1028'])
  })

  it('keeps an explicit Identity value and adds a detail row under an existing master', async () => {
    const [five] = (await ctx.mock.items(ctx.token, '$filter=Id eq 5')).body
    const reply = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [
        { Row: { Id: -1, IdRow: 90_000, TIMESTAMP: null, Customer: 'Explicit' }, Details: [] },
        {
          Row: { Id: 5, TIMESTAMP: version(five.TIMESTAMP) },
          Details: [{ RelationKey: IDS.relationKey, Rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Extra', Quantity: 1, UnitPrice: 2 }] }],
        },
      ],
    })
    expect(reply.body.IsSaveSuccessfully).toBe(true)
    expect(reply.body.ReturnData.PrimaryKeyData['-1'].newKeys.IdRow).toBe('90000')
    const lines = (await ctx.mock.items(ctx.token, `$filter=MasterId eq 5&relationKey=${IDS.relationKey}`)).body
    expect(lines).toHaveLength(3)
    expect(lines.some((l: { Product: string }) => l.Product === 'Extra')).toBe(true)
  })

  it('deletes master and detail groups in one body, atomically', async () => {
    const [seven] = (await ctx.mock.items(ctx.token, '$filter=Id eq 7')).body
    const [line] = (await ctx.mock.items(ctx.token, `$filter=MasterId eq 8&relationKey=${IDS.relationKey}&$top=1`)).body
    const bad = await ctx.mock.post('/ExplorerApi/api/items/delete', ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: 7, TIMESTAMP: version(seven.TIMESTAMP) } }] },
      { RelationKey: IDS.relationKey, Rows: [{ Row: { Id: line.Id, TIMESTAMP: version(line.TIMESTAMP) + 1 } }] },
    ])
    expect(bad.body.IsSaveSuccessfully).toBe(false)
    expect(bad.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'CONCURRENCY', RelationKey: IDS.relationKey, Id: line.Id })])
    expect(await count()).toBe(25)
    const good = await ctx.mock.post('/ExplorerApi/api/items/delete', ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: 7, TIMESTAMP: version(seven.TIMESTAMP) } }] },
      { RelationKey: IDS.relationKey, Rows: [{ Row: { Id: line.Id, TIMESTAMP: version(line.TIMESTAMP) } }] },
    ])
    expect(good.body.IsSaveSuccessfully).toBe(true)
    expect(await count()).toBe(24)
    expect(await count(`$inlinecount=allpages&$filter=MasterId eq 8&relationKey=${IDS.relationKey}`)).toBe(1)
    const again = await ctx.mock.post('/ExplorerApi/api/items/delete', ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: 7, TIMESTAMP: version(seven.TIMESTAMP) } }] },
    ])
    expect(again.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'NOT_FOUND', Id: 7 })])
  })
})

describe('Get Identities', () => {
  const ctx = freshMockPerTest()

  it('reserves consecutive values that later saves never hand out', async () => {
    const reply = await ctx.mock.request('GET', `/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/5`, {
      headers: ctx.mock.dataHeaders(ctx.token),
    })
    expect(reply.status).toBe(200)
    const reserved = reply.body as number[]
    expect(reserved).toHaveLength(5)
    reserved.forEach((value, i) => expect(value).toBe(reserved[0]! + i))
    const saved = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [1, 2, 3].map((n) => ({ Row: { Id: -n, IdRow: null, TIMESTAMP: null, Customer: `C${n}` }, Details: [] })),
    })
    const given = Object.values(saved.body.ReturnData.PrimaryKeyData).map((v) => Number((v as { newKeys: { IdRow: string } }).newKeys.IdRow))
    expect(given).toHaveLength(3)
    for (const value of given) expect(reserved).not.toContain(value)
    const explicit = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, {
      Rows: [{ Row: { Id: -1, IdRow: reserved[0], TIMESTAMP: null, Customer: 'Mine' }, Details: [] }],
    })
    expect(explicit.body.IsSaveSuccessfully).toBe(true)
  })

  it.each([
    [`/ExplorerApi/api/storage/00000000-0000-4000-8000-000000000009/identity/IdRow/next/2`, 404],
    [`/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/Customer/next/2`, 404],
    [`/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/0`, 400],
    [`/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/many`, 400],
  ])('refuses %s with %i', async (path, status) => {
    const reply = await ctx.mock.request('GET', path, { headers: ctx.mock.dataHeaders(ctx.token) })
    expect(reply.status).toBe(status)
  })
})
