import type { FastifyInstance } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { registerOperationRoutes } from '../http/routes.ts'
import type { RouteStep } from '../http/steps.ts'
import { applicationOf, requireWriter } from '../http/context.ts'
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
import { authorizeAction, runAction } from './run-action.ts'
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

/** A read names an application of the user's workspace (404 otherwise). */
const reads: RouteStep = (request) => void applicationOf(request)
/** A write names one too, and needs a user who may write (403 for the read-only user). */
const writes: RouteStep = (request) => {
  applicationOf(request)
  requireWriter(request)
}

/**
 * What each operation needs of its caller beyond a session in the workspace: checked before the
 * mock's answer rules, so a rule never answers a request the mock refuses anyway.
 */
export const AUTHORIZATIONS: Partial<Record<keyof typeof HANDLERS, RouteStep>> = {
  queryItems: reads,
  queryItemsLegacy: reads,
  getIdentities: reads,
  listAttachments: reads,
  downloadAttachment: reads,
  generateRowLink: reads,
  saveItems: writes,
  deleteItems: writes,
  runAction: authorizeAction,
}

/**
 * The API's routes for the emulated release's view of the document. Sign-in forms may carry
 * `client_id` by HTTP Basic, and attachment filters come in forms the document's pattern refuses:
 * both are read before the request is checked, so the refusal says why. `answerRules` is the mock's
 * answer-rule step, run last before the handler (src/mock/plugins/rules.ts's `applyAnswerRules`).
 */
export function registerOperations(app: FastifyInstance, document: OpenAPIObject, answerRules?: RouteStep): void {
  registerOperationRoutes(app, document, HANDLERS, {
    preparations: {
      signIn: prepareSignIn,
      signInWithoutOrganization: prepareSignIn,
      listAttachments: prepareListAttachments,
    },
    authorizations: AUTHORIZATIONS,
    ...(answerRules === undefined ? {} : { answerRules }),
  })
}
