// `npm run test:node-lines`: the package on the Node lines teams run, beside the suite on the
// machine's Node (`npm test`). Each line's Node comes from the registry's `node` package, whose
// install script fetches the `node-<platform>-<arch>` package of the same version (the binary),
// into a folder of its own under .node-lines/ (ignored by git, and never a dependency of the
// project: the `node` package's bin would shadow the machine's Node in every npm script). A run
// puts that folder's bin first on PATH, so `node` and `npm` (the machine's npm, or the npm the line
// ships with, installed beside it) run on that Node, and so does every process the tests start.
//
//   node scripts/node-lines.mjs               every line of LINES
//   node scripts/node-lines.mjs 22 26         these lines only
//   node scripts/node-lines.mjs --install 24  install only (to try a line by hand: PATH=.node-lines/24/node_modules/.bin:$PATH)
//
// Reaches the network only for the npm registry, as `npm ci` does. Every step is bounded in
// attempts and in time, and what each took is printed at the end.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const installs = join(root, '.node-lines')

/**
 * The lines tested besides the machine's (Node 20, where `npm test` runs first), each the newest
 * release of its line. `npm`: the major the line ships with, installed beside it, when it is not the
 * machine's (Node 22 ships npm 10). `run`: `suite` is the whole of `npm test`, `package` the files
 * of PACKAGE_TESTS.
 */
export const LINES = [
  { line: 22, npm: '10', run: 'package' },
  { line: 24, run: 'package' },
  { line: 26, run: 'suite' },
]

/**
 * What runs on a line that does not run the whole suite: the packed package (installed by that
 * line's npm, then startMock(), the command line's mock, a client's round trip and every example
 * of the README and docs/), and the messages built on what the runtime refuses (JSON, bodies).
 */
export const PACKAGE_TESTS = [
  'test/package/pack.test.ts',
  'test/internals/runtime-messages.test.ts',
  'test/http/teaching-errors.test.ts',
  'test/http/body-checks.test.ts',
]

const MINUTE = 60_000
/** Attempts at an install from the registry, and the pause before each new one (npm retries each fetch as well). */
const ATTEMPTS = 3
const PAUSE_MS = 10_000
/** Time bounds: a registry question, an install, the package test, the whole suite. */
const ASK_MS = 2 * MINUTE
const INSTALL_MS = 10 * MINUTE
const PACKAGE_MS = 20 * MINUTE
const SUITE_MS = 45 * MINUTE

/** The process group running now, stopped with this script (Ctrl-C, a CI job's SIGTERM). */
let running

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (running !== undefined) {
      try {
        process.kill(-running.pid, 'SIGKILL')
      } catch {}
    }
    process.exit(1)
  })
}

/**
 * The environment of a run on a line: its bin first on PATH; the outer `npm run`'s own variables
 * (the script, the package, the npm and Node that ran it) left out, its configuration kept.
 */
function lineEnv(bin) {
  const outer = /^(npm_lifecycle_|npm_package_|npm_execpath$|npm_node_execpath$|npm_command$|NODE$|INIT_CWD$)/
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !outer.test(name)))
  return { ...env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` }
}

/** Runs a command to its end within `ms`, its output shown as it comes; resolves with its exit code (null when stopped). */
function run(command, args, { cwd = root, env = process.env, ms }) {
  return new Promise((resolve) => {
    // A process group of its own, so a step over its time is stopped whole (its npm, vitest, mocks), by its id.
    const child = spawn(command, args, { cwd, env, stdio: 'inherit', detached: true })
    running = child
    const timer = setTimeout(() => {
      process.stderr.write(`node-lines: ${command} ${args.join(' ')} ran over ${ms / MINUTE} minutes; stopped\n`)
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, ms)
    child.on('error', (error) => process.stderr.write(`node-lines: ${command} did not start: ${error.message}\n`))
    child.on('close', (code) => {
      clearTimeout(timer)
      running = undefined
      resolve(code)
    })
  })
}

/** A command's output (npm view, --version), or undefined when it failed. */
function read(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', timeout: ASK_MS })
  return result.status === 0 ? result.stdout.trim() : undefined
}

/** `fn` up to ATTEMPTS times, pausing between; the last failure is thrown. */
async function withAttempts(what, fn) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      if (attempt === ATTEMPTS) throw error
      process.stderr.write(`node-lines: ${what} failed (${error.message}); attempt ${attempt + 1} of ${ATTEMPTS} in ${PAUSE_MS / 1000} s\n`)
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
    }
  }
}

/** Whether version `a` (x.y.z) comes after `b`. */
function later(a, b) {
  const [pa, pb] = [a, b].map((version) => version.split('.').map(Number))
  const i = pa.findIndex((part, index) => part !== pb[index])
  return i !== -1 && pa[i] > pb[i]
}

/** The newest release of a package within a range, as the registry lists it (in its own order, not the versions': 26.9.0 after 26.10.0). */
function newest(name, range) {
  const out = read('npm', ['view', `${name}@${range}`, 'version', '--json'])
  if (out === undefined) throw new Error(`npm view ${name}@${range} failed`)
  const versions = [JSON.parse(out)].flat().filter((version) => /^\d+\.\d+\.\d+$/.test(version))
  const best = versions.reduce((max, version) => (max === undefined || later(version, max) ? version : max), undefined)
  if (best === undefined) throw new Error(`npm view ${name}@${range} named no release`)
  return best
}

/**
 * The line's Node (and its npm, when the line ships another than the machine's) in
 * .node-lines/LINE/, installed unless the newest of the line is there already. Returns the folder
 * to put first on PATH.
 */
async function install({ line, npm }) {
  const dir = join(installs, String(line))
  const bin = join(dir, 'node_modules', '.bin')
  const wanted = { node: await withAttempts(`npm view node@${line}`, () => newest('node', String(line))) }
  if (npm !== undefined) wanted.npm = await withAttempts(`npm view npm@${npm}`, () => newest('npm', npm))
  const installed = () =>
    read(join(bin, 'node'), ['--version']) === `v${wanted.node}` &&
    (wanted.npm === undefined || read(join(bin, 'npm'), ['--version'], lineEnv(bin)) === wanted.npm)
  if (existsSync(dir) && installed()) return bin
  const specs = Object.entries(wanted).map(([name, version]) => `${name}@${version}`)
  await withAttempts(`npm install ${specs.join(' ')}`, async () => {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    // The `node` package's preinstall fetches the binary: the one install script approved here (npm 11's allowScripts).
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `node-line-${line}`, private: true, allowScripts: { node: true } }, null, 2)}\n`)
    const code = await run('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--fetch-retries=4', ...specs], { cwd: dir, ms: INSTALL_MS })
    if (code !== 0) throw new Error(`npm install exited ${code}`)
    if (!installed()) throw new Error(`${bin} holds no node ${wanted.node}${wanted.npm === undefined ? '' : ` with npm ${wanted.npm}`}`)
  })
  return bin
}

/** One line: installed, then its run; how each ended and what each took. */
async function testLine(entry, installOnly) {
  const started = performance.now()
  const bin = await install(entry)
  const installMs = performance.now() - started
  const env = lineEnv(bin)
  const versions = `node ${read(join(bin, 'node'), ['--version'], env)}, npm ${read('npm', ['--version'], env)}`
  process.stdout.write(`\nnode-lines: Node ${entry.line} (${versions}) from ${bin}\n`)
  if (installOnly) return { entry, versions, code: 0, installMs, runMs: 0 }
  const code =
    entry.run === 'suite'
      ? await run('npm', ['test'], { env, ms: SUITE_MS })
      : await run(join(bin, 'node'), [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...PACKAGE_TESTS], { env, ms: PACKAGE_MS })
  return { entry, versions, code, installMs, runMs: performance.now() - started - installMs }
}

async function main() {
  const args = process.argv.slice(2)
  const installOnly = args.includes('--install')
  const asked = args.filter((arg) => arg !== '--install').map(Number)
  const unknown = asked.filter((line) => !LINES.some((entry) => entry.line === line))
  if (unknown.length > 0) {
    process.stderr.write(`node-lines: no line ${unknown.join(', ')} here; the lines are ${LINES.map((entry) => entry.line).join(', ')}\n`)
    return 2
  }
  const chosen = asked.length === 0 ? LINES : LINES.filter((entry) => asked.includes(entry.line))
  // The package test packs dist/ as it is: built first when the sources are newer (in CI, `npm test` has just built it).
  if (!installOnly && (await run(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { ms: 10 * MINUTE })) !== 0) return 1
  const results = []
  for (const entry of chosen) {
    try {
      results.push(await testLine(entry, installOnly))
    } catch (error) {
      process.stderr.write(`node-lines: Node ${entry.line}: ${error.message}\n`)
      results.push({ entry, versions: 'not installed', code: null, installMs: 0, runMs: 0 })
    }
  }
  const seconds = (ms) => `${Math.round(ms / 1000)} s`
  process.stdout.write('\nnode-lines: summary\n')
  for (const { entry, versions, code, installMs, runMs } of results) {
    const what = installOnly ? 'install' : entry.run === 'suite' ? 'npm test' : `${PACKAGE_TESTS.length} package test files`
    process.stdout.write(
      `  Node ${entry.line} (${versions}): ${what} ${code === 0 ? 'passed' : `FAILED (exit ${code})`}; install ${seconds(installMs)}, run ${seconds(runMs)}\n`,
    )
  }
  return results.every(({ code }) => code === 0) ? 0 : 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(await main())
