/**
 * `npm run spec`: writes spec/openapi.json and spec/openapi.yaml from buildDocument(),
 * spec/control-plane.json and spec/control-plane.yaml from buildControlPlaneDocument(), and the
 * TypeScript wire types of both (spec/wire/api.ts, spec/wire/control-plane.ts) that handlers, the
 * client and the contracts take their shapes from, the fixture schema's compiled validator
 * (src/fixtures/fixture-validator.generated.ts), the usage file's schema and its compiled validator
 * (spec/usage.schema.json, src/usage-file/usage-validator.generated.ts), the ignore file's schema and its compiled
 * validators (spec/ignore.schema.json, src/commands/kit/ignore-validator.generated.ts) and the request validators of the documents the
 * mock serves (src/document/request-validators.generated.ts). The serialisers are pure so the freshness tests can compare their output with the
 * committed files.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { buildDocument } from './index.ts'
import { buildControlPlaneDocument } from './control-plane.ts'
import { GENERATED_BY, toJson, toYaml } from './serialize.ts'
import { FIXTURE_VALIDATOR_FILE, fixtureValidatorSource } from './fixture-validator.ts'
import { REQUEST_VALIDATORS_FILE, requestValidatorsSource, servedViews } from './request-validators.ts'
import { USAGE_SCHEMA_FILE, USAGE_VALIDATOR_FILE, usageSchemaText, usageValidatorSource } from './usage-schema.ts'
import { IGNORE_SCHEMA_FILE, IGNORE_VALIDATOR_FILE, ignoreSchemaText, ignoreValidatorSource } from './ignore-schema.ts'

/**
 * The document's types as openapi-typescript writes them (`paths`, `operations`, `components`),
 * headed by the marker. openapi-typescript is a build-time tool, loaded only here.
 */
export async function toWireTypes(doc: OpenAPIObject): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript')
  // The document references no file (spec/paths/download-attachment.ts), so it needs no `cwd`.
  const ast = await openapiTS(JSON.parse(JSON.stringify(doc)), { silent: true })
  return `// ${GENERATED_BY}\n/* eslint-disable */\n${astToString(ast)}`
}

const SPEC_DIR = fileURLToPath(new URL('.', import.meta.url))

/** Where each generated file lives, relative to spec/. */
export const GENERATED_FILES = {
  api: { json: 'openapi.json', yaml: 'openapi.yaml', wire: 'wire/api.ts' },
  controlPlane: { json: 'control-plane.json', yaml: 'control-plane.yaml', wire: 'wire/control-plane.ts' },
} as const

async function write(doc: OpenAPIObject, files: { json: string; yaml: string; wire: string }): Promise<void> {
  const at = (name: string) => resolve(SPEC_DIR, name)
  mkdirSync(dirname(at(files.wire)), { recursive: true })
  writeFileSync(at(files.json), toJson(doc))
  writeFileSync(at(files.yaml), toYaml(doc))
  writeFileSync(at(files.wire), await toWireTypes(doc))
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await write(buildDocument(), GENERATED_FILES.api)
  await write(buildControlPlaneDocument(), GENERATED_FILES.controlPlane)
  writeFileSync(resolve(SPEC_DIR, '..', FIXTURE_VALIDATOR_FILE), fixtureValidatorSource(resolve(SPEC_DIR, '../fixtures/fixture.schema.json')))
  writeFileSync(
    resolve(SPEC_DIR, '..', REQUEST_VALIDATORS_FILE),
    requestValidatorsSource(servedViews({ api: buildDocument(), controlPlane: buildControlPlaneDocument() })),
  )
  writeFileSync(resolve(SPEC_DIR, '..', USAGE_SCHEMA_FILE), usageSchemaText())
  writeFileSync(resolve(SPEC_DIR, '..', USAGE_VALIDATOR_FILE), usageValidatorSource())
  writeFileSync(resolve(SPEC_DIR, '..', IGNORE_SCHEMA_FILE), ignoreSchemaText())
  writeFileSync(resolve(SPEC_DIR, '..', IGNORE_VALIDATOR_FILE), ignoreValidatorSource())
  console.log(
    `wrote ${Object.values(GENERATED_FILES)
      .flatMap((f) => Object.values(f))
      .map((name) => `spec/${name}`)
      .join(
        ', ',
      )}, ${FIXTURE_VALIDATOR_FILE}, ${REQUEST_VALIDATORS_FILE}, ${USAGE_SCHEMA_FILE}, ${USAGE_VALIDATOR_FILE}, ${IGNORE_SCHEMA_FILE}, ${IGNORE_VALIDATOR_FILE}`,
  )
}
