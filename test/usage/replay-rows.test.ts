/**
 * The rows a replayed Save sends (src/commands/usage/replay-rows.ts), the one builder under
 * `verify --usage --allow-writes` and `upgrade`: each rule of a recorded kind of row against a
 * source of the test's own, whose reads are recorded. Both commands drive it end to end in
 * test/usage/verify-usage.test.ts and test/upgrade/upgrade.test.ts.
 */
import { describe, expect, it } from 'vitest'
import type { ReadRow } from '../../src/client/client.ts'
import { freeIdentity, rowValues, saveBody, Skip, UNREAD_IDENTITY, valueOfType, type RowSource, type SaveBody } from '../../src/commands/usage/replay-rows.ts'
import type { RowKind } from '../../src/usage-file/request-shape.ts'

/** A version as a row reads it (the client's rowVersion reads it back as 7). */
const VERSION = 'AAAAAAAAAAc='

interface Tables {
  master: ReadRow[]
  lines?: ReadRow[]
}

/** A source over tables of the test's own: rows sorted and filtered as asked, the Identity field `Code`, lines linked by `MasterId`. */
function source(tables: Tables, missing: RowSource['missing'] = (_table, name) => `missing ${name}`) {
  const reads: string[] = []
  const it: RowSource = {
    async rows(relationKey, { top, orderBy, filter }) {
      reads.push(`${relationKey ?? 'master'} top ${top}${orderBy === undefined ? '' : ` ${orderBy}`}${filter === undefined ? '' : ` ${filter}`}`)
      let rows = [...((relationKey === null ? tables.master : tables.lines) ?? [])]
      // As a table without an order reads: in the order rows were kept.
      if (filter !== undefined) rows = rows.filter((row) => `Id eq ${String(row.Id)}` === filter)
      if (orderBy !== undefined) {
        const [field = 'Id', direction] = orderBy.split(' ')
        rows.sort((a, b) => (Number(a[field]) - Number(b[field])) * (direction === 'desc' ? -1 : 1))
      }
      return rows.slice(0, top)
    },
    identityField: (relationKey) => (relationKey === null ? 'Code' : 'LineCode'),
    linkFields: (_relationKey, rows) => (rows[0] !== undefined && 'MasterId' in rows[0] ? ['MasterId'] : []),
    missing,
  }
  return { source: it, reads }
}

/** A row of the test's tables (rows of an application have any fields). */
const row = (fields: Record<string, unknown>) => fields as ReadRow
const master = (Id: number, Code: number, Name = `row ${Id}`) => row({ Id, TIMESTAMP: VERSION, Code, Name, Amount: 5, Tags: ['a'] })
const line = (Id: number, MasterId: number, LineCode: number) => row({ Id, TIMESTAMP: VERSION, MasterId, LineCode, Quantity: 2 })

const kind = (action: RowKind['action'], fields: Record<string, string>, table: string | null = null): RowKind => ({ table, action, fields })

describe('valueOfType', () => {
  it('gives a value of the first recorded type that is not absent or null, a text for a type it does not know', () => {
    const cases: Array<[string, unknown]> = [
      ['integer', 1],
      ['temporary', 1],
      ['number', 1.5],
      ['boolean', true],
      ['guid', '00000000-0000-4000-8000-000000000000'],
      ['email', 'upgrade-check@example.test'],
      ['date', '2026-01-05'],
      ['date-time', '2026-01-05T09:00:00Z'],
      ['uri', 'https://example.test/'],
      ['array', []],
      ['object', {}],
      ['string', 'x'],
      ['absent|null|boolean', true],
      ['null', 'x'],
    ]
    for (const [type, value] of cases) expect([type, valueOfType(type)]).toEqual([type, value])
  })
})

describe('freeIdentity', () => {
  it('is one above the largest value the table reads now, read as the largest first', async () => {
    const { source: s, reads } = source({ master: [master(1, 40), master(2, 977), master(3, 12)] })
    expect(await freeIdentity(s, 'Code', null)).toBe(978)
    expect(reads).toEqual(['master top 1 Code desc'])
  })

  it('is far above any fixture value when the table reads no row, or no whole number', async () => {
    expect(await freeIdentity(source({ master: [] }).source, 'Code', null)).toBe(UNREAD_IDENTITY)
    expect(await freeIdentity(source({ master: [row({ Id: 1, Code: 'A-1' })] }).source, 'Code', null)).toBe(UNREAD_IDENTITY)
    expect(await freeIdentity(source({ master: [row({ Id: 1, Code: 2 ** 53 })] }).source, 'Code', null)).toBe(UNREAD_IDENTITY)
  })
})

describe('rowValues', () => {
  const rows = [master(1, 10, 'Ada'), master(2, 30)]

  it("copies the template row's plain values, never Id, TIMESTAMP or a field left out", async () => {
    const values = await rowValues(
      source({ master: rows }).source,
      kind('update', { Id: 'integer', TIMESTAMP: 'string', Name: 'string', Amount: 'number', MasterId: 'integer' }),
      [rows[0] as ReadRow],
      ['MasterId'],
    )
    expect(values).toEqual({ Name: 'Ada', Amount: 5 })
  })

  it('copies a text, a number and a boolean alike', async () => {
    const flagged = [row({ Id: 1, TIMESTAMP: VERSION, Name: 'Ada', Amount: 0, Paid: false })]
    expect(await rowValues(source({ master: flagged }).source, kind('update', { Name: 'string', Amount: 'number', Paid: 'boolean' }), flagged)).toEqual({
      Name: 'Ada',
      Amount: 0,
      Paid: false,
    })
  })

  it('sends null where the client sent null, whatever the row holds', async () => {
    expect(await rowValues(source({ master: rows }).source, kind('update', { Name: 'null' }), rows)).toEqual({ Name: null })
  })

  it('gives a new row an Identity value no row holds when the client sent one, null when it sent null, nothing when it sometimes left it out', async () => {
    const { source: s } = source({ master: rows })
    expect(await rowValues(s, kind('create', { Code: 'integer', Name: 'string' }), rows)).toEqual({ Code: 31, Name: 'Ada' })
    expect(await rowValues(s, kind('create', { Code: 'null|integer' }), rows)).toEqual({ Code: null })
    expect(await rowValues(s, kind('create', { Code: 'integer|absent' }), rows)).toEqual({})
  })

  it('copies the Identity field of a row updated as it reads (the value is the row’s own)', async () => {
    expect(await rowValues(source({ master: rows }).source, kind('update', { Code: 'integer' }), rows)).toEqual({ Code: 10 })
  })

  it('sends a field the client sent only sometimes (the release or installation must still take it)', async () => {
    expect(await rowValues(source({ master: rows }).source, kind('create', { Name: 'string|absent' }), rows)).toEqual({ Name: 'Ada' })
  })

  it('asks the source for a value the template lacks or holds as more than a value: its answer, null for more than a value, nothing for undefined', async () => {
    const asked: string[] = []
    const { source: s } = source({ master: rows }, (table, name, type, template) => {
      asked.push(`${table ?? 'master'} ${name} ${type} ${String(template?.Id)}`)
      return name === 'Colour' ? 'red' : name === 'Size' ? { big: true } : undefined
    })
    const values = await rowValues(s, kind('update', { Colour: 'string', Size: 'string', Gone: 'integer', Tags: 'array', Name: 'string' }), rows)
    expect(values).toEqual({ Colour: 'red', Size: null, Name: 'Ada' })
    expect(asked).toEqual(['master Colour string 1', 'master Size string 1', 'master Gone integer 1', 'master Tags array 1'])
  })

  it('asks the source for every field when the table reads no row', async () => {
    const values = await rowValues(source({ master: [] }).source, kind('create', { Name: 'string', Code: 'integer' }), [])
    expect(values).toEqual({ Name: 'missing Name', Code: UNREAD_IDENTITY })
  })
})

describe('saveBody', () => {
  // Kept out of Id order: what is read first is what the order asked for.
  const tables = (): Tables => ({ master: [master(9, 30), master(4, 10, 'Ada')], lines: [line(71, 4, 501), line(70, 9, 500)] })

  it('creates a master row with its detail rows, their link to the master left to the service', async () => {
    const { source: s, reads } = source(tables())
    const body = await saveBody(s, [
      kind('create', { Id: 'temporary', Code: 'null', Name: 'string' }),
      kind('create', { Id: 'temporary', LineCode: 'integer', MasterId: 'integer', Quantity: 'integer' }, 'Lines'),
    ])
    expect(body).toEqual({
      Rows: [
        {
          Row: { Id: -1, TIMESTAMP: null, Code: null, Name: 'Ada' },
          Details: [{ RelationKey: 'Lines', Rows: [{ Id: -1, TIMESTAMP: null, LineCode: 502, Quantity: 2 }] }],
        },
      ],
    })
    // Masters read first in Id order (the template is the first); a sample of the detail table for its values and links.
    expect(reads).toEqual(['master top 50 Id asc', 'Lines top 20', 'Lines top 1 LineCode desc'])
  })

  it('sends a new master row and an update of an existing one in one body, the new detail rows only under the new master', async () => {
    const body = await saveBody(source(tables()).source, [
      kind('create', { Name: 'string' }),
      kind('update', { Name: 'string' }),
      kind('create', { MasterId: 'integer', Quantity: 'integer' }, 'Lines'),
    ])
    expect(body).toEqual({
      Rows: [
        { Row: { Id: -1, TIMESTAMP: null, Name: 'Ada' }, Details: [{ RelationKey: 'Lines', Rows: [{ Id: -1, TIMESTAMP: null, Quantity: 2 }] }] },
        { Row: { Id: 4, TIMESTAMP: 7, Name: 'Ada' }, Details: [] },
      ],
    })
  })

  it('puts new detail rows alone under the first master row, linked by its Id only where the client sent the link', async () => {
    const linked = await saveBody(source(tables()).source, [kind('create', { MasterId: 'integer', Quantity: 'integer' }, 'Lines')])
    expect(linked).toEqual({
      Rows: [{ Row: { Id: 4, TIMESTAMP: 7 }, Details: [{ RelationKey: 'Lines', Rows: [{ Id: -1, TIMESTAMP: null, Quantity: 2, MasterId: 4 }] }] }],
    })
    const unlinked = await saveBody(source(tables()).source, [kind('create', { Quantity: 'integer' }, 'Lines')])
    expect(unlinked).toEqual({
      Rows: [{ Row: { Id: 4, TIMESTAMP: 7 }, Details: [{ RelationKey: 'Lines', Rows: [{ Id: -1, TIMESTAMP: null, Quantity: 2 }] }] }],
    })
  })

  it('updates the master row named, with the version read again and new detail rows linked by its Id', async () => {
    const { source: s, reads } = source(tables())
    const body = await saveBody(
      s,
      [
        kind('update', { Id: 'integer', TIMESTAMP: 'string', Name: 'string' }),
        kind('create', { LineCode: 'null', MasterId: 'integer', Quantity: 'integer' }, 'Lines'),
      ],
      9,
    )
    expect(body).toEqual({
      Rows: [
        {
          Row: { Id: 9, TIMESTAMP: 7, Name: 'row 9' },
          Details: [{ RelationKey: 'Lines', Rows: [{ Id: -1, TIMESTAMP: null, LineCode: null, Quantity: 2, MasterId: 9 }] }],
        },
      ],
    })
    expect(reads).toContain('master top 1 Id eq 9')
  })

  it('updates a detail row under its own master, and the first master row when none is named', async () => {
    const body = await saveBody(source(tables()).source, [kind('update', { Quantity: 'integer' }, 'Lines')])
    expect(body).toEqual({
      Rows: [{ Row: { Id: 9, TIMESTAMP: 7 }, Details: [{ RelationKey: 'Lines', Rows: [{ Id: 70, TIMESTAMP: 7, Quantity: 2 }] }] }],
    })
    const plain = await saveBody(source(tables()).source, [kind('update', { Name: 'string' })])
    expect(plain).toEqual({ Rows: [{ Row: { Id: 4, TIMESTAMP: 7, Name: 'Ada' }, Details: [] }] })
  })

  it('keeps the master row named, and the first one when the detail row updated holds no whole-number link', async () => {
    const named = await saveBody(source(tables()).source, [kind('update', { Quantity: 'integer' }, 'Lines')], 4)
    expect((named as SaveBody).Rows[0]?.Row.Id).toBe(4)
    const odd = { master: [master(4, 10)], lines: [row({ Id: 70, TIMESTAMP: VERSION, MasterId: 'nine', Quantity: 2 })] }
    const unlinked = await saveBody(source(odd).source, [kind('update', { Quantity: 'integer' }, 'Lines')])
    expect((unlinked as SaveBody).Rows[0]?.Row.Id).toBe(4)
    const linkless = { master: [master(4, 10), master(9, 30)], lines: [row({ Id: 70, TIMESTAMP: VERSION, Owner: 9, Quantity: 2 })] }
    const noLink = await saveBody(source(linkless).source, [kind('update', { Quantity: 'integer' }, 'Lines')])
    expect((noLink as SaveBody).Rows[0]?.Row.Id).toBe(4)
  })

  it('sends a new master row beside a detail row updated under an existing one', async () => {
    const body = await saveBody(source(tables()).source, [kind('create', { Name: 'string' }), kind('update', { Quantity: 'integer' }, 'Lines')])
    expect(body).toEqual({
      Rows: [
        { Row: { Id: -1, TIMESTAMP: null, Name: 'Ada' }, Details: [] },
        { Row: { Id: 9, TIMESTAMP: 7 }, Details: [{ RelationKey: 'Lines', Rows: [{ Id: 70, TIMESTAMP: 7, Quantity: 2 }] }] },
      ],
    })
  })

  it('sends a create alone when the client sent no update', async () => {
    const body = await saveBody(source(tables()).source, [kind('create', { Name: 'string' })])
    expect((body as { Rows: unknown[] }).Rows).toHaveLength(1)
  })

  it('says why when there is no row to update or it cannot be read back', async () => {
    expect(await saveBody(source({ master: [] }).source, [kind('update', { Name: 'string' })])).toEqual(new Skip('there is no master row to update'))
    expect(await saveBody(source(tables()).source, [kind('update', { Name: 'string' })], 12)).toEqual(new Skip('master row 12 cannot be read back'))
    expect(await saveBody(source({ master: [master(1, 1)], lines: [] }).source, [kind('update', { Quantity: 'integer' }, 'Lines')])).toEqual(
      new Skip('there is no Lines row to update'),
    )
  })
})
