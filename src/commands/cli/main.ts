import { Command, CommanderError } from 'commander'
import { PACKAGE_VERSION } from '../../package-root.ts'
import { exitCodeOf, exitWith } from '../../cli-base/exit.ts'

// Each command's modules load only when it runs, so `--version` and `--help` answer at once.

/**
 * `appdata-kit verify` as a process. Ctrl-C or SIGTERM (a CI job cancelled) stops the contracts at
 * their next request and removes the rows created; a second signal quits at once, listing the
 * rows created that were not removed yet. The exit code is 128 plus the signal's number.
 */
async function verify(argv: string[]): Promise<never> {
  const { runVerify } = await import('./verify.ts')
  const controller = new AbortController()
  let pending: () => string[] = () => []
  const codes = { SIGINT: 130, SIGTERM: 143 } as const
  let exitCode: number | undefined
  const stop = (signal: keyof typeof codes) => {
    if (controller.signal.aborted) {
      const left = pending()
      process.stderr.write(
        left.length === 0
          ? 'quitting; no row this run created is left\n'
          : `quitting before the cleanup ended; these rows this run created are NOT removed:\n${left.map((row) => `  ${row}`).join('\n')}\n`,
      )
      process.exit(codes[signal])
    }
    exitCode = codes[signal]
    process.stderr.write(
      `${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping the running contract; removing the rows created (${signal === 'SIGINT' ? 'Ctrl-C' : 'the signal'} again to quit at once)\n`,
    )
    controller.abort()
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  const code = await runVerify(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    terminal: process.stdout.isTTY === true,
    signal: controller.signal,
    onPending: (list) => {
      pending = list
    },
  })
  process.exit(exitCode ?? code)
}

const io = { stdout: (text: string) => process.stdout.write(text), stderr: (text: string) => process.stderr.write(text) }

async function mock(argv: string[]): Promise<void> {
  const { runMock } = await import('../../mock/server.ts')
  await runMock(argv, process.env)
}

async function capture(argv: string[]): Promise<never> {
  const { runCapture } = await import('./capture.ts')
  process.exit(await runCapture(argv, io))
}

async function spec(argv: string[]): Promise<never> {
  const { runSpec } = await import('./spec.ts')
  process.exit(runSpec(argv, io))
}

async function usage(argv: string[]): Promise<never> {
  const { runUsage } = await import('./usage.ts')
  process.exit(runUsage(argv, io))
}

async function coverage(argv: string[]): Promise<never> {
  const { runCoverage } = await import('./coverage.ts')
  process.exit(runCoverage(argv, io))
}

/**
 * `appdata-kit proxy`: runs until SIGINT or SIGTERM (a CI job's end), then writes its reports and
 * exits by what it found (--fail-on); a second signal quits at once, writing nothing.
 */
async function proxy(argv: string[]): Promise<never> {
  const { runProxy } = await import('./proxy.ts')
  let signalled = false
  const stop = new Promise<void>((resolve) => {
    const once = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(signal === 'SIGINT' ? 130 : 143)
      signalled = true
      resolve()
    }
    process.on('SIGINT', once)
    process.on('SIGTERM', once)
  })
  process.exit(await runProxy(argv, io, stop))
}

async function upgrade(argv: string[]): Promise<never> {
  const { runUpgrade } = await import('./upgrade.ts')
  process.exit(await runUpgrade(argv, io))
}

/** Each command with what runs it; each parses its own flags (and variables), so `<command> --help` is its own. */
const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<unknown> | unknown }> = {
  mock: { summary: 'start the mock (what npm start runs); mock --help lists every flag', run: mock },
  verify: { summary: 'check an installation, or a mock, against the contracts; read-only unless --allow-writes', run: verify },
  capture: { summary: 'read one application of an installation (read-only) into a fixture the mock serves; values anonymised', run: capture },
  spec: { summary: 'write the OpenAPI document (YAML or JSON by the extension of --out)', run: spec },
  usage: { summary: 'usage merge A B... --out FILE: join the usage files of mocks started with --record-usage', run: usage },
  coverage: { summary: 'which operations, variants and options of the document a usage file shows used, and which never were', run: coverage },
  proxy: { summary: 'sit between a client and an installation: forward unchanged, hold both sides to the document, report at stop', run: proxy },
  upgrade: {
    summary: 'what the client that recorded a usage file meets on another release: replayed on mocks of both releases, one finding per change',
    run: upgrade,
  },
}

/**
 * The `appdata-kit` command line: picks the command (suggesting one for a typo), answers
 * `--version` and `--help`, and hands the rest of the arguments to the command. Exit 2 for a
 * command or flag it does not know.
 */
async function main(argv: string[]): Promise<void> {
  // `appdata-kit help mock` is `appdata-kit mock --help`.
  const args = argv[0] === 'help' && argv[1] !== undefined ? [argv[1], '--help', ...argv.slice(2)] : argv
  let chosen: { name: string; argv: string[] } | undefined
  const program = new Command('appdata-kit')
    .description(`A mock, a contract suite and the OpenAPI document of the Application Data Web API (appdata-kit ${PACKAGE_VERSION}).`)
    .version(PACKAGE_VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show this text')
    .helpCommand(false)
    .exitOverride()
    .showSuggestionAfterError(true)
    .addHelpText('after', '\nExamples:\n  npx appdata-kit mock --port 4181\n  npx appdata-kit verify --help\n  npx appdata-kit spec --out openapi.yaml')
  for (const [name, { summary }] of Object.entries(COMMANDS)) {
    program
      .command(name)
      .description(summary)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action((_options, command: Command) => {
        chosen = { name, argv: command.args }
      })
  }
  try {
    program.parse(args, { from: 'user' })
  } catch (error) {
    if (error instanceof CommanderError) process.exit(exitCodeOf(error))
    throw error
  }
  if (chosen !== undefined) await COMMANDS[chosen.name]?.run(chosen.argv)
}

// A reader that stops early (`appdata-kit verify | head -1`) is no reason for a stack trace; verify's cleanup still runs.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
})

main(process.argv.slice(2)).catch(exitWith)
