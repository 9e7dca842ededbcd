import type { FastifyInstance } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { registerOperationRoutes } from '../http/routes.ts'
import type { ApiOperations, Handlers } from '../wire/operations.ts'
import { prepareSignIn, signIn, signInWithoutOrganization } from './sign-in.ts'
import { signInLegacy } from './sign-in-legacy.ts'
import { queryItems } from './query-items.ts'
import { queryItemsLegacy } from './query-items-legacy.ts'
import { saveItems } from './save-items.ts'
import { deleteItems } from './delete-items.ts'
import { getIdentities } from './get-identities.ts'
import { listAttachments, prepareListAttachments } from './list-attachments.ts'
import { downloadAttachment } from './download-attachment.ts'
import { runAction } from './run-action.ts'
import { sendEmail } from './send-email.ts'
import { generateRowLink } from './generate-row-link.ts'

/** Handlers by operationId; typed per operation, so a missing one does not compile (and is checked at boot). */
export const HANDLERS: Handlers<ApiOperations> = {
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

/**
 * The API's routes for the emulated release's view of the document. Sign-in forms may carry
 * `client_id` by HTTP Basic, and attachment filters come in forms the document's pattern refuses:
 * both are read before the request is checked, so the refusal says why.
 */
export function registerOperations(app: FastifyInstance, document: OpenAPIObject): void {
  registerOperationRoutes(app, document, HANDLERS, {
    signIn: prepareSignIn,
    signInWithoutOrganization: prepareSignIn,
    listAttachments: prepareListAttachments,
  })
}
