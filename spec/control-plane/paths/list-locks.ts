/** listLocks: every locked row. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/locks`
export const method = 'get'

/** What a lock does, said once for the three operations. */
export const LOCKS_DESCRIPTION =
  'A save or delete that touches a locked row does not write it: the row is counted in `LockedItems` and named in a ' +
  '`ReturnStates` entry with Code `LOCKED`. In the default save mode (all-or-nothing) nothing of the request is written and ' +
  "the success flag is false; in an application's per-row mode the other master rows are written. A master row's lock covers " +
  'its detail rows (none can be created, updated or deleted under it, and it cannot be deleted while one of its detail rows is ' +
  'locked). A custom action whose effect would change a locked master row changes no row and answers `IsSuccessful` false ' +
  "with a `Message` naming the locked rows. A reset or fixture load puts back the fixture's `locks`; the state file " +
  '(`--state-file`) keeps the locks as they are.'

export const LOCK_EXAMPLE = { changed: 1, locks: [{ applicationId: 'a1b2c3d4-0000-4000-8000-000000000001', relationKey: null, ids: [2] }] }

export const operation: OperationObject = {
  operationId: 'listLocks',
  summary: 'Read the locked rows',
  description: `Every locked row, table by table: the fixture's \`locks\` and those set here since. ${LOCKS_DESCRIPTION}`,
  tags: ['Locks'],
  responses: {
    '200': jsonResponse('The locked rows.', schemaRef('HeldLocks'), { one: { summary: 'Master row 2 locked', value: { locks: LOCK_EXAMPLE.locks } } }),
    ...errorResponses(401),
  },
}
