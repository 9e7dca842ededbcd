/** loadFixture: replace all data with a fixture sent in the body. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { ORGANIZATION } from '../../examples.ts'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { parameterRef, schemaRef } from '../refs.ts'
import { errorResponses, problemResponse } from '../responses.ts'
import { MINIMAL_FIXTURE } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/fixture`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'loadFixture',
  summary: 'Load a fixture',
  description:
    'Replaces all data with the fixture in the body, after checking it as a fixture file is checked at start. A refused ' +
    'fixture changes nothing and the answer names the JSON path of every problem in `violations`. Outbox, fault rules, ' +
    'journal and sessions are left alone, except the sessions of users the new fixture lacks, which end. A later reset goes ' +
    'back to the fixture the mock started with. ' +
    "The load is a clean cut (the mock's choice): nothing received before it writes into the data it puts in place. A request " +
    "still held by a fault's latency or an answer rule's `delayMs` is answered at once with 503 `DATA_REPLACED` (a gateway " +
    'status any operation may get), and a write received before it that reaches the store after it (a big save planned in ' +
    'slices, a body still arriving) is refused the same way; nothing of either is written.',
  tags: ['State'],
  parameters: [parameterRef('Rows'), parameterRef('Seed')],
  requestBody: jsonBody('The fixture.', schemaRef('Fixture'), { minimal: { summary: 'Two orders, one user', value: MINIMAL_FIXTURE } }),
  responses: {
    '200': jsonResponse('Loaded.', schemaRef('FixtureLoadResult'), {
      loaded: {
        summary: 'Loaded',
        value: {
          loaded: true,
          generatedRows: 0,
          fixture: { organization: ORGANIZATION, applications: 1, users: 1, masterRows: 2, detailRows: 0, attachments: 0 },
          warnings: [],
        },
      },
      olderRows: {
        summary: "Loaded, with a row older than its field's rules",
        value: {
          loaded: true,
          generatedRows: 0,
          fixture: { organization: ORGANIZATION, applications: 1, users: 1, masterRows: 2, detailRows: 0, attachments: 0 },
          warnings: [
            'POST /__mock/fixture: /data/a1b2c3d4-0000-4000-8000-000000000001/masters/1/Status row 2 breaks its field\'s rule: Status takes only "Open", "Closed"; got "Shipped"; loaded as it is (rows older than their rules), and every save is held to the rules (--strict refuses such a fixture)',
          ],
        },
      },
    }),
    // Not BadRequest: a loader refusal points into the fixture, not under `/body`.
    '400': problemResponse('The fixture is refused; `violations` names each problem by its JSON path in the fixture.', {
      badFixture: {
        summary: 'Unknown field type',
        value: {
          type: 'urn:appdata-kit:problem:bad-fixture',
          title: 'Fixture refused',
          status: 400,
          detail: 'POST /__mock/fixture: /applications/0/master/fields/1/type must be one of "string", "number", "integer", "boolean", "date-time"',
          code: 'BAD_FIXTURE',
          violations: [
            {
              pointer: '/applications/0/master/fields/1/type',
              keyword: 'fixture',
              message: 'must be one of "string", "number", "integer", "boolean", "date-time"',
            },
          ],
        },
      },
    }),
    ...errorResponses(401, 507),
  },
}
