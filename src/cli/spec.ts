import { writeFileSync } from 'node:fs'
import { extname } from 'node:path'
import { CommanderError, Option, type Command } from 'commander'
import { toJson, toYaml } from '../../spec/serialize.ts'
import { controlPlaneDocument, servedDocument } from '../document/reader.ts'
import { modeOf } from '../document/modes.ts'
import { emulatedRelease } from '../mock/config.ts'
import { subcommand } from '../cli-base/command.ts'
import type { Io } from './verify.ts'
import { ConfigError, EXIT, exitCodeOf } from '../cli-base/exit.ts'

/** The `spec` command's flags. */
export function specCommand(): Command {
  return subcommand('spec', "Write the OpenAPI 3.1 document of the Application Data Web API (every release, or one), or of the mock's control plane.")
    .addOption(new Option('--out <file>', 'file to write; .json for JSON, .yaml or .yml for YAML').env('APPDATA_SPEC_OUT').default(undefined, 'standard output'))
    .addOption(new Option('--format <format>', 'json or yaml, when writing to standard output').choices(['json', 'yaml']).env('APPDATA_SPEC_FORMAT').default('yaml'))
    .addOption(new Option('--product-version <version>', 'only the operations and forms of this release (latest, 3.0.18, 2.9, ...)').env('APPDATA_PRODUCT_VERSION').default(undefined, 'every release'))
    .addOption(new Option('--strict', "the document of a strict mock (--strict): what it accepts, where the default is the lenient mock's").env('APPDATA_SPEC_STRICT'))
    .addOption(new Option('--control-plane', "the mock's control plane (/__mock/) instead of the API").env('APPDATA_SPEC_CONTROL_PLANE'))
    .addHelpText(
      'after',
      '\nExamples:\n  npx appdata-kit spec --out openapi.yaml\n  npx appdata-kit spec --product-version 3.0.18 --out openapi-3.0.18.json\n  npx appdata-kit spec --strict --product-version latest --out openapi-strict.json',
    )
}

interface Flags {
  out?: string
  format: 'json' | 'yaml'
  productVersion?: string
  strict?: boolean
  controlPlane?: boolean
}

/** `appdata-kit spec`: returns the exit code; writes the document to the file or through `io`. */
export function runSpec(argv: readonly string[], io: Pick<Io, 'stdout' | 'stderr'>): number {
  const command = specCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  let flags: Flags
  try {
    command.parse([...argv], { from: 'user' })
    flags = command.opts<Flags>()
  } catch (error) {
    if (error instanceof CommanderError) return exitCodeOf(error)
    throw error
  }
  try {
    const format = flags.out === undefined ? flags.format : formatOf(flags.out)
    if (flags.controlPlane === true && (flags.productVersion !== undefined || flags.strict === true)) {
      throw new ConfigError(`${flags.strict === true ? '--strict' : '--product-version'} applies to the API's document, not to --control-plane`)
    }
    const release = flags.productVersion === undefined ? undefined : emulatedRelease(flags.productVersion)
    const document = flags.controlPlane === true ? controlPlaneDocument() : servedDocument(release, modeOf(flags.strict === true))
    const text = format === 'json' ? toJson(document) : toYaml(document)
    if (flags.out === undefined) io.stdout(text)
    else {
      writeFileSync(flags.out, text)
      io.stderr(`wrote ${flags.out}\n`)
    }
    return EXIT.ok
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`)
    return exitCodeOf(error)
  }
}

function formatOf(file: string): 'json' | 'yaml' {
  const extension = extname(file).toLowerCase()
  if (extension === '.json') return 'json'
  if (extension === '.yaml' || extension === '.yml') return 'yaml'
  throw new ConfigError(`--out must end in .json, .yaml or .yml (the format follows the extension), got "${file}"`)
}
