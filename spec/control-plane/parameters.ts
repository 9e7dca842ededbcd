/** components.parameters of the control plane: the query parameters of reset, fixture load and the journal. */
import type { ParameterObject } from 'openapi3-ts/oas31'
import type { ControlParameterName } from './refs.ts'

export const parameters: Record<ControlParameterName, ParameterObject> = {
  Rows: {
    name: 'rows',
    in: 'query',
    description: "Generated master rows to add to the fixture's first application, each with two detail rows per detail table.",
    schema: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
    example: 100,
  },
  Seed: {
    name: 'seed',
    in: 'query',
    description: 'Seed of the generated rows; the same seed gives the same rows.',
    schema: { type: 'integer', minimum: 0, maximum: 2147483647, default: 1 },
    example: 7,
  },
  JournalOperationId: {
    name: 'operationId',
    in: 'query',
    description: 'Only requests answered by this operation.',
    schema: { type: 'string', minLength: 1 },
    example: 'saveItems',
  },
  JournalMatch: {
    name: 'match',
    in: 'query',
    description:
      'Only requests matching this pattern: an answer rule\'s `match` object as URL-encoded JSON, `{ "body"?: PATTERN, ' +
      '"headers"?: { NAME: PATTERN }, "user"?: EMAIL }`. In a PATTERN an object matches when each of its members matches, ' +
      'an array when each of its elements matches a distinct element, a scalar by equality, and `{ "$contains": TEXT }` and ' +
      '`{ "$regex": TEXT }` match texts. The Get Items body is matched as sent (`{ "query": { "$contains": "Status eq \'Open\'" } }`). ' +
      'A body the journal did not keep (over `--journal-body-limit`, sent chunked) matches no body pattern. Applied before `limit`; ' +
      'JSON that does not parse or a pattern that is none answers 400 with violations under `/query/match`.',
    schema: { type: 'string', minLength: 1 },
    example: '{"body":{"Rows":[{"Row":{"Customer":"Initech"}}]}}',
  },
  JournalLimit: {
    name: 'limit',
    in: 'query',
    description: 'Only the newest `limit` entries (after the operationId and match filters).',
    schema: { type: 'integer', minimum: 1, maximum: 100_000 },
    example: 20,
  },
  ResetSessions: {
    name: 'sessions',
    in: 'query',
    description:
      'End every session too: all issued tokens answer 401 `UNKNOWN_TOKEN` afterwards. The way out when sign-ins answer 503 ' +
      '`TOO_MANY_SESSIONS`; without it a reset keeps sessions, so a token signed in once per suite survives.',
    schema: { type: 'boolean', default: false },
    example: true,
  },
  NearMissMatch: {
    name: 'match',
    in: 'query',
    required: true,
    description:
      "The pattern the near misses are measured against, as `match` of `GET /__mock/requests` (an answer rule's `match` object " +
      'as URL-encoded JSON). Required: without a pattern every request matches and none is near; a call without it answers 400.',
    schema: { type: 'string', minLength: 1 },
    example: '{"body":{"Rows":[{"Row":{"Customer":"Initech"}}]}}',
  },
  NearMissLimit: {
    name: 'limit',
    in: 'query',
    description: 'Most near misses to answer, nearest first.',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 3 },
    example: 3,
  },
  JournalBodies: {
    name: 'bodies',
    in: 'query',
    description: 'Include request headers and bodies and response bodies, with secrets redacted.',
    schema: { type: 'boolean', default: false },
    example: true,
  },
}
