/** Reset, fixture load and attachment upload. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { count } from './common.ts'

export const FixtureSummary: SchemaObject = {
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

export const ResetResult: SchemaObject = {
  type: 'object',
  title: 'Reset result',
  description:
    'The data is back to the fixture the mock started with; e-mails, fault rules, answer rules (with their scenario states) and journal entries are gone. Sessions (but those of ' +
    'users the start fixture lacks) and the clock are kept, unless `sessions=true` ended every session.',
  required: ['reset', 'fixture', 'cleared', 'kept'],
  properties: {
    reset: { const: true },
    fixture: schemaRef('FixtureSummary'),
    cleared: {
      type: 'object',
      required: ['emails', 'faults', 'stubs', 'requests', 'sessions'],
      properties: {
        emails: count('E-mails removed from the outbox.'),
        faults: count('Fault rules removed.'),
        stubs: count('Answer rules removed (scenario states are forgotten too).'),
        requests: count('Journal entries removed.'),
        sessions: count('Sessions ended: all of them with `sessions=true`, else those of users the start fixture lacks.'),
      },
      additionalProperties: false,
    },
    kept: {
      type: 'array',
      items: { enum: ['sessions', 'clock'] },
      description: 'What a reset leaves alone: issued tokens stay valid (unless `sessions=true`), and the clock never goes back.',
    },
  },
  additionalProperties: false,
}

export const Fixture: SchemaObject = {
  type: 'object',
  title: 'Fixture',
  description:
    'A whole installation in the format of `fixtures/default.json`, checked against `fixtures/fixture.schema.json` and the ' +
    "loader's rules (unique ids, references that resolve); only the loader checks it, so every refusal names its path in " +
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

export const FixtureLoadResult: SchemaObject = {
  type: 'object',
  title: 'Fixture load result',
  required: ['loaded', 'generatedRows', 'fixture', 'warnings'],
  properties: {
    loaded: { const: true },
    generatedRows: count('Master rows added by `rows` (each with two detail rows per detail table).'),
    fixture: schemaRef('FixtureSummary'),
    warnings: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string' },
      description:
        'What the fixture should change, as the start-up warnings say it (the mock logs them too): a row value that breaks its ' +
        "field's rules, named by its JSON path (loaded as it is, since an installation holds rows older than its rules; every " +
        'save is held to the rules; at most 20 named, the rest counted), an older type name or value form. Strict mode ' +
        '(`--strict`, or `X-Mock-Strict: 1` on this call) refuses a fixture whose rows break a rule instead.',
    },
  },
  additionalProperties: false,
}

export const AttachmentUpload: SchemaObject = {
  type: 'object',
  title: 'Attachment upload',
  description:
    'Form fields and one or more files. Fields may come before or after the files. With `folder`, the files go into the ' +
    'folder of that name (created when missing) at the top level of the row, or inside `folderId` when both are given.',
  required: ['parentId', 'file'],
  properties: {
    applicationId: { type: 'string', format: 'uuid', description: "Application of the row; default: the fixture's first application." },
    relationKey: { type: 'string', minLength: 1, description: 'Detail Relation Key when the row is a detail row; leave it out for a master row.' },
    parentId: { type: 'integer', minimum: 1, description: 'Id of the row the files are attached to.' },
    folderId: { type: 'integer', minimum: 1, description: 'Id of an existing folder of the row to put the files in.' },
    folder: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^/\\\\]+$',
      description: 'Name of a folder to put the files in; created when the row has none of that name.',
    },
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
