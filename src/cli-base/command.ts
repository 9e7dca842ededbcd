import { Command } from 'commander'
import { PACKAGE_VERSION } from '../package-root.ts'

/** A subcommand of `appdata-kit` with what every one has: its description, `--help` and `--version`. */
export function subcommand(name: string, description: string): Command {
  return new Command(`appdata-kit ${name}`)
    .description(description)
    .helpOption('-h, --help', 'show this text')
    .version(PACKAGE_VERSION, '-v, --version', 'print the version of appdata-kit')
}
