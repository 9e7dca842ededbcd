import type { FastifyRequest } from 'fastify'
import { publicBase } from '../http/context.ts'

/**
 * Where a generated row link points: a page of the mock itself that answers with the rows
 * (GET, JSON), so a client can follow the link in a test. The path is the mock's choice.
 */
export function rowLinkUrl(request: FastifyRequest, applicationId: string, ids: readonly number[]): string {
  return `${publicBase(request)}/rowlink/${applicationId}/${ids.join(',')}`
}
