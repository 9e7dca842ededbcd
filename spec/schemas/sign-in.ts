/** Sign-in results: the current token result and the legacy one. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { MOCK_DEFINED, PRODUCT_VERSIONS, STRICT_OVERLAY } from '../extensions.ts'
import { ADMIN_PASSWORD, ADMIN_USER, CLIENT_ID, SCOPE } from '../examples.ts'
import { LIMITS } from '../descriptions.ts'

/** The password grant's fields, in the form both current sign-in paths take (and, leniently, as JSON). */
export const PasswordGrant: SchemaObject = {
  type: 'object',
  title: 'Password grant',
  description:
    'The five fields of the password grant. As OAuth 2.0 servers do (RFC 6749, section 3.2), the mock ignores fields it ' +
    'does not know, and takes `client_id` from HTTP Basic client authentication (`Authorization: Basic`, section 2.3.1) ' +
    'when the form leaves it out; both raise a warning, since the published description shows neither.',
  required: ['client_id', 'username', 'password', 'grant_type', 'scope'],
  // Strict mode refuses other fields (SIGN_IN_EXTRA_PARAMETER). Said with propertyNames, not additionalProperties: the
  // sign-in handler reports unknown fields itself, so the mock's request check must not report them a second time.
  [STRICT_OVERLAY]: { propertyNames: { enum: ['client_id', 'username', 'password', 'grant_type', 'scope'] } },
  properties: {
    // Property examples are what the documentation page's "Try it out" fills the form with.
    client_id: { type: 'string', minLength: 1, description: "The client constant of the installation's API.", examples: [CLIENT_ID] },
    username: { type: 'string', minLength: 1, description: "The user's e-mail address.", examples: [ADMIN_USER] },
    password: { type: 'string', minLength: 1, examples: [ADMIN_PASSWORD] },
    grant_type: { type: 'string', const: 'password' },
    scope: {
      type: 'string',
      // Any of the three scopes the description sends, in any order, each at most as often as the mock reads it: one or more.
      pattern: '^\\s*(?:(?:openid|apiv1|nosession)(?:\\s+(?:openid|apiv1|nosession))*)?\\s*$',
      [MOCK_DEFINED]: 'pattern',
      description: 'Space-separated scopes: `openid apiv1 nosession` as the description sends them; the mock grants these three and refuses any other.',
      examples: [SCOPE],
    },
  },
  additionalProperties: { type: 'string', [MOCK_DEFINED]: 'other fields are ignored with a warning' },
}

export const TokenResult: SchemaObject = {
  type: 'object',
  title: 'Token result',
  description: 'A new session. Send `access_token` in the `SessionToken` header of data operations, or as a bearer token for e-mail.',
  required: ['access_token', 'expires_in', 'token-type', 'scope'],
  properties: {
    access_token: { type: 'string', minLength: 1, description: 'The session token.' },
    expires_in: {
      type: 'integer',
      minimum: 1,
      [MOCK_DEFINED]: 'the unit (seconds)',
      description:
        'How long the token stays valid. The published description calls this a time in milliseconds, yet its sample value is 3600, which ' +
        `reads as an hour in seconds. The mock sends seconds: ${LIMITS.tokenSeconds} by default, or the value of its ` +
        '`--token-ttl` flag; after that the token answers 401.',
    },
    'token-type': { type: 'string', description: 'Token type; the published sample sends an empty text.' },
    scope: { type: 'string', description: 'Granted scope; the published sample sends an empty text.' },
  },
}

export const LegacyTokenResult: SchemaObject = {
  type: 'object',
  title: 'Legacy token result',
  [PRODUCT_VERSIONS]: RANGES.legacy,
  description: "A new session on releases below 3.0: the user's workspace (then called domain) and the session token.",
  required: ['Domain', 'EncryptedCredentials', 'RedirectPage', 'SessionToken'],
  properties: {
    Domain: {
      type: 'object',
      description: 'The workspace the user signed in to.',
      required: ['Id', 'Name', 'CreationDate', 'IsActive', 'IsAdmin', 'IsBusinessDomain'],
      properties: {
        Id: { type: 'string', format: 'uuid', description: 'Workspace (Domain) Id.' },
        Name: { type: 'string' },
        CreationDate: {
          type: 'string',
          // WCF writes a local time with its offset: /Date(1704067200000+0100)/.
          pattern: '^/Date\\(-?\\d+([+-]\\d{4})?\\)/$',
          description:
            'Creation time written as `/Date(<milliseconds since 1970-01-01 UTC>)/`, as WCF writes dates; a local time carries its UTC offset after the milliseconds (`/Date(1704067200000+0100)/`).',
          examples: ['/Date(1704067200000)/'],
        },
        IsActive: { type: 'boolean' },
        IsAdmin: { type: 'boolean' },
        IsBusinessDomain: { type: 'boolean' },
      },
    },
    EncryptedCredentials: { type: ['string', 'null'], description: 'Null in the published sample.' },
    RedirectPage: { type: 'integer', description: 'Page the product would open after sign-in.' },
    SessionToken: { type: 'string', minLength: 1, description: 'The session token, for the `SessionToken` header.' },
  },
}
