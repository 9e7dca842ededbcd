// `npm run mutate -- PATH... [--tests GLOB]... [--concurrency N]`: mutation testing of the code at PATH (a
// folder or a file under src/) with Stryker, against the test files that concern it, so a run takes minutes
// on two cores. Every mutant that survives is a change no test notices: a missing test. A developer's tool,
// not run in CI; docs/tests.md tells how to read its report.
//
// Stryker 10 needs Node 22 and the project keeps to Node 20, so the tools live outside the project's
// dependencies: scripts/mutate/package.json (and its lock) pins the registry's `node` package, which ships a
// Node 22 binary, and Stryker with its vitest runner; they are installed into .cache/mutate/ (git-ignored)
// at the first run and whenever the lock changes. As a devDependency `node` would put its bin ahead of the
// machine's Node in every npm script, and Stryker's Babel 8 would warn on every `npm ci` of the project.
// The vitest the runner loads is the project's own: the tools are installed without peer dependencies, and
// Node's resolution walks up from .cache/mutate/ to the checkout's node_modules/.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const tools = join(root, 'scripts', 'mutate')
const cache = join(root, '.cache', 'mutate')

/** Which test files concern which code (see its `_comment`). */
const TEST_MAP = JSON.parse(readFileSync(join(tools, 'tests.json'), 'utf8')).map

const USAGE = `usage: npm run mutate -- PATH... [--tests GLOB]... [--concurrency N]
  PATH           code to mutate under src/: a folder (src/store/engine/) or a file (src/store/filter-parser.ts)
  --tests GLOB   the test files to run instead of those the script picks (repeatable)
  --concurrency  Stryker's workers (default: Stryker's, one a core)`

function fail(message) {
  console.error(`mutate: ${message}`)
  process.exit(2)
}

function parseArgs(argv) {
  const paths = []
  const tests = []
  let concurrency
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--help' || arg === '-h') {
      console.log(USAGE)
      process.exit(0)
    } else if (arg === '--tests') {
      const glob = argv[++i]
      if (!glob) fail('--tests needs a glob')
      tests.push(glob)
    } else if (arg === '--concurrency') {
      concurrency = Number(argv[++i])
      if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency needs a whole number above 0')
    } else if (arg.startsWith('-')) {
      fail(`unknown flag ${arg}\n${USAGE}`)
    } else {
      paths.push(arg)
    }
  }
  if (paths.length === 0) fail(`name the code to mutate\n${USAGE}`)
  return { paths, tests, concurrency }
}

/** The PATH as the checkout names it (forward slashes, a folder ending in `/`), refused outside src/. */
function normalise(path) {
  const absolute = join(root, path)
  if (!existsSync(absolute)) fail(`${path} does not exist`)
  let name = relative(root, absolute).split(sep).join('/')
  if (!name.startsWith('src/')) fail(`${path} is not under src/: mutate the code, not the tests`)
  if (statSync(absolute).isDirectory()) name += '/'
  return name
}

/** Stryker's mutate globs for a PATH: a folder's TypeScript files, generated files left out. */
function mutateGlobs(name) {
  return name.endsWith('/') ? [`${name}**/*.ts`, `!${name}**/*.generated.ts`] : [name]
}

/** The test globs for a PATH: the map's first entry for it, else the mirroring test folder. */
function testGlobs(name) {
  const entry = TEST_MAP.find(({ code }) => name.startsWith(code))
  if (entry) return entry.tests
  const mirror = name.replace(/^src\//, 'test/')
  const folder = mirror.endsWith('/') ? mirror : mirror.slice(0, mirror.lastIndexOf('/') + 1)
  // A file of src/ itself would mirror the whole of test/: hours, not minutes.
  if (folder === 'test/' || !existsSync(join(root, folder)))
    fail(`no test files known for ${name} (no entry in scripts/mutate.mjs's TEST_MAP, no test folder of its own): pass --tests GLOB`)
  return [`${folder}**/*.test.ts`]
}

/** The test files a glob list names (`**` any folders, `*` within a name), to check before a long run. */
function expand(globs) {
  const patterns = globs.map(
    (glob) =>
      new RegExp(
        `^${glob
          .split('**/')
          .map((part) => part.split('*').map(escape).join('[^/]*'))
          .join('(?:.*/)?')}$`,
      ),
  )
  const files = []
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const name = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(name)
      else if (patterns.some((pattern) => pattern.test(name))) files.push(name)
    }
  }
  walk('test')
  return files.sort()
}

function escape(text) {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
}

/** Installs the pinned tools into .cache/mutate/ unless the lock installed there is the same. */
function installTools() {
  const lock = readFileSync(join(tools, 'package-lock.json'), 'utf8')
  const installed = join(cache, 'package-lock.json')
  const node = join(cache, 'node_modules', '.bin', 'node')
  if (existsSync(installed) && readFileSync(installed, 'utf8') === lock && existsSync(node)) return node
  console.log('mutate: installing Node 22 and Stryker into .cache/mutate/ (once, about half a minute)')
  rmSync(join(cache, 'node_modules'), { recursive: true, force: true })
  mkdirSync(cache, { recursive: true })
  copyFileSync(join(tools, 'package.json'), join(cache, 'package.json'))
  copyFileSync(join(tools, 'package-lock.json'), installed)
  // Without peer dependencies: the runner's peer is the project's vitest, found by walking up (see above).
  const npm = spawnSync('npm', ['ci', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: cache, stdio: 'inherit' })
  if (npm.status !== 0) {
    rmSync(installed, { force: true })
    fail('installing the tools failed (npm said why above)')
  }
  // The `node` package fetches its binary in an install script; with scripts turned off it has none.
  if (!existsSync(node)) {
    rmSync(installed, { force: true })
    fail('the `node` package installed no binary: are install scripts turned off (npm config get ignore-scripts)?')
  }
  return node
}

const { paths, tests, concurrency } = parseArgs(process.argv.slice(2))
const names = paths.map(normalise)
const globs = tests.length > 0 ? tests : [...new Set(names.flatMap(testGlobs))]
const testFiles = expand(globs)
if (testFiles.length === 0) fail(`no test file matches ${globs.join(', ')}`)

if (!existsSync(join(root, 'dist', 'bin', 'main.mjs'))) fail('no build: run `npm run build` first (a few tests run the built bin)')

const node = installTools()
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
if (!version.startsWith('v22.')) fail(`.cache/mutate/ holds Node ${version}, not 22: delete .cache/mutate/ and run again`)

// One report per run, named after what was mutated.
const runName = names
  .map((name) =>
    name
      .replace(/^src\//, '')
      .replace(/\/$/, '')
      .replace(/\.ts$/, '')
      .replaceAll('/', '-'),
  )
  .join('+')
const reports = join(cache, 'reports')
const config = {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  _comment: 'written by scripts/mutate.mjs for each run; do not edit',
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // The test files are picked here, so vitest's own related-file filter is not needed.
  vitest: { configFile: 'scripts/mutate/vitest.config.mjs', related: false },
  mutate: names.flatMap(mutateGlobs),
  testFiles,
  coverageAnalysis: 'perTest',
  // The sandbox (a copy of the checkout that Stryker mutates) needs no browser shots or tools. It keeps
  // the build: a few tests run the built bin for what only a process shows (a flag refused by the command
  // line, the mock's own message), and pass or fail there on the unmutated code, as it was built.
  ignorePatterns: ['/.dist-*', '/test-artifacts', '/.cache', '/bench-results'],
  // One sandbox folder per PATH, so runs of two PATHs at once keep apart; a killed run's is removed below.
  tempDirName: `.cache/mutate/sandbox-${runName}`,
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: join(reports, `${runName}.html`) },
  jsonReporter: { fileName: join(reports, `${runName}.json`) },
  clearTextReporter: { allowColor: process.stdout.isTTY === true, reportTests: false, reportScoreTable: true },
  ...(concurrency ? { concurrency } : {}),
}
const configFile = join(cache, `${runName}.config.json`)
writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`)
rmSync(join(root, config.tempDirName), { recursive: true, force: true })

console.log(`mutate: ${names.join(' ')} against ${testFiles.length} test file(s) under Node ${version}:\n  ${testFiles.join('\n  ')}`)
const started = Date.now()
const stryker = spawnSync(node, [join(cache, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js'), 'run', configFile], {
  cwd: root,
  stdio: 'inherit',
})
const seconds = Math.round((Date.now() - started) / 1000)
if (stryker.status !== 0) fail(`Stryker stopped with exit ${stryker.status ?? stryker.signal} after ${seconds} s`)

// One line to quote: the counts Stryker's table gives, from its JSON report.
const report = JSON.parse(readFileSync(config.jsonReporter.fileName, 'utf8'))
const counts = {}
for (const file of Object.values(report.files)) for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1
const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
const valid = detected + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
const score = valid === 0 ? 0 : (100 * detected) / valid
console.log(
  `mutate: ${runName}: ${score.toFixed(2)} % (killed ${counts.Killed ?? 0}, timeout ${counts.Timeout ?? 0}, survived ${counts.Survived ?? 0}, no coverage ${counts.NoCoverage ?? 0}` +
    `${counts.CompileError || counts.RuntimeError ? `, errors ${(counts.CompileError ?? 0) + (counts.RuntimeError ?? 0)}` : ''}) in ${seconds} s; report: ${relative(root, config.htmlReporter.fileName)}`,
)
