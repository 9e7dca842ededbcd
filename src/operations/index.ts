import type { FastifyReply, FastifyRequest } from 'fastify'
import { clientIdFromBasicAuth, signIn, signInWithoutOrganization } from './sign-in.ts'
import { signInLegacy } from './sign-in-legacy.ts'
import { queryItems } from './query-items.ts'
import { queryItemsLegacy } from './query-items-legacy.ts'
import { saveItems } from './save-items.ts'
import { deleteItems } from './delete-items.ts'
import { getIdentities } from './get-identities.ts'
import { listAttachments } from './list-attachments.ts'
import { downloadAttachment } from './download-attachment.ts'
import { runAction } from './run-action.ts'
import { sendEmail } from './send-email.ts'
import { generateRowLink } from './generate-row-link.ts'

export type OperationHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/** A step that adapts a request before it is validated (for forms the description does not show but standards allow). */
export type RequestPreparer = (request: FastifyRequest) => void

/** Handlers by operationId; the document's operationIds must all be here (checked at boot). */
export const HANDLERS: Record<string, OperationHandler> = {
  signIn,
  signInWithoutOrganization,
  signInLegacy,
  queryItems,
  queryItemsLegacy,
  saveItems,
  deleteItems,
  getIdentities,
  listAttachments,
  downloadAttachment,
  runAction,
  sendEmail,
  generateRowLink,
}

/** Preparers by operationId, run before the request is validated against the document. */
export const PREPARERS: Partial<Record<string, RequestPreparer>> = {
  signIn: clientIdFromBasicAuth,
  signInWithoutOrganization: clientIdFromBasicAuth,
}
