/** The e-mail outbox and the request journal. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { count } from './common.ts'

export const QueuedEmail: SchemaObject = {
  type: 'object',
  title: 'Queued e-mail',
  description: 'An e-mail a client queued through Send Email. The mock sends nothing.',
  required: ['id', 'queuedAt', 'workspaceId', 'providerId', 'from', 'to', 'subject', 'body'],
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Position in the outbox since the mock started.' },
    queuedAt: { type: 'string', format: 'date-time', description: "Time on the mock's clock." },
    workspaceId: { type: 'string' },
    providerId: { type: 'string', description: 'The provider named in the request, or the default one.' },
    from: { type: 'string', description: 'E-mail address of the signed-in user who queued it.' },
    to: { type: 'array', items: { type: 'string' } },
    subject: { type: 'string' },
    body: { type: 'string' },
  },
  additionalProperties: false,
}

export const EmailList: SchemaObject = {
  type: 'object',
  title: 'Outbox',
  required: ['count', 'emails'],
  properties: { count: count('E-mails in the outbox.'), emails: { type: 'array', items: schemaRef('QueuedEmail'), description: 'Oldest first.' } },
  additionalProperties: false,
}

export const JournalEntry: SchemaObject = {
  type: 'object',
  title: 'Journal entry',
  description: 'One request a client made to the API (control-plane calls are not recorded).',
  required: ['seq', 'time', 'method', 'url', 'path', 'operationId', 'user', 'status', 'durationMs', 'fault', 'stub', 'abandoned', 'warnings'],
  properties: {
    seq: { type: 'integer', minimum: 1, description: 'Sequence number since the mock started; gaps show evicted or cleared entries.' },
    time: { type: 'string', format: 'date-time', description: "When the answer went out (or the connection was cut), on the mock's clock." },
    method: { type: 'string' },
    url: {
      type: 'string',
      description: 'Path and query string as sent, with the values of secret parameters (`SessionToken`, `password`, ...) replaced by `[redacted]`.',
    },
    path: { type: 'string', description: 'Path without the query string.' },
    operationId: { type: ['string', 'null'], description: 'Operation of the API document that answered; null for paths that are none.' },
    user: {
      type: ['string', 'null'],
      description:
        'E-mail of the signed-in user whose session token the request carried; null without a valid session (a sign-in, a missing or refused token).',
    },
    status: {
      type: ['integer', 'null'],
      description: 'Status sent; null when a fault cut the connection before an answer, or the client closed it first (`abandoned`).',
    },
    durationMs: { type: 'number', minimum: 0, description: 'Time from arrival to the last byte of the answer, injected latency included.' },
    fault: { enum: ['latency', 'status', 'drop', 'commitThenDrop', null], description: 'The fault rule effect applied to this request, if any.' },
    stub: {
      type: ['integer', 'null'],
      minimum: 1,
      description: 'The `id` of the answer rule that answered (or patched the answer of) this request; null for none.',
    },
    abandoned: {
      type: 'boolean',
      description:
        'Whether the client closed the connection before the mock answered (it timed out, or gave up; `status` is null then), so a test can ' +
        'assert "timed out, then retried". A request held by a fault\'s latency or a rule\'s delay is journaled as soon as its client leaves, and ' +
        'nothing of it is performed; any other is found when an assertion waits for requests in flight, or when many are in flight.',
    },
    warnings: {
      type: 'array',
      description:
        "What the request relied on that the API's description does not promise, in the order found (docs/behaviour.md lists every code). " +
        'The answer carried the codes in `X-Mock-Warnings`; in strict mode the request was refused instead.',
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', pattern: '^[A-Z][A-Z_]*$' }, message: { type: 'string' } },
        additionalProperties: false,
      },
    },
    request: {
      type: 'object',
      description: 'Only with `bodies=true`. Passwords, tokens and control tokens are replaced by `[redacted]`.',
      required: ['headers', 'body'],
      properties: {
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { description: 'The parsed body, or a note when it was over the size cap or not kept.' },
      },
    },
    response: {
      type: 'object',
      description: 'Only with `bodies=true`.',
      required: ['contentType', 'body'],
      properties: {
        contentType: { type: ['string', 'null'] },
        body: { description: 'JSON bodies parsed, text as text, anything else or anything over the cap as a note.' },
      },
    },
  },
  additionalProperties: false,
}

export const JournalPage: SchemaObject = {
  type: 'object',
  title: 'Request journal',
  required: ['capacity', 'recorded', 'evicted', 'entries'],
  properties: {
    capacity: count('Most entries kept; older ones are evicted (`--journal-limit`).'),
    recorded: count('Requests recorded since the mock started or the journal was last cleared.'),
    evicted: count('Of those, entries no longer kept because the journal was full.'),
    entries: { type: 'array', items: schemaRef('JournalEntry'), description: 'Oldest first; the newest `limit` when a limit is given.' },
  },
  additionalProperties: false,
}

const difference: SchemaObject = {
  type: 'object',
  required: ['pointer', 'expected', 'actual'],
  properties: {
    pointer: {
      type: 'string',
      description: "JSON pointer into the request's parts: `/body/Rows/0/Row/Customer`, `/headers/workspaceid`, `/user`, `/operationId`.",
    },
    expected: { type: 'string', description: 'What the pattern asks, in words or as JSON.' },
    actual: { type: 'string', description: 'What the request had (`absent`, a note when the journal did not keep the body, `[redacted]` for secrets).' },
  },
  additionalProperties: false,
}

export const NearMiss: SchemaObject = {
  type: 'object',
  title: 'Near miss',
  description: 'A journaled request that does not match the pattern, with how far it is and the members that differ.',
  required: ['seq', 'method', 'path', 'operationId', 'status', 'user', 'distance', 'differences'],
  properties: {
    seq: { type: 'integer', minimum: 1, description: "The journal entry's `seq`." },
    method: { type: 'string' },
    path: { type: 'string' },
    operationId: { type: ['string', 'null'] },
    status: { type: ['integer', 'null'] },
    user: { type: ['string', 'null'] },
    distance: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: '0 for an exact match, 1 when nothing the pattern asks is there; each part asked for (operation, body, headers, user) weighs the same.',
    },
    differences: { type: 'array', items: difference },
  },
  additionalProperties: false,
}

export const NearMissList: SchemaObject = {
  type: 'object',
  title: 'Near misses',
  required: ['matched', 'total', 'nearMisses'],
  properties: {
    matched: count('Requests in the journal that match the pattern.'),
    total: count('Requests in the journal.'),
    nearMisses: {
      type: 'array',
      items: schemaRef('NearMiss'),
      description: 'The closest requests that do not match, nearest first (the newer first between equals).',
    },
  },
  additionalProperties: false,
}
