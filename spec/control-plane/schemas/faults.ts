/** Fault rules as a test sets them and as the mock reports them. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { MAX_FAULT_LATENCY_MS, MAX_FAULT_RULES, MAX_RULE_TIMES } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { count } from './common.ts'

// Shared by the rule as set and the rule as reported, so the two cannot drift apart.
const faultRuleProperties: Record<string, SchemaObject> = {
  operationId: {
    type: 'string',
    pattern: '^(\\*|[A-Za-z][A-Za-z0-9]*)$',
    description: 'Operation of the API document the rule applies to (for example `saveItems`), or `*` for every API operation.',
  },
  latencyMs: { type: 'integer', minimum: 0, maximum: MAX_FAULT_LATENCY_MS, description: 'Delay added before the request is handled.' },
  status: {
    type: 'integer',
    minimum: 400,
    maximum: 599,
    description:
      'Answer with this status and an `INJECTED_FAULT` problem instead of handling the request. A gateway status (500, 502, 503, ' +
      "504) is the infrastructure's: any operation may get it, and the answer carries `INFRASTRUCTURE_ANSWER` in `X-Mock-Warnings`. " +
      "Any other status must be one the operation's document lists, or the rule says `offDocument: true`.",
  },
  headers: {
    type: 'object',
    maxProperties: 50,
    additionalProperties: { type: 'string' },
    description:
      'Headers of the `status` answer (for example `Retry-After`), with `status` only. Names are RFC 9110 tokens, given once ' +
      'in any case, and values hold visible ASCII, spaces and tabs only; `Content-Type` (the body is the problem), ' +
      '`Content-Length`, `Transfer-Encoding`, `Connection` and the other hop-by-hop headers, `Host` and `Access-Control-*` are refused.',
  },
  offDocument: {
    type: 'boolean',
    default: false,
    description:
      "Accept a `status` the operation's document does not list (other than a gateway status); each answer then carries " +
      '`OFF_DOCUMENT_ANSWER` in `X-Mock-Warnings`. Refused when the mock runs with `--strict`.',
  },
  drop: { type: 'boolean', description: 'Close the connection without answering; the request is not handled.' },
  commitThenDrop: { type: 'boolean', description: 'Handle the request (a write is applied) and close the connection before the answer is sent.' },
  rate: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    default: 1,
    description: 'Probability that the rule applies to a matching request, drawn from the seeded generator.',
  },
  times: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RULE_TIMES,
    description: 'Apply the rule this many times, then remove it. Without it the rule stays until cleared.',
  },
}

export const FaultRule: SchemaObject = {
  type: 'object',
  title: 'Fault rule',
  description:
    'What to do to requests of one operation. At most one of `status`, `drop` and `commitThenDrop`; `latencyMs` may go with ' +
    'any of them; `headers` only with `status`. A rule for every operation (`*`) takes a gateway status, `drop`, ' +
    '`commitThenDrop` and `latencyMs` only. Rules are tried in order; the first rule that matches the operation and passes its ' +
    '`rate` draw applies, and only that one. Control-plane calls are never affected.',
  required: ['operationId'],
  properties: faultRuleProperties,
  additionalProperties: false,
}

export const FaultRuleSet: SchemaObject = {
  type: 'object',
  title: 'Fault rule set',
  description: 'Replaces all fault rules.',
  required: ['rules'],
  properties: {
    rules: { type: 'array', maxItems: MAX_FAULT_RULES, items: schemaRef('FaultRule') },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: 4294967295,
      description: 'Seed of the generator behind `rate`; the same seed gives the same sequence of draws. Default: a random one.',
    },
  },
  additionalProperties: false,
}

export const ActiveFaultRule: SchemaObject = {
  type: 'object',
  title: 'Active fault rule',
  required: ['id', 'operationId', 'rate', 'remaining', 'applied'],
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Number of the rule, in the order set.' },
    ...faultRuleProperties,
    remaining: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: MAX_RULE_TIMES,
      description: 'Applications left before the rule is removed; null for no limit.',
    },
    applied: count('Requests the rule has applied to so far.'),
  },
  additionalProperties: false,
}

export const FaultList: SchemaObject = {
  type: 'object',
  title: 'Fault rules',
  required: ['seed', 'rules'],
  properties: {
    seed: { type: 'integer', minimum: 0, description: 'Seed the generator behind `rate` started from.' },
    rules: { type: 'array', items: schemaRef('ActiveFaultRule') },
  },
  additionalProperties: false,
}
