/** Custom actions, e-mail and row links: the request and result bodies of the remaining operations. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'

export const ActionParameter: SchemaObject = {
  title: 'Action parameter',
  description: 'One entry of `parametersMap`: the stored procedure to run, or the parameters handed to it.',
  oneOf: [
    {
      type: 'object',
      title: 'Procedure name',
      required: ['Name', 'Value'],
      properties: {
        Name: { type: 'string', const: 'ProcedureName' },
        Value: { type: 'string', minLength: 1, description: 'Name of the stored procedure the action runs.' },
      },
      additionalProperties: false,
    },
    {
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
            properties: { key: { type: 'string', minLength: 1 }, value: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
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
      type: 'string',
      format: 'uuid',
      description: 'Id of a configured e-mail provider. Leave it out to send through the installation\'s default provider.',
    },
    to: { type: 'array', minItems: 1, items: { type: 'string', format: 'email' }, description: 'Recipient addresses.' },
    subject: { type: 'string' },
    body: { type: 'string' },
  },
  additionalProperties: false,
}

export const RowLinkRequest: SchemaObject = {
  type: 'object',
  title: 'Row link request',
  description: 'Rows to build a link for. Only master rows have links, so `relationKey` is always null.',
  required: ['relationKey', 'values', 'valueType'],
  properties: {
    // `enum: [null]` rather than `const: null`: same meaning, and generated client types read it as `null`, not `unknown`.
    relationKey: { enum: [null], description: 'Always null: links exist for master rows only.' },
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
