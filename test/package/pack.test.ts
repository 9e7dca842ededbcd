/**
 * The package as a team installs it: `npm pack`, then an empty plain JavaScript project that
 * installs the tarball from npm's local cache (no network), and every entry point run from there:
 * the bin, `startMock` and `createClient` from plain JavaScript, the JSON files, the types under a
 * consumer's strict `tsc` (with Node's types, and in a second project without them, as a browser
 * project compiles), and every runnable code block of the README and of docs/ as written; the
 * packed README's links and pictures found inside the package, and an install that runs no script
 * of the package's. `npm run test:node-lines` runs this file again on each Node line tested, with
 * that line's `node` and `npm` first on PATH.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, posix } from 'node:path'
import semver from 'semver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, runToEnd, startProcess, stopStarted } from '../cli/processes.ts'
import { createConsumer, packProject } from './consumer.ts'
import { createServer, type AddressInfo } from 'node:net'
import { stripVTControlCharacters } from 'node:util'
import { links, runnableBlocks } from '../helpers/markdown.ts'

/**
 * The install log of a tarball with a `prepare` script (what npm runs for a package from a tarball
 * or git) in an empty project, by the `npm` on PATH, offline: it has no dependencies.
 */
function installWithPrepare(into: string): string {
  const source = join(into, 'with-prepare')
  const project = join(into, 'with-prepare-project')
  mkdirSync(source)
  mkdirSync(project)
  writeFileSync(join(source, 'package.json'), JSON.stringify({ name: 'with-prepare', version: '1.0.0', scripts: { prepare: 'node -e 0' } }))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'with-prepare-project', version: '1.0.0', private: true }))
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
      cwd: source,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ filename: string }>
  const install = spawnSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=warn', join(into, (packed as { filename: string }).filename)],
    { cwd: project, encoding: 'utf8', timeout: 120_000 },
  )
  if (install.status !== 0) throw new Error(`npm install of the tarball with prepare exited ${install.status}: ${install.stderr}`)
  return `${install.stdout}${install.stderr}`
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The runnable code blocks of the README and docs/ (```js NAME.test.js, ```sh NAME.sh; see test/helpers/markdown.ts). */
const RUNNABLE = runnableBlocks()
const VITEST_FILES = RUNNABLE.filter(({ language }) => language === 'js')
const SHELL_RECIPES = RUNNABLE.filter(({ language }) => language === 'sh')
/** The project's files for the runnable blocks: vitest files under test/, recipes at its root. */
const RUNNABLE_FILES = Object.fromEntries(RUNNABLE.map(({ language, file, code }) => [language === 'js' ? `test/${file}` : (file as string), code]))

/** What the shell recipe's `npm run integration-tests` stands for: a sign-in against the mock it started. */
const INTEGRATION_TESTS = `
const answer = await fetch(\`http://127.0.0.1:\${process.env.PORT}/identityprovider/acme/connect/token\`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession',
})
console.log('signed in:', answer.status)
process.exit(answer.status === 200 ? 0 : 1)
`

const PLAIN_JS = `
import { startMock, createClient, DEFAULT_FIXTURE } from 'appdata-kit'
import document from 'appdata-kit/openapi.json' with { type: 'json' }
import fixtureSchema from 'appdata-kit/fixture.schema.json' with { type: 'json' }
import usageSchema from 'appdata-kit/usage.schema.json' with { type: 'json' }

const mock = await startMock()
// The default fixture's ids as the package exports them, not copied from the docs.
const client = createClient({
  transport: mock.url,
  organization: DEFAULT_FIXTURE.org,
  workspaceId: DEFAULT_FIXTURE.workspaceId,
  applicationId: DEFAULT_FIXTURE.applicationId,
})
await client.signIn({ username: DEFAULT_FIXTURE.users.admin.email, password: DEFAULT_FIXTURE.users.admin.password })
const rows = await client.rows({ top: 3, orderBy: 'Id asc' })
await mock.client.signIn({ username: 'viewer@acme.test', password: 'viewer-pass' })
const viewed = await mock.client.rows({ top: 1 })
// The viewer's one read, and the near miss named when the pattern asks for another user.
const asserted = await mock.assertRequested({ operationId: 'queryItems', match: { user: 'viewer@acme.test' } }, { times: 1 })
const missed = await mock.assertRequested({ operationId: 'queryItems', match: { user: 'nobody@acme.test' } }).catch((error) => [error.name, error.nearMisses[0].differences[0].pointer])
// An answer rule from startMock(): the next read answers no rows, then the rule is used up.
const rule = mock.stub({ operationId: 'queryItems', answer: { body: [] }, times: 1 })
const stubbed = await client.rows({ top: 3 })
const hits = mock.stubs().rules.map((r) => r.hits)
const cleared = mock.clearStubs()
console.log(JSON.stringify({ url: mock.url, ids: rows.map((row) => row.Id), viewerSeesAmount: 'Amount' in viewed[0], title: document.info.title, schema: fixtureSchema.$schema, usageSchema: usageSchema.$id, emails: mock.emails().length, asserted: asserted.length, missed, stub: { id: rule.id, rows: stubbed.length, hits, cleared } }))
await client.transport.close()
await mock.close()
`

const TYPED = `
import { startMock, createClient, ApiError, DEFAULT_FIXTURE, type RunningMock, type ReadRow, type SaveRequest, type FixtureFile, type AnswerRuleInput, type ActiveAnswerRule } from 'appdata-kit'

// The ids are literal types: a typo in a property name, or a value read as the wrong id, does not compile.
const relationKey: 'OrderLines' = DEFAULT_FIXTURE.relationKey
const workspaceId: string = DEFAULT_FIXTURE.workspaceId
console.log(relationKey, workspaceId.length)

const fixture: FixtureFile | undefined = undefined
const mock: RunningMock = await startMock({ productVersion: '3.0.18', logLevel: 'silent', ...(fixture === undefined ? {} : { fixtureData: fixture }) })
const save: SaveRequest = { Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Typed' }, Details: [] }] }
const client = createClient({ transport: mock.url, productVersion: '3.0.18' })
try {
  await client.save(save)
} catch (error) {
  if (error instanceof ApiError) console.log(error.status, error.problem?.code)
}
const rows: ReadRow[] = await mock.client.rows({ top: 1 })
const id: unknown = rows[0]?.Id
console.log(id, mock.requests().length)
const locked: AnswerRuleInput = { operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Typed' } }] } }, answer: { patch: { LockedItems: 1 } }, times: 1 }
const added: ActiveAnswerRule = mock.stub(locked)
console.log(added.id, mock.stubs().rules.length, mock.clearStubs())
await mock.close()
`

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'], resolveJsonModule: true },
  include: ['typed.ts'],
})

/**
 * A browser or plain-TypeScript project's code against the package's types: a transport over fetch,
 * the client, startMock's types and the wire types, compiled with no Node types installed.
 */
const WEB = `// A browser or plain-TypeScript project: strict, the DOM's lib, and no Node types at all.
import {
  createClient, ApiError, TransportError, injectTransport, PROBLEMS, WARNINGS, RequestAssertionError,
  type Client, type NearMiss, type JournalEntry, type Answer, type Transport, type WireRequest, type WireResponse, type RunningMock, type StartOptions,
  type LogStream, type MockControls, type ReadRow, type SaveRequest, type FixtureFile, type paths, type components, type operations,
} from 'appdata-kit'

// The client over the browser's fetch: a transport speaks the web's bytes.
const base = 'https://apps.example.test'
const fetchTransport: Transport = {
  target: base,
  async send(request: WireRequest): Promise<WireResponse> {
    const body = typeof request.body === 'string' || request.body === undefined ? request.body : request.body.slice()
    const answer = await fetch(\`\${base}\${request.path}\`, { method: request.method, headers: request.headers ?? {}, ...(body === undefined ? {} : { body }) })
    const headers: Record<string, string> = {}
    answer.headers.forEach((value, name) => { headers[name] = value })
    return { status: answer.status, headers, body: new Uint8Array(await answer.arrayBuffer()) }
  },
  async close() {},
}

const client: Client = createClient({ transport: fetchTransport, organization: 'acme', productVersion: '3.0.19' })

export async function firstRows(): Promise<ReadRow[]> {
  await client.signIn({ username: 'admin@acme.test', password: 'admin-pass' })
  const save: SaveRequest = { Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Web' }, Details: [] }] }
  try {
    await client.save(save)
  } catch (error) {
    if (error instanceof ApiError) {
      const answer: Answer = error.answer
      const raw: Uint8Array = answer.raw
      console.log(error.status, error.problem?.code, raw.byteLength)
    } else if (error instanceof TransportError) console.log(error.code)
  }
  return client.rows({ top: 3 })
}

export async function firstFile(id: number): Promise<Blob> {
  const file = await client.download([id])
  return new Blob([file.bytes.slice()], { type: file.mediaType })
}

// startMock's types, for code that is handed a running mock.
export async function inProcess(mock: RunningMock): Promise<number> {
  const quick = createClient({ transport: injectTransport(mock.app) })
  await quick.signIn({ username: 'admin@acme.test', password: 'admin-pass' })
  const controls: MockControls = mock
  const saved: JournalEntry[] = await controls.assertRequested({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Web' } }] } } }, { times: 1 }).catch((error: unknown) => {
    if (error instanceof RequestAssertionError) console.log(error.matched, error.nearMisses.map((miss: NearMiss) => miss.seq))
    return []
  })
  return controls.requests().length + saved.length + (mock.tls?.cert.length ?? 0)
}
const lines: string[] = []
const logStream: LogStream = { write: (line) => lines.push(line) }
const fixture: FixtureFile | undefined = undefined
export const options: StartOptions = { productVersion: '2.9', port: 0, logStream, ...(fixture === undefined ? {} : { fixtureData: fixture }) }

// The wire types generated from the document.
type SignInPath = keyof paths
type Row = components['schemas']['ReadRow']
type SaveBody = operations['saveItems']['requestBody']
export const wire: { path: SignInPath | undefined; row: Row | undefined; body: SaveBody | undefined } = { path: undefined, row: undefined, body: undefined }
export const catalogs = [Object.keys(PROBLEMS).length, Object.keys(WARNINGS).length]
`

const WEB_TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    noEmit: true,
  },
  files: ['web.ts'],
})

/** A whole `tsc` run over the package's declarations and its dependencies': seconds alone, more beside the other test files. */
const TSC_TIMEOUT = 120_000
/**
 * A whole vitest run of the documents' examples, each file starting mocks of its own: 28 to 37 s
 * measured on two cores shared with other jobs (over the 30 s a test gets by default).
 */
const EXAMPLES_LIMIT = 120_000

describe('the packed package in an empty project', () => {
  let consumer: string
  let webConsumer: string
  let tarball: string
  let installLog: string
  let withPrepareLog: string

  beforeAll(() => {
    tarball = packProject(mkdtempSync(join(tmpdir(), 'appdata-kit-pack-')))
    ;({ dir: consumer, installLog } = createConsumer(
      tarball,
      {
        'plain.js': PLAIN_JS,
        'required.cjs': "const kit = require('appdata-kit')\nconsole.log(typeof kit.startMock, typeof kit.createClient, kit.DEFAULT_FIXTURE.workspaceId)\n",
        'typed.ts': TYPED,
        'tsconfig.json': TSCONFIG,
        ...RUNNABLE_FILES,
        'integration.js': INTEGRATION_TESTS,
      },
      { 'integration-tests': 'node integration.js' },
    ))
    // TypeScript alone: neither @types/node nor anything that would bring it.
    webConsumer = createConsumer(tarball, { 'web.ts': WEB, 'tsconfig.json': WEB_TSCONFIG }, {}, ['typescript']).dir
    // What the same npm prints for a package that does run a script at install, so the check above reads real output.
    withPrepareLog = installWithPrepare(dirname(tarball))
  }, 180_000)

  // Two installed projects (some 18,000 files) removed side by side without holding the event loop:
  // seconds alone, and a minute once on a disk shared with other jobs' installs.
  afterAll(async () => {
    stopStarted()
    await Promise.all(
      [consumer, webConsumer, tarball === undefined ? undefined : dirname(tarball)].flatMap((dir) =>
        dir === undefined ? [] : [rm(dir, { recursive: true, force: true })],
      ),
    )
  }, 180_000)

  it('ships compiled code with declarations and maps, the fixture and the documents, and no TypeScript sources or tests', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n')
    for (const file of [
      'package/dist/src/index.js',
      'package/dist/src/index.d.ts',
      'package/dist/src/index.js.map',
      'package/bin/appdata-kit.js',
      'package/fixtures/default.json',
      'package/fixtures/files/invoice.pdf',
      'package/spec/openapi.json',
      'package/fixtures/fixture.schema.json',
      'package/spec/usage.schema.json',
      'package/console/index.html',
      'package/console/console.js',
    ]) {
      expect(listing).toContain(file)
    }
    expect(listing.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([])
    expect(listing.filter((file) => file.startsWith('package/test/'))).toEqual([])
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/appdata-kit/package.json'), 'utf8'))
    expect(manifest.private).toBeUndefined()
    expect(manifest.dependencies).not.toHaveProperty('tsx')
    // Nothing compiles TypeScript at run time in the user's project.
    expect(existsSync(join(consumer, 'node_modules/tsx'))).toBe(false)
  })

  it("resolves every relative link and picture of the packed README, and every picture of its pages, inside the package (where a package's page is read)", () => {
    const listing = new Set(execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n'))
    const packedPages = [...listing].filter((file) => /^package\/(README\.md|docs\/[^/]+\.md)$/.test(file)).map((file) => file.slice('package/'.length))
    expect(packedPages).toEqual(expect.arrayContaining(['README.md', 'docs/mock.md']))
    const unresolved: string[] = []
    let pictures = 0
    for (const page of packedPages) {
      const text = readFileSync(join(consumer, 'node_modules/appdata-kit', page), 'utf8')
      for (const { line, target } of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue
        const picture = /\.(png|jpe?g|gif|svg|webp)$/i.test(target.split('#')[0] as string)
        if (picture) pictures++
        // The README's every relative link; the other pages' pictures (their links to the repository's own files are for a checkout).
        if (page !== 'README.md' && !picture) continue
        const file = posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(target.split('#')[0] as string)))
        if (!listing.has(`package/${file}`)) unresolved.push(`${page}:${line} ${target}`)
      }
    }
    expect(pictures).toBeGreaterThanOrEqual(3)
    expect(unresolved).toEqual([])
  })

  it('installs with no install script of its own: npm names none for appdata-kit (npm 11 lists every package that would run one)', () => {
    const manifest = JSON.parse(readFileSync(join(consumer, 'node_modules/appdata-kit/package.json'), 'utf8')) as { scripts?: Record<string, string> }
    // What npm runs at install: the dependency's preinstall, install, postinstall, and prepare for a package from a tarball or git.
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([])
    expect(installLog.split('\n').filter((line) => /install-scripts/.test(line) && line.includes('appdata-kit'))).toEqual([])
    // The same npm names a tarball that has one, where it lists install scripts at all (npm 11.16 and later; Node 22's npm 10 does not).
    const npmVersion = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()
    if (semver.gte(npmVersion, '11.16.0')) expect(withPrepareLog).toMatch(/install-scripts +with-prepare@1\.0\.0 \(prepare: node -e 0\)/)
    else expect(withPrepareLog).not.toMatch(/install-scripts/)
  })

  it('runs the bin from the project: --version, and the mock with the default fixture found inside the package', async () => {
    const bin = join(consumer, 'node_modules/.bin/appdata-kit')
    const version = await runToEnd(bin, ['--version'], { cwd: consumer })
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
    const run = await startProcess(bin, ['mock', '--port', '0'], { cwd: consumer })
    expect(run.stderr).not.toContain('ENOENT')
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(run.stdout).toContain(join(consumer, 'node_modules/appdata-kit/fixtures/default.json'))
    const signIn = await fetch(`${run.url}/identityprovider/acme/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession',
    })
    expect(signIn.status).toBe(200)
    // The console's files come from the package too.
    for (const file of ['', '/console.js', '/dom.js', '/api.js', '/console.css']) expect((await fetch(`${run.url}/__mock/ui${file}`)).status).toBe(200)
    process.kill(run.child.pid as number, 'SIGTERM')
    expect((await run.exited).code).toBe(0)
  })

  it('keeps a sandbox in a --state-file from the installed bin with nothing native installed: pure JavaScript, no build at install', async () => {
    // appdata-kit and every package it installs (not the project's own tools: vitest's bundler is native).
    const installed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: consumer, encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((path) => path.includes('node_modules'))
    expect(installed.some((path) => path.endsWith('node_modules/appdata-kit'))).toBe(true)
    const native = installed.filter(
      (path) => execFileSync('find', [path, '-name', '*.node', '-not', '-path', '*/node_modules/*/node_modules/*'], { encoding: 'utf8' }).trim() !== '',
    )
    expect(native).toEqual([])
    const bin = join(consumer, 'node_modules/.bin/appdata-kit')
    const file = join(consumer, 'sandbox.state')
    const first = await startProcess(bin, ['mock', '--port', '0', '--state-file', file], { cwd: consumer })
    expect(first.url, first.stderr).toBeDefined()
    expect(first.stdout).toContain(`data kept in ${file}`)
    process.kill(first.child.pid as number, 'SIGKILL')
    await first.exited
    const second = await startProcess(bin, ['mock', '--port', '0', '--state-file', file], { cwd: consumer })
    expect(second.stdout).toContain(`state restored from ${file}`)
    process.kill(second.child.pid as number, 'SIGTERM')
    expect((await second.exited).code).toBe(0)
  })

  it('imports startMock, createClient and the JSON files from plain JavaScript', async () => {
    const run = await runToEnd(process.execPath, ['plain.js'], { cwd: consumer })
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) as string)
    expect(result).toMatchObject({
      ids: [1, 2, 3],
      viewerSeesAmount: false,
      title: expect.stringContaining('Application Data'),
      emails: 0,
      asserted: 1,
      missed: ['RequestAssertionError', '/user'],
      stub: { id: 1, rows: 0, hits: [1], cleared: 1 },
    })
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(result.schema).toMatch(/json-schema\.org/)
    expect(result.usageSchema).toBe('urn:appdata-kit:usage')
  })

  it('loads with require() too, for CommonJS test setups (Node 20.19 and later)', async () => {
    const run = await runToEnd(process.execPath, ['required.cjs'], { cwd: consumer })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe('function function 6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70')
  })

  it(
    "type-checks a consumer's code under strict NodeNext tsc",
    async () => {
      const run = await runToEnd(join(consumer, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: consumer })
      expect(run.code, run.stdout + run.stderr).toBe(0)
    },
    TSC_TIMEOUT,
  )

  it(
    "type-checks a browser project's code under strict tsc without Node's types (no @types/node, lib DOM)",
    async () => {
      expect(existsSync(join(webConsumer, 'node_modules/typescript'))).toBe(true)
      expect(existsSync(join(webConsumer, 'node_modules/@types/node'))).toBe(false)
      const run = await runToEnd(join(webConsumer, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: webConsumer })
      expect(run.code, run.stdout + run.stderr).toBe(0)
    },
    TSC_TIMEOUT,
  )

  it("runs every shell recipe of the README and docs/ as written, each with a free PORT; the README's starts the mock, waits on health, tests, stops it by PID", async () => {
    expect(SHELL_RECIPES.map(({ file }) => file)).toContain('ci-recipe.sh')
    for (const { page, line, file } of SHELL_RECIPES) {
      const port = await freePort()
      const run = await runToEnd('bash', ['-euo', 'pipefail', file as string], { cwd: consumer, env: { PORT: String(port) } })
      expect(run.code, `${page}:${line} ${file}\n${run.stdout}${run.stderr}`).toBe(0)
      if (file !== 'ci-recipe.sh') continue
      expect(run.stdout).toContain('signed in: 200')
      expect(run.stdout).toContain(`listening on http://127.0.0.1:${port}`)
      // Stopped by its PID: nothing listens there any more.
      await expect(fetch(`http://127.0.0.1:${port}/__mock/health`)).rejects.toThrow()
    }
  })

  it(
    'runs every vitest example of the README and docs/ as written (orders.test.js, control-plane.test.js, ...)',
    async () => {
      expect(VITEST_FILES.map(({ file }) => file)).toEqual(expect.arrayContaining(['orders.test.js', 'control-plane.test.js']))
      const run = await runToEnd(join(consumer, 'node_modules/.bin/vitest'), ['run', '--reporter=verbose'], { cwd: consumer, limitMs: EXAMPLES_LIMIT })
      expect(run.code, run.stdout + run.stderr).toBe(0)
      // Every file ran and passed: one vitest file per block, none failed or left out.
      const files = /Test Files\s+(\d+) passed \((\d+)\)/.exec(stripVTControlCharacters(run.stdout))
      expect(files?.slice(1).map(Number), run.stdout).toEqual([VITEST_FILES.length, VITEST_FILES.length])
      for (const { file } of VITEST_FILES) expect(run.stdout).toContain(`test/${file}`)
    },
    EXAMPLES_LIMIT,
  )
})
