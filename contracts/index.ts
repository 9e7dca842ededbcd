/** Every contract, in the order a run takes them: sign-in and access first, then each operation. */
import type { Contract } from './types.ts'
import { contracts as signIn } from './sign-in.contract.ts'
import { contracts as auth } from './auth.contract.ts'
import { contracts as items } from './query-items.contract.ts'
import { contracts as save } from './save-items.contract.ts'
import { contracts as remove } from './delete-items.contract.ts'
import { contracts as identities } from './get-identities.contract.ts'
import { contracts as attachments } from './list-attachments.contract.ts'
import { contracts as download } from './download-attachment.contract.ts'
import { contracts as action } from './run-action.contract.ts'
import { contracts as email } from './send-email.contract.ts'
import { contracts as rowLink } from './generate-row-link.contract.ts'
import { contracts as robustness } from './robustness.contract.ts'
import { contracts as stateful } from './stateful.contract.ts'

export const CONTRACTS: readonly Contract[] = [
  ...signIn,
  ...auth,
  ...items,
  ...save,
  ...remove,
  ...identities,
  ...attachments,
  ...download,
  ...action,
  ...email,
  ...rowLink,
  ...robustness,
  ...stateful,
]

export type { Contract, ContractResult, Failure, Severity, Target } from './types.ts'
