import { readFileSync, writeFileSync } from 'node:fs'
import { Option } from 'commander'
import { subcommand } from '../../cli-base/command.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { httpTransport } from '../../wire/transport.ts'
import { writeUsageFile } from '../../usage-file/file.ts'
import { emulatedRelease } from '../../mock/config.ts'
import type { IgnoreEntry } from '../kit/ignore-match.ts'
import { Inspector, type FailOn, type ProxyReport } from '../proxy/inspector.ts'
import { startProxy, type RunningProxy } from '../proxy/server.ts'
import type { StartJudge } from '../proxy/judge-thread.ts'
import { parseFlags, positiveInteger } from './connection.ts'
import { detectRelease } from './detect.ts'
import { redactor } from './secrets.ts'
import { USAGE_LIMITS } from '../../usage-file/limits.ts'

// The judging (Ajv and the documents) loads on a thread of its own once the proxy listens, and the
// report writers (JUnit) at stop: the proxy is up in a fraction of a second, and an exchange that
// comes first waits in the judge's queue.

/** After SIGTERM or SIGINT: how long exchanges in flight may take to end, then how long judging may take to catch up (from the signal), in ms. The reports are written right after, well within 2 s. */
const STOP_IN_FLIGHT_MS = 500
const STOP_JUDGING_MS = 1000
/**
 * The tests' hook on that wait: `APPDATA_PROXY_STOP_JUDGING_MS=0` stops without waiting for the
 * judging thread, so a test knows what is left unjudged at a stop whatever the machine's speed.
 * Not a user's flag (a user wants the judgements the second can still give).
 */
const stopJudgingMs = (): number => {
  const given = Number(process.env.APPDATA_PROXY_STOP_JUDGING_MS)
  return Number.isInteger(given) && given >= 0 && given <= STOP_JUDGING_MS ? given : STOP_JUDGING_MS
}
/** How long `GET /__proxy/report` waits for the exchanges that ended before it to be judged, in ms. */
const REPORT_WAIT_MS = 10_000

/** `--fail-on`: which side's violations fail the run. */
const FAIL_ON: readonly FailOn[] = ['answer', 'request', 'any', 'none']

/** The flags of `appdata-kit proxy`, as commander gives them. */
interface ProxyFlags {
  target: string
  port: number
  host: string
  org?: string
  productVersion?: string
  report?: string
  junit?: string
  html?: string
  recordUsage?: string
  ignore?: string
  checkLimit: number
  ca?: string
  insecure?: boolean
  timeout: number
  failOn: FailOn
  shedLoad?: boolean
}

export interface ProxyIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

/** Default port: beside the mock's 4080. */
export const DEFAULT_PORT = 4090

const port = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new ConfigError(`--port must be a whole number from 0 to 65535, got "${value}"`)
  return Number(value)
}

const megabytes = (value: string): number => {
  const mb = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(mb > 0) || mb > 1024)
    throw new ConfigError(`--check-limit must be a number of MB above 0 and at most 1024, got "${value}"`)
  return mb
}

function command() {
  return subcommand(
    'proxy',
    'Sit between a client and an installation: forward every exchange unchanged, hold both sides to the document of its release, report at stop.',
  )
    .addOption(new Option('--target <url>', 'base URL of the installation, e.g. https://staging.example.com').env('APPDATA_PROXY_TARGET').makeOptionMandatory())
    .addOption(new Option('--port <n>', 'port to listen on (0: any free port)').env('APPDATA_PROXY_PORT').argParser(port).default(DEFAULT_PORT))
    .addOption(
      new Option('--host <address>', 'interface to listen on; other names than loopback ones are refused with 403 unless it is 0.0.0.0 or ::')
        .env('APPDATA_PROXY_HOST')
        .default('127.0.0.1'),
    )
    .addOption(
      new Option(
        '--org <name>',
        "organization physical name: at start the target's sign-in paths are probed (no credentials) to know its release before the client signs in",
      ).env('APPDATA_ORG'),
    )
    .addOption(
      new Option('--product-version <version>', 'the release the target runs; else detected from the sign-in path the client uses').env(
        'APPDATA_PRODUCT_VERSION',
      ),
    )
    .addOption(new Option('--report <file>', 'write the report as JSON at stop').env('APPDATA_PROXY_REPORT'))
    .addOption(new Option('--junit <file>', 'write the report as JUnit XML at stop').env('APPDATA_PROXY_JUNIT'))
    .addOption(new Option('--html <file>', 'write the report as one self-contained HTML page at stop').env('APPDATA_PROXY_HTML'))
    .addOption(
      new Option('--record-usage <file>', "write what the client used as a usage file at stop (the mock's --record-usage format)").env(
        'APPDATA_PROXY_RECORD_USAGE',
      ),
    )
    .addOption(
      new Option(
        '--ignore <file>',
        'accepted findings, by side, operationId and pointer (YAML or JSON; see docs/proxy.md): reported as ignored with their reason, never failing',
      ).env('APPDATA_PROXY_IGNORE'),
    )
    .addOption(
      new Option('--check-limit <mb>', 'bodies larger than this many MB pass unchecked, with a warning')
        .env('APPDATA_PROXY_CHECK_LIMIT')
        .argParser(megabytes)
        .default(16),
    )
    .addOption(new Option('--ca <file>', 'PEM file of a certificate authority to trust, for a target with its own certificate').env('APPDATA_CA'))
    .addOption(new Option('--insecure', 'accept any TLS certificate of the target (test installations only)').env('APPDATA_INSECURE'))
    .addOption(
      new Option('--timeout <ms>', 'how long the target may send nothing before the client gets 504, in milliseconds')
        .env('APPDATA_TIMEOUT')
        .argParser(positiveInteger('--timeout'))
        .default(30_000),
    )
    .addOption(
      new Option('--fail-on <side>', 'exit 1 at stop when a violation was found on this side, or an exchange passed with this side not judged')
        .env('APPDATA_PROXY_FAIL_ON')
        .choices(FAIL_ON)
        .default('answer'),
    )
    .addOption(
      new Option(
        '--shed-load',
        'exchanges that pass unjudged (judging behind, a body over --check-limit, an encoding not decoded) are counted in the report but do not fail the run',
      ).env('APPDATA_PROXY_SHED_LOAD'),
    )
    .addHelpText(
      'after',
      `
Example:
  npx appdata-kit proxy --target https://staging.example.com --port 4090 \\
    --report proxy-report.json --junit proxy.xml --html proxy.html --record-usage usage.json
  # point the client at http://127.0.0.1:4090; stop with Ctrl-C or SIGTERM to write the reports.
Exit codes at stop: 0 no violation on the --fail-on side (and every exchange judged on it, unless --shed-load),
1 one or more (or a report not written), 2 a flag refused.`,
    )
}

/** The flags checked beyond what commander checks: the target's URL, the release, the files that must be readable. */
function check(flags: ProxyFlags): void {
  let url: URL
  try {
    url = new URL(flags.target)
  } catch {
    throw new ConfigError(`--target must be an http or https URL, got "${flags.target}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`--target must be an http or https URL, got "${flags.target}"`)
  if (url.search !== '' || url.hash !== '') throw new ConfigError('--target must be a base URL, without a query or fragment')
  // The releases the mock emulates, with its message: the proxy judges by the same documents.
  if (flags.productVersion !== undefined) emulatedRelease(flags.productVersion)
  if ((flags.ca !== undefined || flags.insecure === true) && url.protocol !== 'https:')
    throw new ConfigError('--ca and --insecure concern an https target only')
}

/** What the report says, in a few lines for the terminal or the CI log. */
function summaryLines(report: ProxyReport, failOn: FailOn, shedLoad: boolean, failed: boolean): string[] {
  const count = (side: string, severity: string) => report.violations.filter((f) => f.side === side && f.severity === severity).length
  const lines = [
    `proxy: ${report.exchanges} exchange(s) with ${report.target}, release ${report.release} (${report.releaseFrom})`,
    `  requests: ${count('request', 'violation')} violation(s), ${count('request', 'warning')} warning(s); answers: ${count('answer', 'violation')} violation(s), ${count('answer', 'warning')} warning(s); ${report.ignored.length} accepted (--ignore)`,
  ]
  const { notJudged } = report
  if (notJudged.count > 0) {
    const reasons = Object.entries(notJudged.reasons)
      .map(([reason, n]) => `${n} ${reason}`)
      .join(', ')
    lines.push(
      `  NOT JUDGED: ${notJudged.count} exchange(s) (requests ${notJudged.sides.request}, answers ${notJudged.sides.answer}): ${reasons}${shedLoad ? ' (--shed-load: they do not fail the run)' : ''}`,
    )
    if (notJudged.failure !== undefined) lines.push(`  the judge failed: ${notJudged.failure}; please report it`)
  }
  const violations = report.violations.filter((f) => f.severity === 'violation')
  for (const f of violations.slice(0, 20))
    lines.push(
      `  VIOLATION ${f.side} ${f.operationId ?? '(no operation)'} ${f.status} ${f.pointer === '' ? '(the request)' : f.pointer}: ${f.message} (${f.count}×)`,
    )
  if (violations.length > 20) lines.push(`  ... and ${violations.length - 20} more (the report lists them all)`)
  lines.push(failOn === 'none' ? '  --fail-on none: exit 0' : `  --fail-on ${failOn}: ${failed ? 'exit 1' : 'exit 0'}`)
  return lines
}

/**
 * `appdata-kit proxy`: starts, prints `listening on http://HOST:PORT`, and runs until `stop`
 * resolves (SIGINT or SIGTERM from the process); then it stops taking exchanges, writes the reports
 * and the usage file with what was judged by then (within 2 s, whatever is being judged), and
 * resolves with the exit code. Resolves early with 2 for a flag refused. `options.startJudge` judges
 * elsewhere than in the judging thread (judge-inline.ts, for the mutation runs).
 */
export async function runProxy(argv: readonly string[], io: ProxyIo, stop: Promise<unknown>, options: { startJudge?: StartJudge } = {}): Promise<number> {
  const flags = parseFlags<ProxyFlags>(
    command().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true),
    argv,
    io.stderr,
    check,
  )
  if (typeof flags === 'number') return flags
  let accepted: IgnoreEntry[] = []
  let ca: Buffer | undefined
  // The ignore file's reader (a YAML parser, the schema's validator) loads only when --ignore is given.
  const ignoreFile = flags.ignore === undefined ? undefined : await import('../kit/ignore-file.ts')
  try {
    if (flags.ignore !== undefined && ignoreFile !== undefined) accepted = ignoreFile.readIgnoreFile(flags.ignore, 'proxy')
    if (flags.ca !== undefined) ca = readFileSync(flags.ca)
  } catch (error) {
    io.stderr(
      `error: ${ignoreFile !== undefined && error instanceof ignoreFile.IgnoreFileError ? error.message : `--ca ${flags.ca}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`}\n`,
    )
    return EXIT.usage
  }
  const target = new URL(flags.target)
  const targetText = `${target.origin}${target.pathname.replace(/\/+$/, '')}`
  const secrets = redactor([])
  const given = flags.productVersion === undefined ? undefined : emulatedRelease(flags.productVersion)
  const checkLimitBytes = Math.round(flags.checkLimit * 1024 * 1024)
  let inspector: Inspector | undefined
  let proxy: RunningProxy
  try {
    proxy = await startProxy(
      {
        target,
        host: flags.host,
        port: flags.port,
        timeoutMs: flags.timeout,
        ...(ca === undefined ? {} : { ca }),
        ...(flags.insecure === true ? { insecure: true } : {}),
        checkLimitBytes,
        observe: (exchange) => inspector?.observe(exchange),
      },
      async () => {
        await inspector?.settled(REPORT_WAIT_MS)
        return secrets(`${JSON.stringify(inspector?.report(), null, 2)}\n`)
      },
    )
  } catch (error) {
    io.stderr(`error: cannot listen on ${flags.host}:${flags.port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`)
    return EXIT.failed
  }
  // The judging thread starts once the proxy listens; exchanges that end before it is ready wait for it (bounded).
  let told = false
  const judging = new Inspector({
    target: targetText,
    ...(given === undefined ? {} : { release: given }),
    accepted,
    recordUsage: flags.recordUsage !== undefined,
    secrets,
    checkLimitBytes,
    ...(options.startJudge === undefined ? {} : { startJudge: options.startJudge }),
    onJudgeFailure: (message) => {
      if (told) return
      told = true
      io.stderr(`proxy: the judging thread failed (${message}); what it was judging is counted as not judged, please report it\n`)
    },
  })
  inspector = judging
  io.stdout(`listening on ${proxy.url}\n`)
  io.stderr(
    `proxy: passing exchanges to ${targetText}; ${given === undefined ? 'the release is detected from the sign-in path the client uses' : `judged by release ${given}`}; Ctrl-C or SIGTERM stops it and writes the reports\n`,
  )
  if (given === undefined && flags.org !== undefined) void probe(flags, judging, io)
  await stop
  const signalled = performance.now()
  const writers = import('../proxy/reports.ts')
  await proxy.close(STOP_IN_FLIGHT_MS)
  await judging.settled(Math.max(0, signalled + stopJudgingMs() - performance.now()))
  // What is still being judged is counted as stopped at once; the thread ends beside the writing of the
  // reports, and the exit code does not wait for it (a process exit ends it in any case).
  void judging.stop()
  return finish(flags, judging, secrets, io, await writers)
}

/** Asks the target which sign-in it serves (a form without credentials, as verify's detection sends), so exchanges before the client's sign-in are judged by its release. */
async function probe(flags: ProxyFlags, inspector: Inspector, io: ProxyIo): Promise<void> {
  const transport = httpTransport(flags.target, {
    timeoutMs: flags.timeout,
    ...(flags.ca === undefined ? {} : { ca: readFileSync(flags.ca) }),
    ...(flags.insecure === true ? { insecure: true } : {}),
  })
  try {
    const found = await detectRelease(transport, flags.org as string)
    if ('release' in found) {
      inspector.probed(found.release)
      io.stderr(`proxy: the target serves the sign-in of ${found.label}\n`)
    } else io.stderr(`proxy: the target's release is not known yet (${found.reason}); exchanges before the first sign-in are judged by the newest\n`)
  } catch (error) {
    io.stderr(`proxy: probing the target's sign-in paths failed (${(error as Error).message}); exchanges before the first sign-in are judged by the newest\n`)
  } finally {
    await transport.close()
  }
}

/** Writes every file asked for, prints the summary, and gives the exit code. */
function finish(
  flags: ProxyFlags,
  inspector: Inspector,
  secrets: ReturnType<typeof redactor>,
  io: ProxyIo,
  writers: typeof import('../proxy/reports.ts'),
): number {
  const { htmlText, jsonText, junitText } = writers
  const report = inspector.report()
  const shedLoad = flags.shedLoad === true
  const failedOn = inspector.failed(flags.failOn, shedLoad)
  const written: string[] = []
  let failed = false
  const write = (what: string, file: string | undefined, text: () => string) => {
    if (file === undefined) return
    try {
      writeFileSync(file, text())
      written.push(`${what} ${file}`)
    } catch (error) {
      failed = true
      io.stderr(`error: ${what} not written to ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`)
    }
  }
  write('report', flags.report, () => jsonText(report, secrets))
  write('JUnit', flags.junit, () => junitText(report, secrets, { failOn: flags.failOn, shedLoad }))
  write('HTML', flags.html, () => htmlText({ report, exchanges: inspector.exchanges(), writtenAt: new Date().toISOString() }, secrets))
  if (flags.recordUsage !== undefined) {
    try {
      writeUsageFile(flags.recordUsage, inspector.usage() ?? { appdataKitUsage: 1, interactions: [] })
      written.push(
        `usage ${flags.recordUsage}${inspector.unrecorded > 0 ? ` (${inspector.unrecorded} exchange(s) not recorded: a body over --check-limit, or a shape past the ${USAGE_LIMITS.interactions.toLocaleString('en')} interactions a usage file holds)` : ''}`,
      )
    } catch (error) {
      failed = true
      io.stderr(`error: usage not written to ${flags.recordUsage} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`)
    }
  }
  for (const line of summaryLines(report, flags.failOn, shedLoad, failedOn)) io.stdout(`${secrets(line)}\n`)
  if (written.length > 0) io.stdout(`  written: ${written.join('; ')}\n`)
  return failed || failedOn ? EXIT.failed : EXIT.ok
}
