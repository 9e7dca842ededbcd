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
    queuedAt: { type: 'string', format: 'date-time', description: 'Time on the mock\'s clock.' },
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
  required: ['seq', 'time', 'method', 'url', 'path', 'operationId', 'status', 'durationMs', 'fault', 'warnings'],
  properties: {
    seq: { type: 'integer', minimum: 1, description: 'Sequence number since the mock started; gaps show evicted or cleared entries.' },
    time: { type: 'string', format: 'date-time', description: 'When the answer went out (or the connection was cut), on the mock\'s clock.' },
    method: { type: 'string' },
    url: { type: 'string', description: 'Path and query string as sent, with the values of secret parameters (`SessionToken`, `password`, ...) replaced by `[redacted]`.' },
    path: { type: 'string', description: 'Path without the query string.' },
    operationId: { type: ['string', 'null'], description: 'Operation of the API document that answered; null for paths that are none.' },
    status: { type: ['integer', 'null'], description: 'Status sent; null when a fault cut the connection before an answer.' },
    durationMs: { type: 'number', minimum: 0, description: 'Time from arrival to the last byte of the answer, injected latency included.' },
    fault: { enum: ['latency', 'status', 'drop', 'commitThenDrop', null], description: 'The fault rule effect applied to this request, if any.' },
    warnings: {
      type: 'array',
      description:
        'What the request relied on that the API\'s description does not promise, in the order found (docs/behaviour.md lists every code). ' +
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
