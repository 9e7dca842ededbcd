/** getControlPlaneDocument: this document, served without a control token. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/openapi.json`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'getControlPlaneDocument',
  summary: 'This document',
  description: "The control plane's own OpenAPI document. Served without a control token, since it holds nothing secret.",
  tags: ['Documentation'],
  security: [{}],
  responses: {
    '200': jsonResponse('The document.', schemaRef('ControlDocument'), {
      head: { summary: 'Its first members', value: { openapi: '3.1.0', info: { title: 'appdata-kit mock control plane', version: '0.1.0' }, paths: {} } },
    }),
    ...errorResponses(404),
  },
}
