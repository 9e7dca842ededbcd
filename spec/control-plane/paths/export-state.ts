/** exportState: the mock's current data, as a fixture. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { MINIMAL_FIXTURE } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/state`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'exportState',
  summary: 'Export the data as a fixture',
  description:
    'The data as it is now, in the fixture format: every row with its version (`TIMESTAMP`) and its creation and update ' +
    'fields, every attachment with its bytes inline (`content`, base64; a file recorded by size only keeps `placeholderBytes`), the organization, applications, actions and ' +
    'e-mail providers. `--fixture`, `POST /__mock/fixture` and `loadFixture()` take it back unchanged, so a test can save ' +
    'a state and return to it; `--state-file` keeps a team sandbox this way across restarts. `sequences` says where each ' +
    "storage's next Id and Identity value stand, so no Id is handed out twice. Left out: the outbox, sessions, the journal and fault rules.",
  tags: ['State'],
  responses: {
    '200': jsonResponse('The data.', schemaRef('Fixture'), {
      state: {
        summary: 'Two orders, one user',
        value: {
          ...MINIMAL_FIXTURE,
          data: Object.fromEntries(
            Object.entries(MINIMAL_FIXTURE.data).map(([id, data]) => [
              id,
              {
                masters: data.masters.map((row, i) => ({
                  ...row,
                  DT_CREATION: '2026-11-01T09:00:00.000Z',
                  DT_LAST_UPDATE: '2026-11-01T09:00:00.000Z',
                  TIMESTAMP: i + 1,
                })),
                details: {},
              },
            ]),
          ),
          attachments: [],
          actions: [],
          emailProviders: [],
        },
      },
    }),
    ...errorResponses(401),
  },
}
