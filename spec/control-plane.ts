/**
 * The OpenAPI 3.1 document of the mock's control plane (`/__mock/...`): what CI users call to reset
 * the mock, load data, upload files, read the e-mail outbox and the request journal, inject faults
 * and move the clock. Nothing here exists in the real product, so every operation is marked
 * `x-mock-defined`. The mock validates control requests against this document and serves it at
 * `/__mock/openapi.json`; `npm run spec` writes it to spec/control-plane.{json,yaml}.
 */
import type {
  ExampleObject,
  MediaTypeObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas31'
import { MOCK_DEFINED } from './extensions.ts'
import { Problem } from './schemas/problem.ts'
import { Attachment } from './schemas/attachments.ts'

/** Path prefix of every control-plane route. */
export const CONTROL_PREFIX = '/__mock'

/** Header that carries the control token, as an alternative to `Authorization: Bearer`. */
export const CONTROL_TOKEN_HEADER = 'X-Mock-Control-Token'

/** Largest number of fault rules one call may set (keeps the per-request scan short). */
export const MAX_FAULT_RULES = 100

/** Longest latency a fault rule may add: two minutes, longer than any sensible client timeout. */
export const MAX_FAULT_LATENCY_MS = 120_000

/** Furthest one clock call may move the clock: ten years. */
export const MAX_CLOCK_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000

const ISO_NOW = '2026-11-01T09:00:00.000Z'

function ref(kind: 'schemas' | 'responses' | 'parameters', name: string): ReferenceObject {
  return { $ref: `#/components/${kind}/${name}` }
}

const count = (description: string): SchemaObject => ({ type: 'integer', minimum: 0, description })

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const FixtureSummary: SchemaObject = {
  type: 'object',
  title: 'Fixture summary',
  description: 'What the store holds after a reset or a fixture load.',
  required: ['organization', 'applications', 'users', 'masterRows', 'detailRows', 'attachments'],
  properties: {
    organization: { type: 'string', description: 'Organization physical name.' },
    applications: count('Applications.'),
    users: count('Users.'),
    masterRows: count('Master rows, all applications together.'),
    detailRows: count('Detail rows, all applications and relation keys together.'),
    attachments: count('Files and folders.'),
  },
  additionalProperties: false,
}

const ResetResult: SchemaObject = {
  type: 'object',
  title: 'Reset result',
  description: 'The data is back to the fixture the mock started with; e-mails, fault rules and journal entries are gone. Sessions and the clock are kept.',
  required: ['reset', 'fixture', 'cleared', 'kept'],
  properties: {
    reset: { const: true },
    fixture: ref('schemas', 'FixtureSummary'),
    cleared: {
      type: 'object',
      required: ['emails', 'faults', 'requests'],
      properties: { emails: count('E-mails removed from the outbox.'), faults: count('Fault rules removed.'), requests: count('Journal entries removed.') },
      additionalProperties: false,
    },
    kept: {
      type: 'array',
      items: { enum: ['sessions', 'clock'] },
      description: 'What a reset leaves alone: issued tokens stay valid, and the clock never goes back.',
    },
  },
  additionalProperties: false,
}

const Fixture: SchemaObject = {
  type: 'object',
  title: 'Fixture',
  description:
    'A whole installation in the format of `fixtures/default.json`, checked against `fixtures/fixture.schema.json` and the ' +
    'loader\'s rules (unique ids, references that resolve); only the loader checks it, so every refusal names its path in ' +
    'the fixture. Payload `file` paths are relative to the directory of the fixture the mock started with and must stay inside it.',
  required: ['organization', 'applications', 'data'],
  properties: {
    organization: { type: 'object', description: 'Physical name, client ids, users and workspaces.' },
    applications: { type: 'array', items: { type: 'object' }, description: 'Applications with their master and detail storages.' },
    data: { type: 'object', description: 'Rows per application id.' },
    attachments: { type: 'array', items: { type: 'object' } },
    actions: { type: 'array', items: { type: 'object' } },
    emailProviders: { type: 'array', items: { type: 'object' } },
  },
}

const FixtureLoadResult: SchemaObject = {
  type: 'object',
  title: 'Fixture load result',
  required: ['loaded', 'generatedRows', 'fixture'],
  properties: {
    loaded: { const: true },
    generatedRows: count('Master rows added by `rows` (each with two detail rows per detail table).'),
    fixture: ref('schemas', 'FixtureSummary'),
  },
  additionalProperties: false,
}

const AttachmentUpload: SchemaObject = {
  type: 'object',
  title: 'Attachment upload',
  description:
    'Form fields and one or more files. Fields may come before or after the files. With `folder`, the files go into the ' +
    'folder of that name (created when missing) at the top level of the row, or inside `folderId` when both are given.',
  required: ['parentId', 'file'],
  properties: {
    applicationId: { type: 'string', format: 'uuid', description: 'Application of the row; default: the fixture\'s first application.' },
    relationKey: { type: 'string', minLength: 1, description: 'Detail Relation Key when the row is a detail row; leave it out for a master row.' },
    parentId: { type: 'integer', minimum: 1, description: 'Id of the row the files are attached to.' },
    folderId: { type: 'integer', minimum: 1, description: 'Id of an existing folder of the row to put the files in.' },
    folder: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^/\\\\]+$', description: 'Name of a folder to put the files in; created when the row has none of that name.' },
    description: { type: 'string', maxLength: 2000, description: 'Description given to every uploaded file.' },
    file: {
      type: 'array',
      minItems: 1,
      items: { type: 'string', contentMediaType: 'application/octet-stream' },
      description: 'The files, each with its file name and media type in its part headers. Any field name is accepted for files; `file` is the usual one.',
    },
  },
  additionalProperties: false,
}

const QueuedEmail: SchemaObject = {
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

const EmailList: SchemaObject = {
  type: 'object',
  title: 'Outbox',
  required: ['count', 'emails'],
  properties: { count: count('E-mails in the outbox.'), emails: { type: 'array', items: ref('schemas', 'QueuedEmail'), description: 'Oldest first.' } },
  additionalProperties: false,
}

const Cleared: SchemaObject = {
  type: 'object',
  title: 'Cleared',
  required: ['cleared'],
  properties: { cleared: count('How many entries were removed.') },
  additionalProperties: false,
}

const JournalEntry: SchemaObject = {
  type: 'object',
  title: 'Journal entry',
  description: 'One request a client made to the API (control-plane calls are not recorded).',
  required: ['seq', 'time', 'method', 'url', 'path', 'operationId', 'status', 'durationMs', 'fault'],
  properties: {
    seq: { type: 'integer', minimum: 1, description: 'Sequence number since the mock started; gaps show evicted or cleared entries.' },
    time: { type: 'string', format: 'date-time', description: 'When the answer went out (or the connection was cut), on the mock\'s clock.' },
    method: { type: 'string' },
    url: { type: 'string', description: 'Path and query string as sent.' },
    path: { type: 'string', description: 'Path without the query string.' },
    operationId: { type: ['string', 'null'], description: 'Operation of the API document that answered; null for paths that are none.' },
    status: { type: ['integer', 'null'], description: 'Status sent; null when a fault cut the connection before an answer.' },
    durationMs: { type: 'number', minimum: 0, description: 'Time from arrival to the last byte of the answer, injected latency included.' },
    fault: { enum: ['latency', 'status', 'drop', 'commitThenDrop', null], description: 'The fault rule effect applied to this request, if any.' },
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

const JournalPage: SchemaObject = {
  type: 'object',
  title: 'Request journal',
  required: ['capacity', 'recorded', 'evicted', 'entries'],
  properties: {
    capacity: count('Most entries kept; older ones are evicted (`--journal-limit`).'),
    recorded: count('Requests recorded since the mock started or the journal was last cleared.'),
    evicted: count('Of those, entries no longer kept because the journal was full.'),
    entries: { type: 'array', items: ref('schemas', 'JournalEntry'), description: 'Oldest first; the newest `limit` when a limit is given.' },
  },
  additionalProperties: false,
}

const faultRuleProperties: Record<string, SchemaObject> = {
  operationId: {
    type: 'string',
    pattern: '^(\\*|[A-Za-z][A-Za-z0-9]*)$',
    description: 'Operation of the API document the rule applies to (for example `saveItems`), or `*` for every API operation.',
  },
  latencyMs: { type: 'integer', minimum: 0, maximum: MAX_FAULT_LATENCY_MS, description: 'Delay added before the request is handled.' },
  status: { type: 'integer', minimum: 400, maximum: 599, description: 'Answer with this status and an `INJECTED_FAULT` problem instead of handling the request.' },
  drop: { type: 'boolean', description: 'Close the connection without answering; the request is not handled.' },
  commitThenDrop: { type: 'boolean', description: 'Handle the request (a write is applied) and close the connection before the answer is sent.' },
  rate: { type: 'number', minimum: 0, maximum: 1, default: 1, description: 'Probability that the rule applies to a matching request, drawn from the seeded generator.' },
  times: { type: 'integer', minimum: 1, description: 'Apply the rule this many times, then remove it. Without it the rule stays until cleared.' },
}

const FaultRule: SchemaObject = {
  type: 'object',
  title: 'Fault rule',
  description:
    'What to do to requests of one operation. At most one of `status`, `drop` and `commitThenDrop`; `latencyMs` may go with ' +
    'any of them. Rules are tried in order; the first rule that matches the operation and passes its `rate` draw applies, and ' +
    'only that one. Control-plane calls are never affected.',
  required: ['operationId'],
  properties: faultRuleProperties,
  additionalProperties: false,
}

const FaultRuleSet: SchemaObject = {
  type: 'object',
  title: 'Fault rule set',
  description: 'Replaces all fault rules.',
  required: ['rules'],
  properties: {
    rules: { type: 'array', maxItems: MAX_FAULT_RULES, items: ref('schemas', 'FaultRule') },
    seed: { type: 'integer', minimum: 0, maximum: 4294967295, description: 'Seed of the generator behind `rate`; the same seed gives the same sequence of draws. Default: a random one.' },
  },
  additionalProperties: false,
}

const ActiveFaultRule: SchemaObject = {
  type: 'object',
  title: 'Active fault rule',
  required: ['id', 'operationId', 'rate', 'remaining', 'applied'],
  properties: {
    id: { type: 'integer', minimum: 1, description: 'Number of the rule, in the order set.' },
    ...faultRuleProperties,
    remaining: { type: ['integer', 'null'], minimum: 1, description: 'Applications left before the rule is removed; null for no limit.' },
    applied: count('Requests the rule has applied to so far.'),
  },
  additionalProperties: false,
}

const FaultList: SchemaObject = {
  type: 'object',
  title: 'Fault rules',
  required: ['seed', 'rules'],
  properties: {
    seed: { type: 'integer', minimum: 0, description: 'Seed the generator behind `rate` started from.' },
    rules: { type: 'array', items: ref('schemas', 'ActiveFaultRule') },
  },
  additionalProperties: false,
}

const ClockAdvance: SchemaObject = {
  type: 'object',
  title: 'Clock advance',
  description: 'How far to move the clock forward: exactly one of `advanceMs` and `advanceSeconds`.',
  // One object with exactly one member rather than a oneOf: a refusal then names the one field at fault.
  minProperties: 1,
  maxProperties: 1,
  properties: {
    advanceMs: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_ADVANCE_MS, description: 'Milliseconds.' },
    advanceSeconds: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_ADVANCE_MS / 1000, description: 'Seconds.' },
  },
  additionalProperties: false,
}

const ClockState: SchemaObject = {
  type: 'object',
  title: 'Clock',
  required: ['now', 'offsetMs'],
  properties: {
    now: { type: 'string', format: 'date-time', description: 'The mock\'s time: tokens expire, and rows and e-mails are dated, by it.' },
    offsetMs: { type: 'integer', minimum: 0, description: 'How far the clock has been moved ahead of the time it started from.' },
  },
  additionalProperties: false,
}

const ControlDocument: SchemaObject = {
  type: 'object',
  title: 'OpenAPI document',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
}

const SCHEMAS: Record<string, SchemaObject> = {
  FixtureSummary,
  ResetResult,
  Fixture,
  FixtureLoadResult,
  AttachmentUpload,
  Attachment,
  QueuedEmail,
  EmailList,
  Cleared,
  JournalEntry,
  JournalPage,
  FaultRule,
  FaultRuleSet,
  ActiveFaultRule,
  FaultList,
  ClockAdvance,
  ClockState,
  ControlDocument,
  Problem,
}

// ---------------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------------

const summaryExample = { organization: 'acme', applications: 1, users: 2, masterRows: 25, detailRows: 50, attachments: 5 }

/** A small fixture that passes the loader: one user, one application without detail tables, two rows. */
export const MINIMAL_FIXTURE = {
  organization: {
    physicalName: 'acme',
    clientId: 'appdataapiv1',
    legacyClientId: 'appdata-legacy',
    users: [{ id: 1, email: 'admin@acme.test', password: 'admin-pass', workspaceIds: ['6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70'], canWrite: true }],
    workspaces: [{ id: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70', name: 'Sales', createdAt: '2023-11-06T09:30:00.000Z', applicationIds: ['a1b2c3d4-0000-4000-8000-000000000001'] }],
  },
  applications: [
    {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      name: 'Orders',
      master: {
        id: '5e7d0c1a-1111-4111-8111-000000000001',
        name: 'Orders',
        identityField: 'IdRow',
        fields: [
          { name: 'Customer', type: 'string' },
          { name: 'Amount', type: 'number' },
        ],
      },
    },
  ],
  data: {
    'a1b2c3d4-0000-4000-8000-000000000001': {
      masters: [
        { Id: 1, IdRow: 1001, Customer: 'Initech', Amount: 120.5 },
        { Id: 2, IdRow: 1002, Customer: 'Globex', Amount: 99 },
      ],
    },
  },
}

const attachmentExample = {
  Id: 6,
  ParentId: 2,
  FolderId: null,
  IsFolder: false,
  Name: 'delivery-note.pdf',
  Description: '',
  TypeImage: 'application/pdf',
  DT_CREATION: 20261101090000,
  DT_LAST_UPDATE: 20261101090000,
  USER_ID_CREATION: 1,
  USER_ID_LAST_UPDATE: 1,
}

const emailExample = {
  id: 1,
  queuedAt: ISO_NOW,
  workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
  providerId: 'e0000000-0000-4000-8000-000000000001',
  from: 'admin@acme.test',
  to: ['buyer@northwind.example'],
  subject: 'Order 1 has shipped',
  body: 'Your order left our warehouse today.',
}

const journalEntryExample = {
  seq: 12,
  time: ISO_NOW,
  method: 'POST',
  url: '/ExplorerApi/api/items/save',
  path: '/ExplorerApi/api/items/save',
  operationId: 'saveItems',
  status: 200,
  durationMs: 3.2,
  fault: null,
}

const problemExample = (status: number, code: string, title: string, detail: string): ExampleObject => ({
  summary: title,
  value: { type: `urn:appdata-kit:problem:${code.toLowerCase().replaceAll('_', '-')}`, title, status, detail, code },
})

// ---------------------------------------------------------------------------------------------
// Responses, parameters, operations
// ---------------------------------------------------------------------------------------------

function problemResponse(description: string, examples: Record<string, ExampleObject>): ResponseObject {
  return { description, content: { 'application/problem+json': { schema: ref('schemas', 'Problem'), examples } } }
}

const RESPONSES: Record<string, ResponseObject> = {
  BadRequest: problemResponse('The request breaks this document\'s schema (every violation is listed in `violations`), or the fixture is refused.', {
    validation: {
      summary: 'Body breaks the schema',
      value: {
        type: 'urn:appdata-kit:problem:validation',
        title: 'Request does not match the API document',
        status: 400,
        detail: '/body/rules/0/rate must be <= 1',
        code: 'VALIDATION',
        violations: [{ pointer: '/body/rules/0/rate', keyword: 'maximum', message: 'must be <= 1' }],
      },
    },
  }),
  ControlTokenRequired: problemResponse(
    'The mock was started with `--control-token` and the call sent no token, or another one, in `Authorization: Bearer` or `X-Mock-Control-Token`.',
    { controlToken: problemExample(401, 'CONTROL_TOKEN', 'Control token missing or wrong', 'Send the control token in Authorization: Bearer or X-Mock-Control-Token.') },
  ),
  NotFound: problemResponse('Something the request names does not exist.', {
    unknownRow: problemExample(404, 'UNKNOWN_ROW', 'Unknown row', 'Row 999 does not exist in storage Orders.'),
  }),
  PayloadTooLarge: problemResponse('A file is larger than the upload limit (`--upload-limit`, 10 MB by default).', {
    fileTooLarge: {
      summary: 'File over the limit',
      value: {
        type: 'urn:appdata-kit:problem:payload-too-large',
        title: 'Request body too large',
        status: 413,
        detail: 'File big.bin is larger than the upload limit of 10485760 bytes.',
        code: 'PAYLOAD_TOO_LARGE',
        limit: 10485760,
      },
    },
  }),
}

const PARAMETERS: Record<string, ParameterObject> = {
  Rows: {
    name: 'rows',
    in: 'query',
    description: 'Generated master rows to add to each application of the fixture, each with two detail rows per detail table.',
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
  JournalLimit: {
    name: 'limit',
    in: 'query',
    description: 'Only the newest `limit` entries (after the operationId filter).',
    schema: { type: 'integer', minimum: 1, maximum: 100_000 },
    example: 20,
  },
  JournalBodies: {
    name: 'bodies',
    in: 'query',
    description: 'Include request headers and bodies and response bodies, with secrets redacted.',
    schema: { type: 'boolean', default: false },
    example: true,
  },
}

function json(schema: SchemaObject | ReferenceObject, examples: Record<string, ExampleObject>): { content: Record<string, MediaTypeObject> } {
  return { content: { 'application/json': { schema, examples } } }
}

/** Responses every control operation may give. */
const ALWAYS = { '401': ref('responses', 'ControlTokenRequired') }

interface ControlOperation {
  path: string
  method: 'get' | 'post' | 'delete'
  operation: OperationObject
}

const OPERATIONS: ControlOperation[] = [
  {
    path: '/__mock/reset',
    method: 'post',
    operation: {
      operationId: 'resetMock',
      summary: 'Reset the mock',
      description:
        'Puts the data back to the fixture the mock started with (rows, row versions aside, and attachments), and empties the ' +
        'e-mail outbox, the fault rules and the request journal. Sessions stay valid, so a test keeps its token, and the clock ' +
        'keeps its offset because time does not go back. A TIMESTAMP read before the reset is stale after it.',
      tags: ['State'],
      responses: {
        '200': { description: 'Reset.', ...json(ref('schemas', 'ResetResult'), { reset: { summary: 'Reset', value: { reset: true, fixture: summaryExample, cleared: { emails: 1, faults: 0, requests: 42 }, kept: ['sessions', 'clock'] } } }) },
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/fixture',
    method: 'post',
    operation: {
      operationId: 'loadFixture',
      summary: 'Load a fixture',
      description:
        'Replaces all data with the fixture in the body, after checking it as a fixture file is checked at start. A refused ' +
        'fixture changes nothing and the answer names the JSON path of every problem in `violations`. Outbox, fault rules, ' +
        'journal and sessions are left alone (a session whose user the new fixture lacks stops working). A later reset goes ' +
        'back to the fixture the mock started with.',
      tags: ['State'],
      parameters: [ref('parameters', 'Rows'), ref('parameters', 'Seed')],
      requestBody: { description: 'The fixture.', required: true, ...json(ref('schemas', 'Fixture'), { minimal: { summary: 'Two orders, one user', value: MINIMAL_FIXTURE } }) },
      responses: {
        '200': {
          description: 'Loaded.',
          ...json(ref('schemas', 'FixtureLoadResult'), {
            loaded: { summary: 'Loaded', value: { loaded: true, generatedRows: 0, fixture: { organization: 'acme', applications: 1, users: 1, masterRows: 2, detailRows: 0, attachments: 0 } } },
          }),
        },
        '400': {
          description: 'The fixture is refused; `violations` names each problem by its JSON path in the fixture.',
          content: {
            'application/problem+json': {
              schema: ref('schemas', 'Problem'),
              examples: {
                badFixture: {
                  summary: 'Unknown field type',
                  value: {
                    type: 'urn:appdata-kit:problem:bad-fixture',
                    title: 'Fixture refused',
                    status: 400,
                    detail: 'POST /__mock/fixture: /applications/0/master/fields/1/type must be one of "string", "number", "integer", "boolean", "date-time"',
                    code: 'BAD_FIXTURE',
                    violations: [{ pointer: '/applications/0/master/fields/1/type', keyword: 'fixture', message: 'must be one of "string", "number", "integer", "boolean", "date-time"' }],
                  },
                },
              },
            },
          },
        },
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/attachments',
    method: 'post',
    operation: {
      operationId: 'uploadAttachments',
      summary: 'Upload attachments',
      description:
        'Attaches one or more files to an existing master or detail row, as `multipart/form-data`. The files then appear in Get ' +
        'Attachments List and download with the same bytes, and the row\'s `CT_ATTACHMENTS` counts them. Nothing is added when any ' +
        'part of the request is refused.',
      tags: ['State'],
      requestBody: {
        description: 'Fields and files.',
        required: true,
        content: {
          'multipart/form-data': {
            schema: ref('schemas', 'AttachmentUpload'),
            examples: { pdfOnRow2: { summary: 'A PDF on master row 2', value: { parentId: 2, file: ['delivery-note.pdf'] } } },
          },
        },
      },
      responses: {
        '201': { description: 'Added; the new records, a created folder first.', ...json({ type: 'array', items: ref('schemas', 'Attachment') }, { added: { summary: 'One file', value: [attachmentExample] } }) },
        '400': ref('responses', 'BadRequest'),
        ...ALWAYS,
        '404': ref('responses', 'NotFound'),
        '413': ref('responses', 'PayloadTooLarge'),
      },
    },
  },
  {
    path: '/__mock/emails',
    method: 'get',
    operation: {
      operationId: 'listEmails',
      summary: 'Read the e-mail outbox',
      description: 'The e-mails clients queued through Send Email, oldest first. The mock sends none of them.',
      tags: ['Observation'],
      responses: {
        '200': { description: 'The outbox.', ...json(ref('schemas', 'EmailList'), { one: { summary: 'One e-mail', value: { count: 1, emails: [emailExample] } } }) },
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/emails',
    method: 'delete',
    operation: {
      operationId: 'clearEmails',
      summary: 'Empty the e-mail outbox',
      description: 'Removes every queued e-mail.',
      tags: ['Observation'],
      responses: { '200': { description: 'Emptied.', ...json(ref('schemas', 'Cleared'), { cleared: { summary: 'Two removed', value: { cleared: 2 } } }) }, ...ALWAYS },
    },
  },
  {
    path: '/__mock/requests',
    method: 'get',
    operation: {
      operationId: 'listRequests',
      summary: 'Read the request journal',
      description:
        'The requests clients made to the API, oldest first: method, URL, operation, status, duration. The journal keeps the ' +
        'newest `--journal-limit` entries (1000 by default); with `bodies=true` it also shows headers and bodies of up to ' +
        '`--journal-body-limit` bytes each (64 KB by default), with passwords, tokens and control tokens redacted.',
      tags: ['Observation'],
      parameters: [ref('parameters', 'JournalOperationId'), ref('parameters', 'JournalLimit'), ref('parameters', 'JournalBodies')],
      responses: {
        '200': {
          description: 'The journal.',
          ...json(ref('schemas', 'JournalPage'), {
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
                    url: '/identityprovider/acme/connect/token',
                    path: '/identityprovider/acme/connect/token',
                    operationId: 'signIn',
                    request: {
                      headers: { 'content-type': 'application/x-www-form-urlencoded' },
                      body: { client_id: 'appdataapiv1', username: 'admin@acme.test', password: '[redacted]', grant_type: 'password', scope: 'openid apiv1 nosession' },
                    },
                    response: { contentType: 'application/json; charset=utf-8', body: { access_token: '[redacted]', expires_in: 3600, 'token-type': '', scope: '' } },
                  },
                ],
              },
            },
          }),
        },
        '400': ref('responses', 'BadRequest'),
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/requests',
    method: 'delete',
    operation: {
      operationId: 'clearRequests',
      summary: 'Empty the request journal',
      description: 'Removes every journal entry; `recorded` and `evicted` start again from zero.',
      tags: ['Observation'],
      responses: { '200': { description: 'Emptied.', ...json(ref('schemas', 'Cleared'), { cleared: { summary: 'All removed', value: { cleared: 42 } } }) }, ...ALWAYS },
    },
  },
  {
    path: '/__mock/faults',
    method: 'get',
    operation: {
      operationId: 'listFaults',
      summary: 'Read the fault rules',
      description: 'The active fault rules with how often each has applied and how many applications it has left.',
      tags: ['Faults'],
      responses: {
        '200': {
          description: 'The rules.',
          ...json(ref('schemas', 'FaultList'), {
            one: { summary: 'A failing save', value: { seed: 7, rules: [{ id: 1, operationId: 'saveItems', status: 503, rate: 1, times: 2, remaining: 1, applied: 1 }] } },
          }),
        },
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/faults',
    method: 'post',
    operation: {
      operationId: 'setFaults',
      summary: 'Set the fault rules',
      description:
        'Replaces all fault rules. A rule slows down, fails, or cuts the connection of requests to one API operation (or all ' +
        'of them with `*`), always or with a probability, for ever or a number of times. An `operationId` the emulated release ' +
        'does not have is refused.',
      tags: ['Faults'],
      requestBody: {
        description: 'The rules.',
        required: true,
        ...json(ref('schemas', 'FaultRuleSet'), {
          failTwice: { summary: 'Two failing saves', value: { rules: [{ operationId: 'saveItems', status: 503, times: 2 }] } },
          slowAndFlaky: {
            summary: 'Every call slow, a third of reads cut',
            value: { seed: 7, rules: [{ operationId: 'queryItems', drop: true, rate: 0.33 }, { operationId: '*', latencyMs: 250 }] },
          },
          lostAnswer: { summary: 'Save applied, answer lost', value: { rules: [{ operationId: 'saveItems', commitThenDrop: true, times: 1 }] } },
        }),
      },
      responses: {
        '200': {
          description: 'The rules now active.',
          ...json(ref('schemas', 'FaultList'), {
            set: { summary: 'Two failing saves', value: { seed: 7, rules: [{ id: 1, operationId: 'saveItems', status: 503, rate: 1, times: 2, remaining: 2, applied: 0 }] } },
          }),
        },
        '400': ref('responses', 'BadRequest'),
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/faults',
    method: 'delete',
    operation: {
      operationId: 'clearFaults',
      summary: 'Remove the fault rules',
      description: 'Removes every fault rule; requests are handled normally again.',
      tags: ['Faults'],
      responses: { '200': { description: 'Removed.', ...json(ref('schemas', 'Cleared'), { cleared: { summary: 'One removed', value: { cleared: 1 } } }) }, ...ALWAYS },
    },
  },
  {
    path: '/__mock/clock',
    method: 'get',
    operation: {
      operationId: 'readClock',
      summary: 'Read the clock',
      description: 'The mock\'s time, by which tokens expire and rows, attachments and e-mails are dated.',
      tags: ['Clock'],
      responses: { '200': { description: 'The clock.', ...json(ref('schemas', 'ClockState'), { now: { summary: 'Not moved', value: { now: ISO_NOW, offsetMs: 0 } } }) }, ...ALWAYS },
    },
  },
  {
    path: '/__mock/clock',
    method: 'post',
    operation: {
      operationId: 'advanceClock',
      summary: 'Move the clock forward',
      description: 'Moves the mock\'s time forward without waiting, for example past a token\'s `expires_in`. The clock never goes back.',
      tags: ['Clock'],
      requestBody: {
        description: 'How far.',
        required: true,
        ...json(ref('schemas', 'ClockAdvance'), {
          hour: { summary: 'One hour, in seconds', value: { advanceSeconds: 3600 } },
          minute: { summary: 'One minute, in milliseconds', value: { advanceMs: 60000 } },
        }),
      },
      responses: {
        '200': { description: 'The clock after the move.', ...json(ref('schemas', 'ClockState'), { moved: { summary: 'One hour later', value: { now: '2026-11-01T10:00:00.000Z', offsetMs: 3600000 } } }) },
        '400': ref('responses', 'BadRequest'),
        ...ALWAYS,
      },
    },
  },
  {
    path: '/__mock/openapi.json',
    method: 'get',
    operation: {
      operationId: 'getControlPlaneDocument',
      summary: 'This document',
      description: 'The control plane\'s own OpenAPI document. Served without a control token, since it holds nothing secret.',
      tags: ['Documentation'],
      security: [{}],
      responses: {
        '200': { description: 'The document.', ...json(ref('schemas', 'ControlDocument'), { head: { summary: 'Its first members', value: { openapi: '3.1.0', info: { title: 'appdata-kit mock control plane', version: '0.1.0' }, paths: {} } } }) },
        '404': ref('responses', 'NotFound'),
      },
    },
  },
]

const TAGS = [
  { name: 'State', description: 'Resetting the mock, loading data, uploading files.' },
  { name: 'Observation', description: 'What clients did: the e-mail outbox and the request journal.' },
  { name: 'Faults', description: 'Slow, failing and cut-off answers, to test a client\'s retries.' },
  { name: 'Clock', description: 'The mock\'s time.' },
  { name: 'Documentation', description: 'This document.' },
]

const DESCRIPTION =
  'The control plane of the appdata-kit mock: tests call it to reset the mock between tests, load their own data, upload ' +
  'files, read what was "sent" and what their client called, make the mock slow or failing, and move its clock. None of it ' +
  'exists in the real product; every operation is the mock\'s own (`x-mock-defined`).\n\n' +
  'It is on by default on a loopback host and answers under `/__mock/`. `--no-control-plane` switches it off (404). On any ' +
  'other host it is off unless the mock was started with `--control-token`; with a token, on any host, every call needs it ' +
  'in `Authorization: Bearer <token>` or `X-Mock-Control-Token: <token>`. Control calls are not journaled and never ' +
  'affected by fault rules. The same controls are methods of the object `startMock()` returns.'

/** Builds the control-plane document. Pure: each call returns a fresh object. */
export function buildControlPlaneDocument(): OpenAPIObject {
  const paths: Record<string, Record<string, OperationObject>> = {}
  for (const { path, method, operation } of OPERATIONS) {
    paths[path] ??= {}
    ;(paths[path] as Record<string, OperationObject>)[method] = { ...operation, [MOCK_DEFINED]: true }
  }
  const document: OpenAPIObject & { jsonSchemaDialect: string } = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: 'appdata-kit mock control plane', description: DESCRIPTION, version: '0.1.0', license: { name: 'MIT', identifier: 'MIT' } },
    servers: [{ url: 'http://127.0.0.1:4080', description: 'The mock, at its default address.' }],
    // `{}` first: without --control-token no credentials are needed.
    security: [{}, { ControlBearer: [] }, { ControlTokenHeader: [] }],
    tags: TAGS,
    paths,
    components: {
      schemas: SCHEMAS,
      parameters: PARAMETERS,
      responses: RESPONSES,
      securitySchemes: {
        ControlBearer: { type: 'http', scheme: 'bearer', description: 'The `--control-token` value as a bearer token.' },
        ControlTokenHeader: { type: 'apiKey', in: 'header', name: CONTROL_TOKEN_HEADER, description: 'The `--control-token` value in its own header.' },
      },
    },
  }
  // Structured copy so no caller can change the module-level objects the document is made of.
  return structuredClone(document)
}
