/** components.parameters: the identifying headers of data operations and the path parameters. */
import type { ParameterObject } from 'openapi3-ts/oas31'
import type { ParameterName } from './refs.ts'
import { MOCK_DEFINED } from './extensions.ts'
import { MAX_IDENTITY_COUNT } from './descriptions.ts'
import { APPLICATION_ID, MASTER_STORAGE_ID, ORGANIZATION, SESSION_TOKEN, WORKSPACE_ID, IDENTITY_FIELD } from './examples.ts'

/** Largest `count` the mock reserves in one call; the published description names no limit. */
export { MAX_IDENTITY_COUNT }

/** A GUID, or the 24 hexadecimal digits of a Domain Id (releases before 3.0). */
const WORKSPACE_ID_PATTERN = '^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{24})$'

const workspaceId: ParameterObject = {
  name: 'WorkspaceId',
  in: 'header',
  required: true,
  description:
    "Id of the workspace holding the application: a GUID, or on releases before 3.0 the Domain Id, which the product's reference shows as 24 " +
    'hexadecimal digits (`5e5d0d90bea69e451ad8bc1d`). The mock takes both forms in every mode.',
  schema: { type: 'string', pattern: WORKSPACE_ID_PATTERN },
  example: WORKSPACE_ID,
}

export const parameters: Record<ParameterName, ParameterObject> = {
  ApplicationId: {
    name: 'ApplicationId',
    in: 'header',
    required: true,
    description: 'Id of the application whose data is read or written.',
    schema: { type: 'string', format: 'uuid' },
    example: APPLICATION_ID,
  },
  SessionToken: {
    name: 'SessionToken',
    in: 'header',
    required: true,
    description: 'The session token returned by sign-in (`access_token`, or `SessionToken` in the legacy result).',
    schema: { type: 'string', minLength: 1 },
    example: SESSION_TOKEN,
  },
  WorkspaceId: workspaceId,
  WorkspaceIdOptional: {
    ...workspaceId,
    required: false,
    description: 'Id of the workspace (Domain Id before 3.0). Releases below 3.0 do not require it on this call.',
  },
  OrganizationPhysicalName: {
    name: 'organizationphysicalname',
    in: 'path',
    required: true,
    description: 'Physical name of the organization, as shown on its information tab in the product.',
    schema: { type: 'string', minLength: 1 },
    example: ORGANIZATION,
  },
  StorageId: {
    name: 'storage_id',
    in: 'path',
    required: true,
    description: 'Id of the storage whose identity values are reserved.',
    schema: { type: 'string', format: 'uuid' },
    example: MASTER_STORAGE_ID,
  },
  FieldName: {
    name: 'field_name',
    in: 'path',
    required: true,
    description: "Physical name of the storage's Identity field.",
    schema: { type: 'string', minLength: 1 },
    example: IDENTITY_FIELD,
  },
  IdentityCount: {
    name: 'count',
    in: 'path',
    required: true,
    description: `How many consecutive values to reserve. The published description sets no upper bound; the mock accepts at most ${MAX_IDENTITY_COUNT}.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_IDENTITY_COUNT, [MOCK_DEFINED]: 'maximum' },
    examples: { three: { summary: 'Three values', value: 3 } },
  },
}
