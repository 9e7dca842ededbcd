/** Get Items and Get Items Count: rows, paging, order, filters, counts and row versions. */
import { RANGES } from '../spec/versions.ts'
import { ApiError, rowVersion, type ReadRow } from '../src/client/client.ts'
import { idsOf, shown, UNKNOWN_RELATION_KEY } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

const isInteger = (value: unknown): boolean => Number.isSafeInteger(value)

export const rowsDocumented: Contract = {
  id: 'items.rows-documented',
  title: 'Get Items answers an array of rows, each with its Id (an integer) and the system fields',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'id-as-text',
  statements: ['items.read', 'items.legacy-get', 'resources.row-fields', 'service.json'],
  data: 'the first 20 master rows by Id (by the older GET form for releases before 3.0), every row held to the system fields and an integer Id',
  async run(ctx: ContractContext) {
    const rows = await ctx.facts.masters(ctx.client)
    ctx.require(Array.isArray(rows), { expected: 'an array of rows', received: ctx.show(rows) })
    for (const row of rows) {
      if (!ctx.check(isInteger(row.Id), { expected: 'Id as an integer', received: shown(row.Id) })) break
      const missing = ['TIMESTAMP', 'CT_ATTACHMENTS', 'DT_CREATION', 'DT_LAST_UPDATE', 'ROW_ORDER', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE'].filter(
        (f) => !(f in row),
      )
      if (!ctx.check(missing.length === 0, { expected: 'every system field on every row', received: `row ${row.Id} lacks ${missing.join(', ')}` })) break
    }
  },
}

export const topLimits: Contract = {
  id: 'items.top-limits',
  title: '$top returns at most that many rows, and exactly that many when there are more',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-top',
  statements: ['items.top'],
  data: '$top=1 and $top=3 over the master rows ordered by Id',
  async run(ctx: ContractContext) {
    const total = (await ctx.facts.masters(ctx.client)).length
    for (const top of [1, 3]) {
      const rows = await ctx.client.rows({ top, orderBy: 'Id asc' })
      ctx.check(rows.length === Math.min(top, total), { expected: `${Math.min(top, total)} rows for $top=${top}`, received: `${rows.length} rows` })
    }
  },
}

export const pagingPartitions: Contract = {
  id: 'items.paging-partitions',
  title: 'Pages of $top and $skip over one order partition the rows: together the first rows, none twice',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-skip',
  statements: ['items.skip'],
  data: '$top=3 at $skip=0 and $skip=3 beside $top=6, ordered by Id',
  async run(ctx: ContractContext) {
    const all = idsOf(await ctx.client.rows({ top: 6, orderBy: 'Id asc' }))
    const pages = [
      ...idsOf(await ctx.client.rows({ top: 3, skip: 0, orderBy: 'Id asc' })),
      ...idsOf(await ctx.client.rows({ top: 3, skip: 3, orderBy: 'Id asc' })),
    ]
    ctx.check(JSON.stringify(pages) === JSON.stringify(all), { expected: `pages $skip=0 and $skip=3 of 3 rows to be ${shown(all)}`, received: shown(pages) })
  },
}

export const order: Contract = {
  id: 'items.order',
  title: '$orderby Id asc and Id desc answer rows in ascending and descending order',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-orderby',
  statements: ['items.orderby'],
  data: 'the first 5 rows by Id asc and by Id desc',
  async run(ctx: ContractContext) {
    const asc = idsOf(await ctx.client.rows({ top: 5, orderBy: 'Id asc' }))
    const desc = idsOf(await ctx.client.rows({ top: 5, orderBy: 'Id desc' }))
    const sorted = (ids: number[], direction: 1 | -1) => ids.every((id, i) => i === 0 || (id - (ids[i - 1] as number)) * direction > 0)
    ctx.check(sorted(asc, 1), { expected: 'Ids in ascending order', received: shown(asc) })
    ctx.check(sorted(desc, -1), { expected: 'Ids in descending order', received: shown(desc) })
    ctx.check(asc.length < 2 || (desc[0] ?? 0) >= (asc[asc.length - 1] ?? 0), {
      expected: 'the first row of Id desc to have an Id at least the last of Id asc',
      received: `${desc[0]} vs ${asc[asc.length - 1]}`,
    })
  },
}

/** A text as a case- and trailing-space-insensitive collation compares it (SQL Server's default ones are). */
const collated = (value: unknown): unknown => (typeof value === 'string' ? value.trimEnd().toLowerCase() : value)

export const filterMatches: Contract = {
  id: 'items.filter-matches',
  title: "$filter=<field> eq '<value>' answers exactly the rows with that value, as many as the count of the same filter",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-filter',
  statements: ['items.filter', 'count.result'],
  data: "Id eq '<first row's Id>' (one row), then a text field of that row eq its value: only rows with that value, as many as the count of the same filter",
  async run(ctx: ContractContext) {
    const [sample] = await ctx.facts.masters(ctx.client)
    if (sample === undefined) ctx.skip('the application has no master row to filter on')
    const byId = await ctx.client.rows({ filter: `Id eq '${sample.Id}'`, top: 200 })
    ctx.check(JSON.stringify(idsOf(byId)) === JSON.stringify([sample.Id]), {
      expected: `only row ${sample.Id} for Id eq '${sample.Id}'`,
      received: shown(idsOf(byId)),
    })
    // A text field of the sample, in the description's form: the value quoted.
    const field = Object.entries(sample).find(
      ([name, value]) =>
        typeof value === 'string' && !['TIMESTAMP', 'DT_CREATION', 'DT_LAST_UPDATE'].includes(name) && !value.includes("'") && value.trim() !== '',
    )
    if (field === undefined) return
    const [name, value] = field
    let rows
    try {
      rows = await ctx.client.rows({ filter: `${name} eq '${value}'`, top: 200 })
    } catch (error) {
      // The description shows only a filter on some field; an installation may refuse one on a text field.
      if (error instanceof ApiError && error.status < 500)
        return ctx.note(`a filter on the text field ${name} was refused (${error.status}); only the filter on Id was checked`)
      throw error
    }
    // Equal as the installation's collation may compare texts: case and trailing spaces aside.
    const others = rows.filter((row) => collated(row[name]) !== collated(value))
    ctx.check(rows.length > 0 && others.length === 0, {
      expected: `only rows whose ${name} is ${ctx.show(value)}`,
      received: `${rows.length} rows, ${others.length} with another ${name}`,
    })
    if (rows.length < 200) {
      const count = await ctx.client.count({ filter: `${name} eq '${value}'` })
      ctx.check(count === rows.length, { expected: `the count of the same filter to be ${rows.length}`, received: String(count) })
    }
  },
}

export const countInteger: Contract = {
  id: 'items.count-integer',
  title: 'Get Items Count answers one integer count, no smaller than a page of the same rows',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'count-as-text',
  statements: ['resources.count-result', 'count.result'],
  data: '$inlinecount=allpages over the master rows beside a page of 20',
  async run(ctx: ContractContext) {
    const answer = await ctx.client.call(
      ctx.profile.itemsQuery,
      ctx.profile.itemsQuery === 'queryItems' ? { body: { query: '$inlinecount=allpages' } } : { query: { $inlinecount: 'allpages' } },
    )
    const count = (answer.body as { Items?: Array<{ _FieldCount_?: unknown }> }).Items?.[0]?._FieldCount_
    ctx.require(isInteger(count) && Number(count) >= 0, { expected: 'Items[0]._FieldCount_ as a non-negative integer', received: ctx.show(answer.body) })
    const page = (await ctx.facts.masters(ctx.client)).length
    ctx.check(Number(count) >= page, { expected: `a count of at least ${page} (the rows of one page)`, received: String(count) })
  },
}

export const timestampBase64: Contract = {
  id: 'items.timestamp-base64',
  title: 'Read rows carry TIMESTAMP as base64 text, which decodes to the number saves take',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'timestamp-hex',
  statements: ['resources.timestamp-read'],
  data: 'the TIMESTAMP of the first 20 master rows',
  async run(ctx: ContractContext) {
    for (const row of await ctx.facts.masters(ctx.client)) {
      const text = row.TIMESTAMP
      const ok = typeof text === 'string' && text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text) && Number.isSafeInteger(rowVersion(text))
      if (!ctx.check(ok, { expected: 'TIMESTAMP as base64 text of an integer', received: `row ${row.Id}: ${shown(text)}` })) break
    }
  },
}

export const timestampEightBytes: Contract = {
  id: 'items.timestamp-eight-bytes',
  title: 'TIMESTAMP is the base64 text of exactly 8 bytes (a SQL Server rowversion)',
  severity: 'low',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  async run(ctx: ContractContext) {
    for (const row of await ctx.facts.masters(ctx.client)) {
      const bytes = Buffer.from(String(row.TIMESTAMP), 'base64').length
      if (!ctx.check(bytes === 8, { expected: '8 bytes', received: `row ${row.Id}: ${bytes} bytes` })) break
    }
  },
}

/** Whether two read rows are the same row in the same state. */
const sameRow = (a: ReadRow, b: ReadRow): boolean => JSON.stringify(a) === JSON.stringify(b)

export const detailRows: Contract = {
  id: 'items.detail-rows',
  title: 'relationKey reads the detail table: detail rows with system fields, not the master rows, and their count',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: ['relation-key'],
  releases: RANGES.current,
  deviation: 'ignore-relation-key',
  statements: ['items.relation-key', 'count.result'],
  data: 'the first 20 rows of the detail table --relation-key names beside the first 20 master rows (they must differ), and the detail count',
  async run(ctx: ContractContext) {
    const details = await ctx.facts.details(ctx.client)
    ctx.require(Array.isArray(details), { expected: 'an array of detail rows', received: ctx.show(details) })
    const odd = details.filter((row) => !isInteger(row.Id) || typeof row.TIMESTAMP !== 'string')
    ctx.check(odd.length === 0, { expected: 'detail rows with an integer Id and a TIMESTAMP', received: ctx.show(odd.slice(0, 2)) })
    // "include it only to retrieve Detail rows; omit it for Master rows" (Get Items): the same first rows for both is the relation key ignored.
    const masters = await ctx.facts.masters(ctx.client)
    if (details.length === 0) ctx.note(`the detail table ${ctx.target.relationKey} has no rows, so they were not told apart from the master rows`)
    else
      ctx.check(!details.every((detail) => masters.some((master) => sameRow(master, detail))), {
        expected: `rows of the detail table ${ctx.target.relationKey}, not the master rows`,
        received: `the master rows (Id ${idsOf(details).slice(0, 5).join(', ')}, ...)`,
      })
    const count = await ctx.client.count({ relationKey: ctx.target.relationKey as string })
    ctx.check(isInteger(count) && count >= details.length, { expected: `a detail count of at least ${details.length}`, received: String(count) })
  },
}

/** Whether numbers are in order (each no smaller, or no larger, than the one before). */
const inOrder = (values: number[], direction: 1 | -1): boolean => values.every((value, i) => i === 0 || (value - (values[i - 1] as number)) * direction >= 0)

export const orderByField: Contract = {
  id: 'items.order-by-field',
  title: "$orderby on a numeric field other than Id answers the rows in that field's order, asc and desc",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'orderby-id-only',
  statements: ['items.orderby'],
  data: 'a numeric user field whose order differs from the Id order among the first 20 master rows (so an order by Id cannot pass for it), read asc and desc in one page of every row (of up to 1,000; else 200); nulls set aside, as where they sort is not stated',
  async run(ctx: ContractContext) {
    const masters = await ctx.facts.masters(ctx.client)
    const numbers = (rows: readonly ReadRow[], name: string) => rows.map((row) => row[name]).filter((value): value is number => typeof value === 'number')
    const [first] = masters
    const field =
      first === undefined
        ? undefined
        : Object.keys(first).find(
            (name) =>
              name !== 'Id' &&
              !['TIMESTAMP', 'ROW_ORDER', 'CT_ATTACHMENTS', 'DT_CREATION', 'DT_LAST_UPDATE', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE'].includes(name) &&
              !inOrder(numbers(masters, name), 1),
          )
    if (field === undefined) ctx.skip('no numeric user field of the first rows is out of Id order, so an order by it could not be told from an order by Id')
    // Every row of a table of up to 1,000 in one page, so that two installations holding the same rows answer pages of the same rows whatever their values (verify --compare-with); else a page of 200, the description's sample $top.
    const count = await ctx.client.count()
    const top = isInteger(count) && count > 0 && count <= 1000 ? count : 200
    const asc = numbers(await ctx.client.rows({ top, orderBy: `${field} asc` }), field)
    const desc = numbers(await ctx.client.rows({ top, orderBy: `${field} desc` }), field)
    ctx.check(asc.length > 1 && inOrder(asc, 1), { expected: `${field} ascending for $orderby=${field} asc`, received: shown(asc) })
    ctx.check(desc.length > 1 && inOrder(desc, -1), { expected: `${field} descending for $orderby=${field} desc`, received: shown(desc) })
  },
}

export const pagingToTheEnd: Contract = {
  id: 'items.paging-to-the-end',
  title: 'Pages of $top and $skip reach every row once, up to the count, and a page that starts at or past the count is empty',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'skip-past-end-repeats',
  statements: ['items.skip', 'items.top', 'count.result'],
  data: 'every master row in pages of 10 ordered by Id (up to 1,000 rows; past that the last page only), then $skip at the count and past it',
  async run(ctx: ContractContext) {
    const count = await ctx.client.count()
    ctx.require(isInteger(count), { expected: 'a count', received: shown(count) })
    if (count === 0) ctx.skip('the application has no master rows to page through')
    if (count <= 1000) {
      const ids: number[] = []
      for (let skip = 0; skip < count; skip += 10) {
        const page = idsOf(await ctx.client.rows({ top: 10, skip, orderBy: 'Id asc' }))
        ids.push(...page)
        if (page.length < 10) break
      }
      ctx.check(ids.length === count && new Set(ids).size === ids.length, {
        expected: `${count} different rows over the pages (the count)`,
        received: `${ids.length} rows, ${new Set(ids).size} different`,
      })
    } else {
      const last = await ctx.client.rows({ top: 2, skip: count - 1, orderBy: 'Id asc' })
      ctx.check(last.length === 1, { expected: `1 row at $skip=${count - 1} (the count less one)`, received: `${last.length} rows` })
    }
    for (const skip of [count, count + 10]) {
      const past = await ctx.client.rows({ top: 5, skip, orderBy: 'Id asc' })
      ctx.check(past.length === 0, {
        expected: `no rows at $skip=${skip} (the count is ${count})`,
        received: `${past.length} rows (Id ${idsOf(past).join(', ')})`,
      })
    }
  },
}

export const countExact: Contract = {
  id: 'items.count-exact',
  title: 'Get Items Count answers the number of rows there are: a page from the count less one holds exactly one row',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'count-off-by-one',
  statements: ['count.result'],
  data: "the master count, then $top=2 at $skip of the count less one (one row) ordered by Id; and the count of a filter on the first row's Id (1)",
  async run(ctx: ContractContext) {
    const count = await ctx.client.count()
    if (!isInteger(count) || count === 0) ctx.skip('the application has no master rows to count')
    const last = await ctx.client.rows({ top: 2, skip: count - 1, orderBy: 'Id asc' })
    ctx.check(last.length === 1, { expected: `exactly 1 row at $skip=${count - 1} if there are ${count}`, received: `${last.length} rows` })
    const [first] = await ctx.facts.masters(ctx.client)
    if (first !== undefined) {
      const one = await ctx.client.count({ filter: `Id eq '${first.Id}'` })
      ctx.check(one === 1, { expected: `a count of 1 for Id eq '${first.Id}'`, received: shown(one) })
    }
  },
}

export const unknownRelationKeyNoRows: Contract = {
  id: 'items.unknown-relation-key-no-rows',
  title: 'A read that names a relationKey the application does not have answers none of its master rows, nor the rows of its detail table',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  releases: RANGES.current,
  deviation: 'unknown-relation-key-reads-masters',
  statements: ['items.relation-key', 'service.identifiers'],
  data: 'the first 20 master rows (and with --relation-key the first 20 rows of that detail table), then $top=5 with a relationKey no application has; no status is required (the description states none), only that none of those rows come back, field for field',
  async run(ctx: ContractContext) {
    const known = [...(await ctx.facts.masters(ctx.client)), ...((await ctx.facts.details(ctx.client)) ?? [])]
    const answer = await ctx.client.call('queryItems', { body: { query: `$top=5&$orderby=Id%20asc&relationKey=${UNKNOWN_RELATION_KEY}` } })
    // Tables share Ids: only a row equal to one of the known rows, field for field, is one of theirs.
    const leaked = Array.isArray(answer.body) ? (answer.body as ReadRow[]).filter((row) => known.some((other) => sameRow(other, row))) : []
    ctx.check(leaked.length === 0, {
      expected: `none of the application's rows for relationKey ${UNKNOWN_RELATION_KEY}`,
      received: `${answer.status} with rows ${idsOf(leaked).join(', ')}`,
    })
  },
}

export const contracts = [
  rowsDocumented,
  topLimits,
  pagingPartitions,
  order,
  filterMatches,
  countInteger,
  timestampBase64,
  timestampEightBytes,
  detailRows,
  orderByField,
  pagingToTheEnd,
  countExact,
  unknownRelationKeyNoRows,
]
