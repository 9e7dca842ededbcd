import type { FastifyInstance } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { OperationEntry } from '../document/reader.ts'
import { authenticate, authorize, type SecurityScheme } from '../mock/plugins/auth.ts'
import { registerDocumentRoutes } from '../mock/routes.ts'
import { warn } from '../mock/plugins/warnings.ts'
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

/** The security scheme an operation declares, if any. */
function securityOf(entry: OperationEntry, document: OpenAPIObject): SecurityScheme | undefined {
  const requirements = (entry.operation.security ?? document.security ?? []) as Array<Record<string, unknown>>
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) if (name === 'SessionToken' || name === 'BearerAuth') return name
  }
  return undefined
}

/**
 * The API's routes for the emulated release's view of the document. A caller without a token
 * learns that before anything about its request (authentication runs first); the workspace is
 * checked after validation. Sign-in forms may carry `client_id` by HTTP Basic, read before validation.
 */
export function registerOperations(app: FastifyInstance, document: OpenAPIObject): void {
  registerDocumentRoutes(app, {
    document,
    handlers: HANDLERS,
    config: (entry) => ({ operationId: entry.operationId }),
    before: (entry) => {
      const scheme = securityOf(entry, document)
      return scheme === undefined ? [] : [authenticate(scheme)]
    },
    after: (entry) => (securityOf(entry, document) === undefined ? [] : [authorize]),
    // Before validation, so a form or filter the document's pattern refuses gets the refusal that says why.
    prepare: { signIn: prepareSignIn, signInWithoutOrganization: prepareSignIn, listAttachments: prepareListAttachments },
    unknownInput: (request, found, entry) => {
      if (found.members.length > 0) warn(request, 'UNKNOWN_MEMBER', `The body member${found.members.length > 1 ? 's' : ''} ${found.members.join(', ')} ${found.members.length > 1 ? 'were' : 'was'} ignored.`)
      // The older Get Items takes its query options as URL parameters; its handler reports the ones it does not know.
      if (found.parameters.length > 0 && entry.operationId !== 'queryItemsLegacy') {
        warn(request, 'UNKNOWN_PARAMETER', `The URL parameter${found.parameters.length > 1 ? 's' : ''} ${found.parameters.join(', ')} ${found.parameters.length > 1 ? 'were' : 'was'} ignored.`)
      }
    },
  })
}
