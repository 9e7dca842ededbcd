/**
 * The ignore file's JSON Schema (spec/ignore.schema.json, exported as `appdata-kit/ignore.schema.json`)
 * and its compiled validators, one per command (src/commands/kit/ignore-validator.generated.ts), both written
 * by `npm run spec`. Built here from the bounds and members the reader uses (src/commands/kit/ignore-format.ts)
 * and the upgrade report's finding kinds, so the schema, the reader and the docs cannot come to
 * disagree; a test keeps the written files in step.
 */
import { Ajv2020 } from 'ajv/dist/2020.js'
import standaloneModule from 'ajv/dist/standalone/index.js'
import { ANY, IGNORE_LIMITS } from '../src/commands/kit/ignore-format.ts'
import { FINDING_KINDS } from '../src/commands/upgrade/types.ts'

// ajv ships CommonJS; under NodeNext its default export types as the module object.
const standalone = standaloneModule as unknown as (ajv: Ajv2020, refs: Record<string, string>) => string

/** Where the ignore schema lives, relative to the project (published as `appdata-kit/ignore.schema.json`). */
export const IGNORE_SCHEMA_FILE = 'spec/ignore.schema.json'
/** Where its compiled validators live, relative to the project. */
export const IGNORE_VALIDATOR_FILE = 'src/commands/kit/ignore-validator.generated.ts'

const ID = 'urn:appdata-kit:ignore'
const L = IGNORE_LIMITS

const text = (description: string) => ({ type: 'string', minLength: 1, maxLength: L.textLength, description })
const reason = text('Why the team accepts it; kept beside the finding in every report.')
const operationId = text(
  `The operation's id as the report names it (\`queryItems\`), or \`${ANY}\` for any; a finding that touches several operations is accepted when one of them is named.`,
)

/** At least one of the members that name a finding. */
const names = (members: readonly string[]) => members.map((member) => ({ required: [member] }))

/** A file of a command: a list of its entries, or `{ "ignore": [...] }` (the type decides which keywords apply). */
const fileOf = (entry: string, description: string) => {
  const list = { type: 'array', maxItems: L.entries, items: { $ref: `#/$defs/${entry}` } }
  return { description, ...list, type: ['array', 'object'], required: ['ignore'], additionalProperties: false, properties: { ignore: list } }
}

/** The schema as an object. */
export function buildIgnoreSchema(): object {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: ID,
    title: 'appdata-kit ignore file',
    description:
      `Findings a team has accepted, for \`proxy --ignore\` and \`upgrade --ignore\`, in YAML or JSON: a list of entries, or \`{ "ignore": [...] }\`. ` +
      `Each entry names a finding by the members of its command (the proxy: side, operationId, pointer; upgrade: kind, operationId), each a value or \`${ANY}\` for any, ` +
      `and may give a reason, kept in every report. A member left out matches any value; an entry names at least one. ` +
      `Bounds: at most ${L.entries} entries, texts of at most ${L.textLength} characters; the file itself at most ${L.fileBytes} bytes (which only the reader checks). See docs/proxy.md and docs/upgrade.md.`,
    anyOf: [{ $ref: '#/$defs/proxyFile' }, { $ref: '#/$defs/upgradeFile' }],
    $defs: {
      proxyFile: fileOf('proxyEntry', 'The ignore file of `proxy --ignore`.'),
      upgradeFile: fileOf('upgradeEntry', 'The ignore file of `upgrade --ignore`.'),
      proxyEntry: {
        description: "One accepted finding of the proxy's report: every member given must match.",
        type: 'object',
        additionalProperties: false,
        anyOf: names(['side', 'operationId', 'pointer']),
        properties: {
          side: { enum: ['request', 'answer', ANY], description: "The client's request or the installation's answer." },
          operationId,
          pointer: text(
            `The JSON pointer as the report writes it (\`/body/*/Amount\`, \`/headers/ApplicationId\`; a header's name in any letter case), or \`${ANY}\` for any.`,
          ),
          reason,
        },
      },
      upgradeEntry: {
        description: "One accepted finding of upgrade's report: every member given must match.",
        type: 'object',
        additionalProperties: false,
        anyOf: names(['kind', 'operationId']),
        properties: {
          kind: { enum: [...FINDING_KINDS, ANY], description: 'The kind of change, as the report names it.' },
          operationId,
          reason,
        },
      },
    },
  }
}

/** The schema as the file holds it: 2-space JSON with a trailing newline. */
export function ignoreSchemaText(): string {
  return `${JSON.stringify(buildIgnoreSchema(), null, 2)}\n`
}

/**
 * The schema's validators as standalone code (Ajv's standalone mode), one per command, so a command
 * checks a file without compiling the schema first. Each stops at the first problem: a message
 * names one entry and one member.
 */
export function ignoreValidatorSource(): string {
  // `unicode: false` counts a text's length in UTF-16 code units, as JavaScript does (deprecated in Ajv 8, still what it reads); logger: false keeps the notice out of `npm run spec`.
  // strictRequired off: "at least one of" is `anyOf` of `required`, whose members are defined beside it, not in each branch.
  const ajv = new Ajv2020({
    allErrors: false,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    unicode: false,
    logger: false,
    code: { source: true, esm: true },
  })
  ajv.addSchema(buildIgnoreSchema())
  const code = standalone(ajv, { proxy: `${ID}#/$defs/proxyFile`, upgrade: `${ID}#/$defs/upgradeFile` })
  return [
    `// generated by npm run spec from ${IGNORE_SCHEMA_FILE}'s source (spec/ignore-schema.ts), do not edit`,
    '// @ts-nocheck',
    // The generated code reaches Ajv's runtime helpers through require, which an ES module makes for itself.
    "import { createRequire } from 'node:module'",
    'const require = createRequire(import.meta.url)',
    code,
    '',
  ].join('\n')
}
