import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'

/**
 * The page a generated row link opens: GET answers with the linked master rows as JSON. It is
 * the mock's stand-in for the product's row view, outside the API document (mock-defined).
 */
export function registerRowLinks(app: FastifyInstance): void {
  app.get<{ Params: { applicationId: string; ids: string } }>('/rowlink/:applicationId/:ids', async (request, reply) => {
    const { applicationId, ids } = request.params
    if (!/^\d+(,\d+)*$/.test(ids)) throw new ProblemError('UNKNOWN_ROW', `"${ids}" is not a list of row Ids.`)
    const rows = ids.split(',').map((id) => app.store.getRow(applicationId, null, Number(id)))
    if (rows.some((row) => row === null)) throw new ProblemError('UNKNOWN_ROW', `No master row ${ids} in application ${applicationId}.`)
    return reply.type('application/json; charset=utf-8').send(`[${rows.map((row) => row?.json).join(',')}]`)
  })
}
