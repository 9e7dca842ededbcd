/** Generate Row Link: an absolute URL that opens the row. */
import { shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'
import { textOf } from '../src/bytes.ts'

export const absolute: Contract = {
  id: 'row-link.absolute',
  title: 'Generate Row Link answers a text holding an absolute http(s) URL',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'relative-row-link',
  statements: ['row-link.opens-row'],
  data: 'the link of the first master row',
  async run(ctx: ContractContext) {
    const [row] = await ctx.facts.masters(ctx.client)
    if (row === undefined) ctx.skip('the application has no master row')
    const link = await ctx.client.rowLink(row.Id)
    let url: URL | undefined
    try {
      url = new URL(link)
    } catch {
      url = undefined
    }
    ctx.check(url !== undefined && ['http:', 'https:'].includes(url.protocol), { expected: 'an absolute http or https URL', received: shown(link) })
  },
}

export const opensRow: Contract = {
  id: 'row-link.opens-row',
  title: "The mock's row link, opened with the session token, answers the row",
  severity: 'low',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  async run(ctx: ContractContext) {
    const [row] = await ctx.facts.masters(ctx.client)
    if (row === undefined) ctx.skip('the application has no master row')
    const link = new URL(await ctx.client.rowLink(row.Id))
    const answer = await ctx.client.transport.send({ method: 'GET', path: `${link.pathname}${link.search}`, headers: { SessionToken: ctx.client.token ?? '' } })
    const rows = answer.status === 200 ? (JSON.parse(textOf(answer.body)) as Array<{ Id?: unknown }>) : []
    ctx.check(rows.length === 1 && rows[0]?.Id === row.Id, {
      expected: `the row ${row.Id}`,
      received: `${answer.status} ${ctx.show(textOf(answer.body), 150)}`,
    })
  },
}

export const distinctRows: Contract = {
  id: 'row-link.distinct-rows',
  title: 'Generate Row Link answers a different link for two different rows, and takes the Ids as an array too',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'same-row-link',
  statements: ['row-link.opens-row', 'row-link.values'],
  data: 'the first two master rows (different Ids): one link each, then the first again with values as an array',
  async run(ctx: ContractContext) {
    const [a, b] = await ctx.facts.masters(ctx.client)
    if (a === undefined || b === undefined) ctx.skip('the application has fewer than two master rows')
    const first = await ctx.client.rowLink(a.Id)
    const second = await ctx.client.rowLink(b.Id)
    ctx.check(typeof first === 'string' && first !== second, { expected: `different links for rows ${a.Id} and ${b.Id}`, received: `${shown(first)} for both` })
    const listed = await ctx.client.rowLink([a.Id])
    ctx.check(typeof listed === 'string' && listed !== '', { expected: 'a link for values given as an array', received: shown(listed) })
  },
}

export const contracts = [absolute, opensRow, distinctRows]
