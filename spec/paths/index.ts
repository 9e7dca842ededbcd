/** Every operation module, in the order the document lists them. */
import type { OperationModule } from './common.ts'
import * as signIn from './sign-in.ts'
import * as signInWithoutOrganization from './sign-in-without-organization.ts'
import * as signInLegacy from './sign-in-legacy.ts'
import * as queryItems from './query-items.ts'
import * as queryItemsLegacy from './query-items-legacy.ts'
import * as saveItems from './save-items.ts'
import * as deleteItems from './delete-items.ts'
import * as listAttachments from './list-attachments.ts'
import * as downloadAttachment from './download-attachment.ts'
import * as runAction from './run-action.ts'
import * as sendEmail from './send-email.ts'
import * as generateRowLink from './generate-row-link.ts'
import * as getIdentities from './get-identities.ts'

export type { OperationModule } from './common.ts'

export const operations: readonly OperationModule[] = [
  signIn,
  signInWithoutOrganization,
  signInLegacy,
  queryItems,
  queryItemsLegacy,
  saveItems,
  deleteItems,
  listAttachments,
  downloadAttachment,
  runAction,
  sendEmail,
  generateRowLink,
  getIdentities,
]
