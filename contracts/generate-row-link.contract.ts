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
  title: 'The mock\'s row link, opened with the session token, answers the row',
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
    ctx.check(rows.length === 1 && rows[0]?.Id === row.Id, { expected: `the row ${row.Id}`, received: `${answer.status} ${ctx.show(textOf(answer.body), 150)}` })
  },
}

export const contracts = [absolute, opensRow]
