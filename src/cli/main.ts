import { exitWith, runMock } from '../server.ts'
import { EXIT, runVerify } from './verify.ts'

const HELP = `Usage: appdata-kit <command> [options]
Commands:
  mock [options]     start the mock (the same flags as npm start; mock --help lists them)
  verify [options]   check an installation or a mock against the contracts (verify --help lists the flags)`

/** `appdata-kit verify` as a process: Ctrl-C stops starting contracts, the cleanup still runs, a second one ends at once. */
async function verify(argv: string[]): Promise<never> {
  const controller = new AbortController()
  process.on('SIGINT', () => {
    if (controller.signal.aborted) process.exit(130)
    process.stderr.write('stopping after the running contracts; removing the rows created (Ctrl-C again to quit at once)\n')
    controller.abort()
  })
  const code = await runVerify(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    terminal: process.stdout.isTTY === true,
    signal: controller.signal,
  })
  process.exit(controller.signal.aborted ? 130 : code)
}

/** The `appdata-kit` command line. */
async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  if (command === 'mock') return runMock(rest, process.env)
  if (command === 'verify') return verify(rest)
  process.stdout.write(`${HELP}\n`)
  if (command !== undefined && command !== '--help' && command !== 'help') process.exit(EXIT.usage)
}

main(process.argv.slice(2)).catch(exitWith)
