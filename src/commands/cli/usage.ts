import { Option, type Command } from 'commander'
import { subcommand } from '../../cli-base/command.ts'
import { parseFlags } from './connection.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { mergeUsage, readUsageFile, UsageFileError, writeUsageFile } from '../../usage-file/file.ts'
import { checkUsageJson } from '../../usage-file/check.ts'

/** The `usage` command: `usage merge A B... --out FILE`. */
export function usageCommand(): Command {
  return subcommand(
    'usage',
    'Work with usage files that a mock started with --record-usage writes. "merge" joins the files of parallel test files or CI shards into one: counts added, shapes joined.',
  )
    .usage('merge FILE... --out FILE')
    .argument('<action>', 'merge')
    .argument('<files...>', 'usage files to join')
    .addOption(new Option('--out <file>', 'the joined usage file to write').makeOptionMandatory())
    .addHelpText('after', '\nExample:\n  npx appdata-kit usage merge usage/shard-1.json usage/shard-2.json --out usage.json')
}

/** `appdata-kit usage merge`: returns the exit code (2 for bad flags, a usage file it cannot use, or a joined file past a limit, which is not written). */
export function runUsage(argv: readonly string[], io: { stdout: (text: string) => void; stderr: (text: string) => void }): number {
  const command = usageCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  const flags = parseFlags<{ out: string }>(command, argv, io.stderr, () => {
    if (command.args[0] !== 'merge')
      throw new ConfigError(`unknown action "${command.args[0] ?? ''}": the only one is merge (appdata-kit usage merge A B... --out FILE)`)
  })
  if (typeof flags === 'number') return flags
  const paths = command.args.slice(1)
  try {
    const merged = mergeUsage(paths.map((path) => readUsageFile(path)))
    // Counts added and shapes joined may pass a bound no input passed: such a file is not written, since no command would read it.
    checkUsageJson(merged, `--out ${flags.out} (not written)`)
    writeUsageFile(flags.out, merged)
    io.stderr(`wrote ${flags.out}: ${merged.interactions.length} interactions from ${paths.length} file(s)\n`)
    return EXIT.ok
  } catch (error) {
    if (!(error instanceof UsageFileError)) throw error
    io.stderr(`error: ${error.message}\n`)
    return EXIT.usage
  }
}
