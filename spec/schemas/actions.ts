/** Custom actions, e-mail and row links: the request and result bodies of the remaining operations. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { MOCK_DEFINED, STRICT_OVERLAY } from '../extensions.ts'
import { EMAIL_RECIPIENT_PATTERN } from '../patterns.ts'

const PROCEDURE_NAME: SchemaObject = {
  type: 'object',
  title: 'Procedure name',
  required: ['Name', 'Value'],
  properties: {
    Name: { type: 'string', const: 'ProcedureName' },
    Value: {
      type: 'string',
      minLength: 1,
      description:
        'Name of the stored procedure the action runs. The action is the one `actionId` names; a different name here is accepted ' +
        'with the warning PROCEDURE_NAME_MISMATCH (case, brackets and the `dbo.` schema do not count as different).',
    },
  },
  additionalProperties: false,
}

const PROCEDURE_PARAMETERS: SchemaObject = {
  type: 'object',
  title: 'Procedure parameters',
  required: ['Name', 'Value'],
  properties: {
    Name: { type: 'string', const: 'Parameters' },
    Value: {
      type: 'array',
      description: 'Parameters passed to the procedure, as text.',
      items: {
        type: 'object',
        required: ['key', 'value'],
        properties: {
          key: { type: 'string', minLength: 1 },
          value: {
            type: ['string', 'null'],
            description: 'The value as text. null reaches the procedure as empty text (with the warning NULL_PARAMETER_VALUE).',
            [MOCK_DEFINED]: 'null is accepted with a warning',
            [STRICT_OVERLAY]: { type: 'string' },
          },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
}

export const ActionParameter: SchemaObject = {
  title: 'Action parameter',
  description:
    'One entry of `parametersMap`. The published description names two known entries, the stored procedure to run and the parameters handed ' +
    'to it, without saying they are the only ones; the mock ignores other entries, with a warning (strict mode refuses them).',
  // Strict mode takes the two entries the description names, and no other.
  [STRICT_OVERLAY]: { oneOf: [PROCEDURE_NAME, PROCEDURE_PARAMETERS] },
  oneOf: [
    PROCEDURE_NAME,
    PROCEDURE_PARAMETERS,
    {
      type: 'object',
      title: 'Other entry',
      description: 'An entry the description does not name; ignored, with the warning UNKNOWN_ACTION_PARAMETER.',
      [MOCK_DEFINED]: true,
      required: ['Name'],
      properties: {
        Name: { type: 'string', not: { enum: ['ProcedureName', 'Parameters'] } },
        Value: {},
      },
    },
  ],
}

export const ActionRequest: SchemaObject = {
  type: 'object',
  title: 'Run action request',
  required: ['actionId', 'parametersMap'],
  properties: {
    actionId: { type: 'string', format: 'uuid', description: 'Id of the custom action.' },
    parametersMap: { type: 'array', items: schemaRef('ActionParameter') },
  },
  additionalProperties: false,
}

export const ActionResult: SchemaObject = {
  type: 'object',
  title: 'Action result',
  description: 'Outcome of a custom action. An action that ran but failed still answers 200, with `IsSuccessful` false.',
  required: ['Message', 'IsSuccessful', 'Result', 'IsAsync'],
  properties: {
    Message: { type: 'string', description: 'What the action reports, for people.' },
    IsSuccessful: { type: 'boolean', description: 'True when the action ran successfully.' },
    Result: { type: 'string', description: 'Value the action returns, as text.' },
    IsAsync: { type: 'boolean', description: 'True when the action was queued to run later rather than run during the call.' },
  },
}

export const EmailRequest: SchemaObject = {
  type: 'object',
  title: 'E-mail',
  required: ['to', 'subject', 'body'],
  properties: {
    providerId: {
      type: ['string', 'null'],
      format: 'uuid',
      description:
        "Id of a configured e-mail provider. Leave it out to send through the installation's default provider; null reads as left out " +
        '(with the warning NULL_OPTIONAL_MEMBER).',
      [MOCK_DEFINED]: 'null is accepted with a warning',
      [STRICT_OVERLAY]: { type: 'string' },
    },
    to: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'string',
        // An RFC 5322 mailbox, in a pattern ECMAScript and Python read alike (spec/patterns.ts).
        pattern: EMAIL_RECIPIENT_PATTERN,
        [MOCK_DEFINED]: 'pattern',
        examples: ['buyer@northwind.example', 'Jane Doe <jane@northwind.example>'],
      },
      description: 'Recipient addresses: `local@domain`, or `Display Name <local@domain>`.',
    },
    subject: { type: 'string' },
    body: { type: 'string' },
  },
  additionalProperties: false,
}

export const RowLinkRequest: SchemaObject = {
  type: 'object',
  title: 'Row link request',
  description: 'Rows to build a link for. Only master rows have links, so `relationKey` is always null.',
  required: ['values', 'valueType'],
  [MOCK_DEFINED]: 'relationKey may be left out (with a warning)',
  [STRICT_OVERLAY]: { required: ['relationKey', 'values', 'valueType'] },
  properties: {
    // `const: null` without `type`: openapi-typescript 7 types it `unknown`, which openapi-fetch lets a client send. Typed
    // `null` (from `type: 'null'`, `enum: [null]` or `const` with `type`), openapi-fetch's Writable<> drops the member.
    relationKey: {
      const: null,
      description:
        'Always null: links exist for master rows only. Left out, it reads as null (with the warning ROW_LINK_WITHOUT_RELATION_KEY; strict mode refuses that).',
    },
    values: {
      description: 'Id of the master row, or several Ids.',
      oneOf: [
        { type: 'integer', title: 'One row Id' },
        { type: 'array', title: 'Several row Ids', minItems: 1, items: { type: 'integer' } },
      ],
    },
    valueType: { type: 'integer', const: 1, description: 'Always 1: `values` holds row Ids. (The published description calls this key dataType.)' },
  },
  additionalProperties: false,
}
