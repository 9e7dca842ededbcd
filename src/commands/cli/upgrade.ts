import { writeFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import { subcommand } from '../../cli-base/command.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { FixtureError } from '../../fixtures/load.ts'
import { emulatedRelease } from '../../mock/config.ts'
import { UsageFileError } from '../../usage-file/file.ts'
import { IgnoreFileError } from '../kit/ignore-file.ts'
import { upgradeJson, upgradeJunit, upgradeMarkdown, upgradeText, verdict } from '../upgrade/report.ts'
import { checkUpgrade } from '../upgrade/upgrade.ts'
import { parseFlags } from './connection.ts'
import { redactor } from './verify-report.ts'

/** The `upgrade` command's flags. */
export function upgradeCommand(): Command {
  return subcommand(
    'upgrade',
    "Reports what the client that recorded a usage file meets on another release, with no installation: the usage is replayed against in-process mocks of the release it was recorded on and of the target, both serving the fixture it was recorded with, and both releases' documents are read. One finding per change (a path moved, a variant gone, a request member or body the target refuses or only tolerates, an answer member renamed, removed or retyped, a status changed), with how many recorded shapes meet it, what the client sends or reads today and what the target takes or answers.\n" +
      'Exit code 0 when no finding breaks the client, 1 when one does, 2 for bad flags or files, or a usage its own release cannot replay (the fixture it was recorded with is missing: --fixture).',
  )
    .addOption(new Option('--usage <file>', 'the usage file (written by a mock started with --record-usage)').makeOptionMandatory())
    .addOption(new Option('--to <release>', 'the release to check against: 3.0.19 (or latest), 3.0.18, 2.9, ...').makeOptionMandatory())
    .addOption(new Option('--from <release>', 'the release the usage was recorded on').default(undefined, "the usage file's"))
    .addOption(new Option('--fixture <file>', 'the fixture the usage was recorded with').default(undefined, 'the default fixture'))
    .addOption(
      new Option('--ignore <file>', 'accepted findings, by kind and operationId (YAML or JSON; see docs/upgrade.md): reported as ignored, never failing'),
    )
    .addOption(new Option('--format <format>', 'text, markdown (for a pull-request comment) or json').choices(['text', 'markdown', 'json']).default('text'))
    .addOption(new Option('--out <file>', 'write the report to this file instead of standard output'))
    .addOption(new Option('--junit <file>', 'also write a JUnit XML report: one case per finding'))
    .addHelpText(
      'after',
      '\nExamples:\n  npx appdata-kit upgrade --usage usage.json --to 3.0.19\n  npx appdata-kit upgrade --usage usage.json --to 3.0.19 --fixture fixtures/ours.json --format markdown --out upgrade.md',
    )
}

/** A release flag's value the mock can emulate; a ConfigError naming the flag otherwise. */
function releaseFlag(flag: string, value: string): void {
  try {
    emulatedRelease(value)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    throw new ConfigError(`${flag} must be a release from 2.0 to 3.x such as 3.0.19 (or latest), 3.0.18 or 2.9; got "${value}"`)
  }
}

interface Flags {
  usage: string
  to: string
  from?: string
  fixture?: string
  ignore?: string
  format: 'text' | 'markdown' | 'json'
  out?: string
  junit?: string
}

/**
 * `appdata-kit upgrade`: returns the exit code (1 when a finding breaks the client; 2 for bad
 * flags or files, or when only an unreplayable usage stands in the way of an answer); writes
 * through `io`, every text redacted of the fixture's passwords and the replay's tokens.
 */
export async function runUpgrade(argv: readonly string[], io: { stdout: (text: string) => void; stderr: (text: string) => void }): Promise<number> {
  const command = upgradeCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  const flags = parseFlags<Flags>(command, argv, io.stderr, (f) => {
    releaseFlag('--to', f.to)
    if (f.from !== undefined) releaseFlag('--from', f.from)
  })
  if (typeof flags === 'number') return flags
  let result
  try {
    result = await checkUpgrade({
      usage: flags.usage,
      to: flags.to,
      ...(flags.from === undefined ? {} : { from: flags.from }),
      ...(flags.fixture === undefined ? {} : { fixture: flags.fixture }),
      ...(flags.ignore === undefined ? {} : { ignore: flags.ignore }),
    })
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof UsageFileError || error instanceof IgnoreFileError || error instanceof FixtureError)) throw error
    io.stderr(`error: ${error.message}\n`)
    return EXIT.usage
  }
  const redact = redactor(result.secrets)
  const { run } = result
  const text = flags.format === 'json' ? upgradeJson(run.report) : flags.format === 'markdown' ? upgradeMarkdown(run) : upgradeText(run)
  if (flags.out === undefined) io.stdout(redact(text))
  else {
    writeFileSync(flags.out, redact(text))
    io.stderr(`wrote ${flags.out}: ${verdict(run.report)}\n`)
  }
  if (flags.junit !== undefined) writeFileSync(flags.junit, redact(upgradeJunit(run.report)))
  const findings = run.report.findings
  if (findings.some((f) => f.breaks && f.kind !== 'unreplayable')) return EXIT.failed
  if (findings.some((f) => f.kind === 'unreplayable')) {
    io.stderr(`error: ${verdict(run.report)}\n`)
    return EXIT.usage
  }
  return EXIT.ok
}
