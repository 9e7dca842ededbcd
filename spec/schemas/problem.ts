/** RFC 9457 problem details, the body of every error response the mock sends. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED } from '../extensions.ts'

export const Problem: SchemaObject = {
  type: 'object',
  title: 'Problem details',
  [MOCK_DEFINED]: true,
  description:
    "Why a request failed, as RFC 9457 problem details. The published description defines no error body; this is the mock's. " +
    'Members other than these may appear.',
  required: ['title', 'status', 'detail'],
  properties: {
    type: { type: 'string', format: 'uri-reference', default: 'about:blank', description: 'Identifies the kind of problem.' },
    title: { type: 'string', description: 'Short summary of the kind of problem; the same for every occurrence.' },
    status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status code.' },
    detail: { type: 'string', description: 'What went wrong with this request, for people.' },
    instance: { type: 'string', format: 'uri-reference', description: 'Identifies this occurrence.' },
    code: {
      type: 'string',
      pattern: '^[A-Z][A-Z_]*$',
      description: 'Stable code of the kind of problem (for example `TOKEN_EXPIRED`, `VALIDATION`); docs/behaviour.md lists them all (the problem catalog).',
    },
    error: {
      type: 'string',
      enum: ['invalid_grant', 'invalid_client', 'unsupported_grant_type', 'invalid_scope'],
      description: 'On a refused sign-in: the OAuth 2.0 error code (RFC 6749, section 5.2).',
    },
    limit: {
      type: 'integer',
      description:
        'On 413 and 414: the limit that was exceeded (bytes, or characters of the URL); on a JSON body past the nesting or members limit (`BAD_JSON`): that limit.',
    },
    warning: {
      type: 'string',
      pattern: '^[A-Z][A-Z_]*$',
      description: 'On a request refused in strict mode (`STRICT_MODE`): the code of the warning the lenient mock would have raised.',
    },
    allow: { type: 'string', description: 'On 405: the methods the path takes, as in the `Allow` header.' },
    position: {
      type: 'integer',
      minimum: 0,
      description:
        'On a body that is not valid JSON (`BAD_JSON`): the character position where it stops being JSON; on a body past the nesting or members limit: where it goes past.',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'On a body that is not UTF-8 (`BAD_BODY`): the offset of the first byte that begins no UTF-8 character.',
    },
    hint: {
      type: 'string',
      description:
        'What to send instead, where a conversion or a rename is the fix: a TIMESTAMP sent back as the text a read gave (send the number it encodes), ' +
        'a Domain Id in a DomainId header (send it as WorkspaceId), "Bearer " in SessionToken, a sign-in sent as JSON, a body without its Content-Type or of another type, ' +
        'a compressed body (Content-Encoding), a body that is not UTF-8, fault rules sent as a bare array instead of `{ "rules": [...] }`.',
    },
    violations: {
      type: 'array',
      maxItems: 100,
      description:
        "For a request that breaks this document's schemas: what is wrong, every mistake once. One finding per wrong member (a " +
        '`oneOf` or a type that only repeats what is said inside the value is left out); the same fault in many array elements is ' +
        'one violation with `*` for the index, a `count` and the `first` exact pointer; the telling ones first (a wrong value, then ' +
        'a missing member, then an alternative that did not fit); at most 100, the rest counted in `unlisted`.',
      items: {
        type: 'object',
        required: ['pointer', 'keyword', 'message'],
        properties: {
          pointer: {
            type: 'string',
            description: 'JSON Pointer (RFC 6901) to the offending value in the request; `*` stands for every index of an array where `count` is given.',
          },
          keyword: { type: 'string', description: 'Schema keyword that failed (for example `type`, `required`, `pattern`).' },
          message: { type: 'string' },
          count: { type: 'integer', minimum: 2, description: 'The same violation in this many array elements.' },
          first: { type: 'string', description: 'With `count`: the exact pointer of the first element it was found in.' },
        },
      },
    },
    unlisted: { type: 'integer', minimum: 1, description: 'Distinct violations found past the 100 listed in `violations` (counted after merging).' },
  },
}
