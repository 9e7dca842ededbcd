import { exitWith, runMock } from '../server.ts'

const HELP = `Usage: appdata-kit <command> [options]
Commands:
  mock [options]   start the mock (the same flags as npm start; --help lists them)`

/** The `appdata-kit` command line. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === 'mock') return runMock(rest, process.env)
  process.stdout.write(`${HELP}\n`)
  if (command !== undefined && command !== '--help' && command !== 'help') process.exit(2)
}

main(process.argv.slice(2)).catch(exitWith)
