/** Answer rules (`/__mock/stubs`): what a test sets and what the mock reports. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { DEFAULT_ANSWER_PRIORITY, MAX_ANSWER_DELAY_MS, MAX_ANSWER_DEPTH, MAX_RULE_TIMES } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { count } from './common.ts'

const stateName: SchemaObject = { type: 'string', minLength: 1, maxLength: 100 }

const pattern: SchemaObject = {
  description:
    'A request pattern: an object matches when each of its members matches; an array when each of its elements matches a ' +
    'distinct element; a scalar by equality; `{ "$contains": TEXT }` and `{ "$regex": TEXT }` match texts.',
}

// Shared by the rule as added and the rule as listed, so the two cannot drift apart.
const answerRuleProperties: Record<string, SchemaObject> = {
  name: { type: 'string', maxLength: 200, description: 'A name for people; the mock only shows it.' },
  operationId: {
    type: 'string',
    pattern: '^[A-Za-z][A-Za-z0-9]*$',
    description:
      'Operation of the served release the rule applies to (for example `saveItems`). Required for a whole answer or a patch, ' +
      'which the document is checked against; a rule without one (with `offDocument: true`, a gateway status, or keeping the ' +
      "operation's own answer with `answer: {}`) applies to every API operation. `*` is refused: leave the member out instead.",
  },
  match: {
    type: 'object',
    description: 'What the request must carry besides its operation; every part given must match. Patterns are checked when the rule is added.',
    properties: {
      body: { ...pattern, description: `The request body, as sent (the Get Items \`query\` text included). ${pattern.description}` },
      headers: {
        type: 'object',
        maxProperties: 50,
        additionalProperties: pattern,
        description:
          'Request headers by name (any case), each a pattern on its text: a text (equal), `{ "$contains": TEXT }` or ' +
          '`{ "$regex": TEXT }`; any other pattern could never match a header and is refused.',
      },
      user: {
        type: 'string',
        minLength: 1,
        maxLength: 320,
        description: 'E-mail of the signed-in user (any case); a request without a valid session never matches.',
      },
    },
    additionalProperties: false,
  },
  answer: {
    type: 'object',
    description:
      'A whole answer (`status`, `headers`, `body`): the operation is not performed. Or `patch`, an RFC 7386 JSON merge patch ' +
      'applied to the JSON the operation answers (2xx answers only): the operation is performed. Not both kinds. `{}` leaves ' +
      "the operation's own answer as it is (a rule for `delayMs` or a scenario step alone).",
    properties: {
      status: {
        type: 'integer',
        minimum: 200,
        maximum: 599,
        default: 200,
        description:
          "Status of a whole answer: one the operation's document lists, or a gateway status (500, 502, 503, 504), which any " +
          'operation may get (the answer then carries `INFRASTRUCTURE_ANSWER` in `X-Mock-Warnings`, and its body is held to no ' +
          'schema unless the document lists that status), or any status with `offDocument: true`. 204, 205 and 304 take no body.',
      },
      headers: {
        type: 'object',
        maxProperties: 50,
        additionalProperties: { type: 'string' },
        description:
          'Headers of a whole answer; `Content-Type` defaults to the media type the document declares for the status. Names are ' +
          'RFC 9110 tokens, given once in any case, and values hold visible ASCII, spaces and tabs only; `Content-Length`, ' +
          '`Transfer-Encoding`, `Connection` and the other hop-by-hop headers (`Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, ' +
          "`Upgrade`), `Host` and `Access-Control-*` (the CORS layer's) are refused, `offDocument` or not.",
      },
      body: { description: `Body of a whole answer: JSON, or a text sent as is for a media type that is not JSON. At most ${MAX_ANSWER_DEPTH} levels deep.` },
      patch: {
        description:
          "RFC 7386 JSON merge patch of the operation's own JSON answer: members set to null are removed, objects merged, anything " +
          "else replaced (an object patch turns an array answer into an object, as the RFC says). A member the success answer's " +
          `schema does not name is off the document. At most ${MAX_ANSWER_DEPTH} levels deep.`,
      },
    },
    additionalProperties: false,
  },
  delayMs: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_ANSWER_DELAY_MS,
    description: 'Wait this long before answering (or, for a patch, before performing the operation).',
  },
  times: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RULE_TIMES,
    description: 'Answer this many requests, then stop matching (the rule stays listed, `remaining` 0). Without it the rule stays until removed.',
  },
  priority: {
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    default: DEFAULT_ANSWER_PRIORITY,
    description: 'Lower numbers are tried first (as in WireMock); among rules of one priority, the newest first.',
  },
  scenario: { ...stateName, description: 'A scenario this rule reads or moves. Every scenario starts in state `Started`.' },
  whenState: { ...stateName, description: 'Match only while the scenario is in this state.' },
  setState: { ...stateName, description: 'Move the scenario to this state when the rule is chosen for a request.' },
  offDocument: {
    type: 'boolean',
    default: false,
    description:
      'Accept an answer the served document cannot give (a status, media type, body or patch member outside it). Without it such ' +
      'a rule is refused with the violations; with it, each answer it gives carries `OFF_DOCUMENT_ANSWER` in `X-Mock-Warnings`. ' +
      'A mock started with `--strict` refuses such a rule when it is added; a request sent with `X-Mock-Strict: 1` gets ' +
      '`STRICT_MODE` instead of its answer. What is not valid HTTP is refused either way.',
  },
}

export const AnswerRule: SchemaObject = {
  type: 'object',
  title: 'Answer rule',
  description:
    'A request matcher and what to answer. Rules are tried by `priority`, then newest first; the first that matches the ' +
    'operation, `match`, `whenState` and has answers left is the only one applied. A rule the served document cannot answer is ' +
    'refused (400, with the violations pointing into this body) unless `offDocument` is true.',
  required: ['answer'],
  properties: answerRuleProperties,
  // JSON Schema 2020-12 (openapi3-ts's type predates it).
  ...({ dependentRequired: { whenState: ['scenario'], setState: ['scenario'] } } as SchemaObject),
  additionalProperties: false,
}

export const ActiveAnswerRule: SchemaObject = {
  type: 'object',
  title: 'Active answer rule',
  description: 'A rule as the mock holds it, with its use so far.',
  required: ['id', 'answer', 'priority', 'hits', 'remaining', 'offDocument', 'violations'],
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Number of the rule, in the order added (never reused while the mock runs).' },
    ...answerRuleProperties,
    hits: count('Requests the rule has answered so far.'),
    remaining: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: MAX_RULE_TIMES,
      description: 'Answers left; 0 once `times` is used up (the rule no longer matches); null for no limit.',
    },
    violations: {
      type: 'array',
      description: 'Why the served document cannot give this answer (only for rules added with `offDocument: true`).',
      items: {
        type: 'object',
        required: ['pointer', 'keyword', 'message'],
        properties: { pointer: { type: 'string' }, keyword: { type: 'string' }, message: { type: 'string' } },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
}

export const AnswerRuleList: SchemaObject = {
  type: 'object',
  title: 'Answer rules',
  required: ['rules', 'scenarios'],
  properties: {
    rules: { type: 'array', items: schemaRef('ActiveAnswerRule'), description: 'In the order they are tried.' },
    scenarios: { type: 'object', additionalProperties: { type: 'string' }, description: 'The state of every scenario a rule names.' },
  },
  additionalProperties: false,
}
