import { PRODUCT_TYPES, type ProductType } from '../../wire/type-forms.ts'
import { overrideFieldTypes } from '../capture/infer.ts'
import { writeFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import { createClient, ApiError } from '../../client/client.ts'
import { TransportError, type Transport } from '../../wire/transport.ts'
import { buildFixture, DEFAULT_FIXTURE_USERNAME } from '../capture/build-fixture.ts'
import { captureApplication, CaptureError } from '../capture/capture.ts'
import { emulatedRelease, switchOn, writableFile } from '../../mock/config.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { PACKAGE_VERSION } from '../../package-root.ts'
import { subcommand } from '../../cli-base/command.ts'
import { LATEST_VERSION } from '../../../spec/versions.ts'
import { collect, connectionOptions, connectionTransport, parseFlags, positiveInteger, type ConnectionFlags } from './connection.ts'
import { detectRelease } from './detect.ts'
import { redactor } from './verify-report.ts'
import type { Io } from './verify.ts'

/** The capture command's flags, each with its variable. */
export function captureCommand(): Command {
  const command = subcommand(
    'capture',
    'Reads one application of an installation into a fixture the mock serves (npm start -- --fixture FILE).\n' +
      'Strictly read-only: it calls sign-in, Get Items, Get Items Count, the attachments list and download, nothing else.\n' +
      'String values are anonymised by default (same shape, same value for the same input); Ids, Identity values, links to masters and the order of row versions are kept.',
  )
  for (const option of connectionOptions()) command.addOption(option)
  command.addOption(new Option('--out <file>', 'the fixture file to write (JSON)').env('APPDATA_CAPTURE_OUT').makeOptionMandatory())
  command.addOption(
    new Option('--relation-key <key>', 'a Detail Relation Key to capture (repeatable; the variable takes a comma-separated list)')
      .env('APPDATA_RELATION_KEY')
      .argParser(collect)
      .default([], 'none'),
  )
  command.addOption(
    new Option('--rows <n>', 'master rows to sample (the first by Id), each with its detail rows')
      .env('APPDATA_CAPTURE_ROWS')
      .argParser(positiveInteger('--rows'))
      .default(100),
  )
  command.addOption(
    new Option(
      '--attachments',
      "download the attachments' files too (without it their records, sizes and media types are read, and the mock answers placeholder bytes of each file's size)",
    ).env('APPDATA_CAPTURE_ATTACHMENTS'),
  )
  command.addOption(
    new Option('--attachment-limit <bytes>', 'bytes of attachment files to download at most (a file past it is recorded by size)')
      .env('APPDATA_ATTACHMENT_LIMIT')
      .argParser(positiveInteger('--attachment-limit'))
      .default(10 * 1024 * 1024, '10485760 (10 MB)'),
  )
  command.addOption(new Option('--no-anonymise', 'keep the values as read (default: anonymise them; env APPDATA_ANONYMISE=0)'))
  command.addOption(
    new Option(
      '--keep-values <field>',
      'a field whose values are kept as read while the others are anonymised (repeatable; the variable takes a comma-separated list): a status or category your tests filter on',
    )
      .env('APPDATA_KEEP_VALUES')
      .argParser(collect)
      .default([], 'none'),
  )
  command.addOption(
    new Option(
      '--fixture-username <email>',
      `the captured user's sign-in name in the fixture (default: ${DEFAULT_FIXTURE_USERNAME}; with --no-anonymise, --username)`,
    ).env('APPDATA_FIXTURE_USERNAME'),
  )
  command.addOption(
    new Option('--fixture-password <password>', "the captured user's password in the fixture (never the real one)")
      .env('APPDATA_FIXTURE_PASSWORD')
      .default('sandbox-pass'),
  )
  command.addOption(
    new Option('--identity-field <name>', "the master storage's Identity field (inferred from the rows when left out)").env('APPDATA_IDENTITY_FIELD'),
  )
  command.addOption(
    new Option(
      '--field-type <field=type>',
      'the product data type of a field, as Field=Type (repeatable), where the values cannot tell it (a 0/1 field that is a Boolean)',
    )
      .argParser(collect)
      .default([], 'inferred'),
  )
  command.addOption(
    new Option(
      '--master-field <key=field>',
      "the field of a detail table that holds its master's Id, as RelationKey=Field (repeatable; inferred when left out)",
    )
      .env('APPDATA_MASTER_FIELDS')
      .argParser(collect)
      .default([], 'inferred'),
  )
  command.addOption(new Option('--storage-id <guid>', "the master storage's Id (the API does not tell it; generated when left out)").env('APPDATA_STORAGE_ID'))
  command.addOption(
    new Option('--rows-as-generator', "write generate schemas and no rows, so the mock's --rows N makes rows of the same shape at any size").env(
      'APPDATA_ROWS_AS_GENERATOR',
    ),
  )
  command.addOption(
    new Option('--seed <n>', 'seed of the anonymised values and generated ids (same seed, same file)')
      .env('APPDATA_SEED')
      .argParser(positiveInteger('--seed'))
      .default(1),
  )
  command.addOption(
    new Option('--concurrency <n>', 'requests at once while reading attachment lists and sizes')
      .env('APPDATA_CONCURRENCY')
      .argParser(positiveInteger('--concurrency'))
      .default(4),
  )
  command.addHelpText(
    'after',
    `
Example (the mock started with npm start):
  appdata-kit capture --base-url http://127.0.0.1:4080 --org acme --username admin@acme.test --password admin-pass \\
    --workspace-id 6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70 --application-id a1b2c3d4-0000-4000-8000-000000000001 \\
    --relation-key OrderLines --fixture-username ci@acme.test --fixture-password ci-pass --out orders.json
  npm start -- --fixture orders.json`,
  )
  return command
}

interface Flags extends ConnectionFlags {
  out: string
  relationKey: string[]
  rows: number
  attachments?: boolean
  attachmentLimit: number
  anonymise: boolean
  keepValues: string[]
  fixtureUsername?: string
  fixturePassword: string
  identityField?: string
  masterField: string[]
  storageId?: string
  rowsAsGenerator?: boolean
  seed: number
  concurrency: number
  fieldType: string[]
}

/** `--field-type Delivered=Boolean` as a map; a malformed one, or a name that is no product type, is a bad flag. */
function fieldTypes(entries: readonly string[]): Record<string, ProductType> {
  return Object.fromEntries(
    entries.map((entry) => {
      const match = /^([^=]+)=(.+)$/.exec(entry)
      const type = match?.[2] as ProductType | undefined
      if (match === null || type === undefined || !PRODUCT_TYPES.includes(type))
        throw new ConfigError(`--field-type takes Field=Type, Type one of ${PRODUCT_TYPES.join(', ')}; got "${entry}"`)
      return [match[1] as string, type]
    }),
  )
}

/** `--master-field OrderLines=MasterId` as a map; a malformed one is a bad flag. */
function masterFields(entries: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    entries.map((entry) => {
      const match = /^([^=]+)=(.+)$/.exec(entry)
      if (match === null) throw new ConfigError(`--master-field takes RelationKey=Field, got "${entry}"`)
      return [match[1] as string, match[2] as string]
    }),
  )
}

/**
 * `appdata-kit capture`: flags, a transport, the release (given or detected), the capture, the
 * fixture file and a summary. Exit 0 when written, 2 for bad flags, an installation that cannot be
 * reached or signed in to, or an application capture cannot read (a relation key it lacks).
 */
export async function runCapture(
  argv: readonly string[],
  io: Pick<Io, 'stdout' | 'stderr' | 'transport'>,
  now: () => Date = () => new Date(),
): Promise<number> {
  const command = captureCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  let fields: Record<string, string> = {}
  let types: Record<string, ProductType> = {}
  const flags = parseFlags<Flags>(command, argv, io.stderr, (parsed) => {
    // The negated switch's variable, read as the others are (1/0, true/false, ...).
    if (process.env.APPDATA_ANONYMISE !== undefined && command.getOptionValueSource('anonymise') !== 'cli')
      parsed.anonymise = switchOn('APPDATA_ANONYMISE', process.env.APPDATA_ANONYMISE)
    if (parsed.productVersion !== undefined) emulatedRelease(parsed.productVersion)
    writableFile('--out', parsed.out)
    // The fixture's own rule for a sign-in name, so the file written always loads.
    if (parsed.fixtureUsername !== undefined && !/^[^\s@]+@[^\s@]+$/.test(parsed.fixtureUsername))
      throw new ConfigError(`--fixture-username takes an e-mail address (name@domain), got "${parsed.fixtureUsername}"`)
    if (parsed.fixturePassword === '') throw new ConfigError('--fixture-password must not be empty')
    fields = masterFields(parsed.masterField)
    types = fieldTypes(parsed.fieldType)
  })
  if (typeof flags === 'number') return flags
  const redact = redactor([flags.password])
  const say = (text: string) => io.stdout(`${redact(text)}\n`)
  let transport: Transport | undefined
  try {
    transport = io.transport ?? connectionTransport(flags.baseUrl, flags)
    const detected = await detectRelease(transport, flags.org, flags.productVersion)
    if ('reason' in detected) {
      io.stderr(`error: ${redact(flags.baseUrl)}: ${detected.reason}\n`)
      return EXIT.usage
    }
    say(`capturing ${transport.target}: release ${detected.label}, application ${flags.applicationId}, read-only`)
    const client = createClient({
      transport,
      productVersion: detected.release,
      organization: flags.org,
      clientId: flags.clientId,
      legacyClientId: flags.legacyClientId,
      workspaceId: flags.workspaceId,
      applicationId: flags.applicationId,
    })
    const captured = await captureApplication(client, {
      credentials: { username: flags.username, password: flags.password },
      organization: flags.org,
      clientId: flags.clientId,
      legacyClientId: flags.legacyClientId,
      workspaceId: flags.workspaceId,
      applicationId: flags.applicationId,
      relationKeys: flags.relationKey,
      rows: flags.rows,
      // Rows as a generator keep no attachments, so none is read.
      attachments: flags.rowsAsGenerator === true ? 'none' : flags.attachments === true ? 'files' : 'records',
      attachmentLimit: flags.attachmentLimit,
      identityField: flags.identityField,
      masterFields: fields,
      storageId: flags.storageId,
      concurrency: flags.concurrency,
      progress: say,
      now,
    })
    const overridden = overrideFieldTypes([captured.master, ...captured.details], types)
    if (overridden !== undefined) throw new CaptureError(overridden)
    // A name that is no captured field would keep nothing, silently: the typo is the user's to fix.
    const fieldNames = new Set([captured.master, ...captured.details].flatMap((storage) => storage.fields.map((field) => field.name)))
    const unknownKept = flags.keepValues.filter((name) => !fieldNames.has(name))
    if (unknownKept.length > 0)
      throw new CaptureError(`--keep-values ${unknownKept.join(', ')}: no captured field has that name (fields: ${[...fieldNames].join(', ')})`)
    const { fixture, notes } = buildFixture(captured, {
      anonymise: flags.anonymise,
      seed: flags.seed,
      username: flags.fixtureUsername,
      password: flags.fixturePassword,
      rowsAsGenerator: flags.rowsAsGenerator === true,
      keepValues: flags.keepValues,
    })
    writeFileSync(
      flags.out,
      `${JSON.stringify({ description: `Captured from ${transport.target} on ${captured.capturedAt} by appdata-kit ${PACKAGE_VERSION}${flags.anonymise ? ', anonymised' : ''}. ${notes.join('. ')}.`, ...fixture }, null, 2)}\n`,
    )
    for (const storage of [{ name: 'master', ...captured.master }, ...captured.details.map((d) => ({ name: d.relationKey, ...d }))]) {
      const link = 'masterField' in storage ? `, master link ${String(storage.masterField)}` : ''
      say(
        `${storage.name}: ${storage.rows.length} of ${storage.count} rows; Identity field ${storage.identityField}${link}; fields ${storage.fields
          .filter((f) => f.name !== storage.identityField)
          .map((f) => `${f.name} ${f.type}${f.nullable ? ' (nullable)' : ''}`)
          .join(', ')}`,
      )
    }
    for (const note of notes) say(`note: ${note}`)
    const release = detected.release === LATEST_VERSION ? '' : ` --product-version ${detected.release}`
    const kept = flags.anonymise && flags.keepValues.length > 0 ? `, but ${flags.keepValues.join(', ')} kept` : ''
    say(`wrote ${flags.out}${flags.anonymise ? ` (values anonymised${kept})` : ''}; serve it with: npx appdata-kit mock --fixture ${flags.out}${release}`)
    // The fixture's user and password (never the real one: --fixture-password, default sandbox-pass), so
    // the first sign-in to the captured mock does not send the team looking through the file.
    const user = fixture.organization.users[0]
    if (user !== undefined) say(`sign in to it as ${user.email} with password ${user.password}`)
    return EXIT.ok
  } catch (error) {
    if (error instanceof CaptureError || error instanceof TransportError || error instanceof ApiError) {
      io.stderr(`error: ${redact(error.message)}\n`)
      return EXIT.usage
    }
    throw error
  } finally {
    await transport?.close()
  }
}
