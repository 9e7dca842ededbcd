/** components.responses of the control plane: its problem+json answers. */
import type { ExampleObject, ResponseObject } from 'openapi3-ts/oas31'
import { CONTROL_ERROR_RESPONSES, responseRef, schemaRef, type ControlErrorStatus, type ControlResponseName } from './refs.ts'
import { problemExample } from './examples.ts'

/** A problem+json answer; unlike spec/responses.ts's, without `x-mock-defined`, since the whole plane is the mock's. */
export function problemResponse(description: string, examples: Record<string, ExampleObject>): ResponseObject {
  return { description, content: { 'application/problem+json': { schema: schemaRef('Problem'), examples } } }
}

export const responses: Record<ControlResponseName, ResponseObject> = {
  BadRequest: problemResponse("The request breaks this document's schema (every violation is listed in `violations`), or the fixture is refused.", {
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
    {
      controlToken: problemExample(
        401,
        'CONTROL_TOKEN',
        'Control token missing or wrong',
        'Send the control token in Authorization: Bearer or X-Mock-Control-Token.',
      ),
    },
  ),
  OtherOrigin: problemResponse(
    'A web page called: the request came from another origin (`Origin`, `Sec-Fetch-Site`), whatever `--cors` allows, or named a `Host` that is neither a loopback address nor an `--allowed-host` (DNS rebinding).',
    {
      crossOrigin: problemExample(
        403,
        'CROSS_ORIGIN',
        'Control plane closed to other origins',
        'The control plane answers its own origin (http://127.0.0.1:4080) only, not a page of http://evil.example.',
      ),
      foreignHost: problemExample(
        403,
        'FOREIGN_HOST',
        'Host name not answered by this mock',
        'This mock answers localhost and loopback addresses only, not the host "rebind.example": start it with --allowed-host rebind.example (or MOCK_ALLOWED_HOSTS).',
      ),
    },
  ),
  UnsupportedMediaType: problemResponse(
    'The body is neither `application/json` nor, on the upload, `multipart/form-data` (a form post or `text/plain` from a web page); it is not read.',
    {
      textBody: problemExample(
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Body type not taken here',
        'The control plane takes a body as application/json only; this one is "text/plain".',
      ),
    },
  ),
  NotFound: problemResponse('Something the request names does not exist.', {
    unknownRow: problemExample(404, 'UNKNOWN_ROW', 'Unknown row', 'Row 999 does not exist in storage Orders.'),
  }),
  UriTooLong: problemResponse('The URL is longer than the mock takes (`--max-url-length`, 2048 characters by default).', {
    urlTooLong: problemExample(414, 'URI_TOO_LONG', 'URL too long', 'The URL has 2311 characters; the limit is 2048.'),
  }),
  SequenceExhausted: problemResponse(
    'The next attachment Id would pass 2^53 - 1, the largest integer the mock holds exactly (only a fixture that sets Ids that high gets there): nothing is added.',
    {
      sequenceExhausted: problemExample(
        409,
        'SEQUENCE_EXHAUSTED',
        'Sequence exhausted',
        'the next attachment Id would pass 9007199254740991 (2^53 - 1), the largest integer the mock holds exactly; load a fixture with lower values or reset the mock.',
      ),
    },
  ),
  StateNotWritten: problemResponse(
    'The mock keeps its data in a state file (`--state-file`) and could not write the new data there (a full or read-only disk, a folder gone): nothing changed, in memory or on disk, and writes go on as before.',
    {
      stateNotWritten: problemExample(
        507,
        'STATE_NOT_WRITTEN',
        'State file not written',
        'Nothing changed: the data could not be written to the state file (state file /srv/sandbox.json not written: ENOSPC: no space left on device, write).',
      ),
    },
  ),
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

/** Entries of an operation's responses map for the given error statuses, as references. */
export function errorResponses(...statuses: ControlErrorStatus[]): Record<string, ReturnType<typeof responseRef>> {
  return Object.fromEntries(statuses.map((status) => [String(status), responseRef(CONTROL_ERROR_RESPONSES[status])]))
}
