/**
 * The OpenAPI 3.1 document of the mock's control plane (`/__mock/...`): what CI users call to reset
 * the mock, load data, upload files, read the e-mail outbox and the request journal, inject faults
 * and move the clock. Nothing here exists in the real product, so every operation is marked
 * `x-mock-defined`. The mock validates control requests against this document and serves it at
 * `/__mock/openapi.json`; `npm run spec` writes it to spec/control-plane.{json,yaml}.
 */
import type { OpenAPIObject, OperationObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED } from '../extensions.ts'
import { CONTROL_TOKEN_HEADER } from './constants.ts'
import { schemas } from './schemas.ts'
import { parameters } from './parameters.ts'
import { errorResponses, responses } from './responses.ts'
import { operations } from './paths/index.ts'

export {
  CONTROL_PREFIX,
  CONTROL_TOKEN_HEADER,
  MAX_FAULT_RULES,
  MAX_FAULT_LATENCY_MS,
  MAX_CLOCK_ADVANCE_MS,
  MAX_ANSWER_RULES,
  MAX_ANSWER_DELAY_MS,
  DEFAULT_ANSWER_PRIORITY,
} from './constants.ts'
export { MINIMAL_FIXTURE } from './examples.ts'

const TAGS = [
  { name: 'State', description: 'Resetting the mock, loading data, uploading files.' },
  { name: 'Observation', description: 'What clients did: the e-mail outbox and the request journal.' },
  { name: 'Faults', description: "Slow, failing and cut-off answers, to test a client's retries." },
  { name: 'Answer rules', description: "Answers a test chooses for matching requests: whole answers, merge patches of the mock's own, delays and scenarios." },
  { name: 'Locks', description: "Rows locked as if another user had them open, to test a client's handling of `LockedItems`." },
  { name: 'Clock', description: "The mock's time." },
  { name: 'Documentation', description: 'This document.' },
]

const DESCRIPTION =
  'The control plane of the appdata-kit mock: tests call it to reset the mock between tests, load their own data, upload ' +
  'files, read what was "sent" and what their client called, make the mock slow or failing, and move its clock. None of it ' +
  "exists in the real product; every operation is the mock's own (`x-mock-defined`).\n\n" +
  'It is on by default on a loopback host and answers under `/__mock/`. `--no-control-plane` switches it off (404). On any ' +
  'other host it is off unless the mock was started with `--control-token`; with a token, on any host, every call needs it ' +
  'in `Authorization: Bearer <token>` or `X-Mock-Control-Token: <token>`. Control calls are not journaled and never ' +
  'affected by fault rules. The same controls are methods of the object `startMock()` returns.\n\n' +
  'No web page may use it: a call from another origin (`Origin` or `Sec-Fetch-Site`) answers 403 `CROSS_ORIGIN` whatever ' +
  '`--cors` allows, a `Host` that names neither a loopback address nor an `--allowed-host` 403 `FOREIGN_HOST`, and a body ' +
  'other than `application/json` (or `multipart/form-data` on the upload) 415 `UNSUPPORTED_MEDIA_TYPE`.'

/** Builds the control-plane document. Pure: each call returns a fresh object. */
export function buildControlPlaneDocument(): OpenAPIObject {
  const paths: Record<string, Record<string, OperationObject>> = {}
  for (const { path, method, operation } of operations) {
    paths[path] ??= {}
    // Every call may meet the refusals of web pages; one that sends a body, the refusal of its type.
    const refusals = { ...errorResponses(403), ...(method === 'get' ? {} : errorResponses(415)) }
    ;(paths[path] as Record<string, OperationObject>)[method] = { ...operation, responses: { ...operation.responses, ...refusals }, [MOCK_DEFINED]: true }
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
      schemas,
      parameters,
      responses,
      securitySchemes: {
        ControlBearer: { type: 'http', scheme: 'bearer', description: 'The `--control-token` value as a bearer token.' },
        ControlTokenHeader: { type: 'apiKey', in: 'header', name: CONTROL_TOKEN_HEADER, description: 'The `--control-token` value in its own header.' },
      },
    },
  }
  // Structured copy so no caller can change the module-level objects the document is made of.
  return structuredClone(document)
}
