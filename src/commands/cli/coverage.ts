import { Option, type Command } from 'commander'
import { subcommand } from '../../cli-base/command.ts'
import { parseFlags } from './connection.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { readUsageFile, UsageFileError } from '../../usage-file/file.ts'
import { coverageMarkdown, coverageOf, coverageText } from '../usage/coverage.ts'

/** The `coverage` command's flags. */
export function coverageCommand(): Command {
  return subcommand(
    'coverage',
    "Reads a usage file (written by a mock started with --record-usage) and shows which operations, variants, query options, filter operators and refusals of the API's document the tests used, with counts, and which they never did.\n" +
      'Exit code 0, or 1 below --fail-under; 2 for bad flags or a usage file it cannot use (past a limit of docs/usage.md, Limits, or of the wrong types).',
  )
    .argument('<file>', 'the usage file')
    .addOption(new Option('--format <format>', 'text, markdown (for a CI job summary) or json').choices(['text', 'markdown', 'json']).default('text'))
    .addOption(new Option('--fail-under <percent>', 'exit 1 when the coverage is below this percentage (0 to 100)'))
    .addHelpText(
      'after',
      '\nExamples:\n  npx appdata-kit coverage usage.json\n  npx appdata-kit coverage usage.json --format markdown >> "$GITHUB_STEP_SUMMARY"',
    )
}

interface Flags {
  format: 'text' | 'markdown' | 'json'
  failUnder?: string
}

/** `appdata-kit coverage`: returns the exit code; writes the report through `io`. */
export function runCoverage(argv: readonly string[], io: { stdout: (text: string) => void; stderr: (text: string) => void }): number {
  const command = coverageCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  const flags = parseFlags<Flags>(command, argv, io.stderr, (f) => {
    if (f.failUnder !== undefined && !(/^\d+(\.\d+)?$/.test(f.failUnder) && Number(f.failUnder) <= 100))
      throw new ConfigError(`--fail-under must be a percentage from 0 to 100, got "${f.failUnder}"`)
  })
  if (typeof flags === 'number') return flags
  const path = command.args[0] as string
  let coverage
  try {
    coverage = coverageOf(readUsageFile(path))
  } catch (error) {
    if (!(error instanceof UsageFileError)) throw error
    io.stderr(`error: ${error.message}\n`)
    return EXIT.usage
  }
  io.stdout(
    flags.format === 'json'
      ? `${JSON.stringify(coverage, null, 2)}\n`
      : flags.format === 'markdown'
        ? coverageMarkdown(coverage, path)
        : coverageText(coverage, path),
  )
  if (flags.failUnder !== undefined && coverage.percent < Number(flags.failUnder)) {
    io.stderr(`coverage ${coverage.percent}% is below --fail-under ${flags.failUnder}%\n`)
    return EXIT.failed
  }
  return EXIT.ok
}
