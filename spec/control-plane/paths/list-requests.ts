/** listRequests: the request journal, optionally with headers and bodies. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { ADMIN_USER, CLIENT_ID, ORGANIZATION, SCOPE, tokenResult } from '../../examples.ts'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { parameterRef, schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { journalEntryExample } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/requests`
export const method = 'get'

const signInPath = `/identityprovider/${ORGANIZATION}/connect/token`

export const operation: OperationObject = {
  operationId: 'listRequests',
  summary: 'Read the request journal',
  description:
    'The requests clients made to the API, oldest first: method, URL, operation, status, duration. The journal keeps the ' +
    'newest `--journal-limit` entries (1000 by default); with `bodies=true` it also shows headers and bodies of up to ' +
    '`--journal-body-limit` bytes each (16 KB by default), with passwords, tokens and control tokens redacted. `match` keeps the ' +
    'requests matching a pattern (the language of answer rules), e.g. `?match=%7B%22body%22%3A%7B%22Rows%22%3A%5B%7B%22Row%22%3A%7B%22Customer%22%3A%22Initech%22%7D%7D%5D%7D%7D` ' +
    'for `{"body":{"Rows":[{"Row":{"Customer":"Initech"}}]}}`; `GET /__mock/requests/near-misses` names the closest of the others.',
  tags: ['Observation'],
  parameters: [parameterRef('JournalOperationId'), parameterRef('JournalMatch'), parameterRef('JournalLimit'), parameterRef('JournalBodies')],
  responses: {
    '200': jsonResponse('The journal.', schemaRef('JournalPage'), {
      one: { summary: 'One save', value: { capacity: 1000, recorded: 12, evicted: 0, entries: [journalEntryExample] } },
      withBodies: {
        summary: 'A sign-in with bodies',
        value: {
          capacity: 1000,
          recorded: 1,
          evicted: 0,
          entries: [
            {
              ...journalEntryExample,
              seq: 1,
              url: signInPath,
              path: signInPath,
              operationId: 'signIn',
              user: null,
              request: {
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: { client_id: CLIENT_ID, username: ADMIN_USER, password: '[redacted]', grant_type: 'password', scope: SCOPE },
              },
              // The API document's sign-in answer, as the journal shows it.
              response: { contentType: 'application/json; charset=utf-8', body: { ...tokenResult, access_token: '[redacted]' } },
            },
          ],
        },
      },
    }),
    ...errorResponses(400, 401),
  },
}
