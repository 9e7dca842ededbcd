/**
 * `npm start` and `appdata-kit mock` as a CI script or a terminal runs them: the compiled entry
 * point as its own process, flags and variables, refusals with exit 2, a port in use, SIGTERM
 * with a keep-alive client, HTTPS, CORS, health and the request log.
 */
import { X509Certificate } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, get as httpsGet } from 'node:https'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import selfsigned from 'selfsigned'
import { afterEach, describe, expect, it } from 'vitest'
import { httpTransport } from '../../src/wire/transport.ts'
import { createClient } from '../../src/client/client.ts'
import { IDS } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { faultApplied, printed, ROOT, runToEnd, startProcess, stopStarted, waitFor } from './processes.ts'

const SERVER = join(ROOT, 'dist/src/mock/server.js')
const BIN = join(ROOT, 'bin/appdata-kit.js')
const SIGN_IN_FORM = 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession'
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g

/** The mock's own entry point, as `npm start` runs it (one process, no loader). */
const startServer = (args: string[], env: Record<string, string> = {}) => startProcess(process.execPath, [SERVER, ...args], { env })

afterEach(stopStarted)

describe('npm start', () => {
  it('runs the server as its own process, so `kill $!` stops it and frees the port', async () => {
    const run = await startProcess('npm', ['start', '--', '--port', '0', '--product-version', '3.0.18', '--token-ttl', '90'])
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const token = await fetch(`${run.url}/identityprovider/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: SIGN_IN_FORM,
    })
    expect(token.status).toBe(200)
    expect(((await token.json()) as { expires_in: number }).expires_in).toBe(90)
    // What `npm start & … kill $!` does: the signal goes to the PID npm was started with.
    process.kill(run.child.pid as number, 'SIGTERM')
    expect((await run.exited).code).toBe(0)
    await expect(fetch(`${run.url}/__mock/health`)).rejects.toThrow()
  })

  it('takes PORT and PRODUCT_VERSION from the environment', async () => {
    const run = await startServer([], { PORT: '0', PRODUCT_VERSION: '2.9' })
    expect(run.url).toBeDefined()
    const legacy = await fetch(`${run.url}/IntelligenceUserManagementService/UserManagementService.svc/Token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }),
    })
    expect(legacy.status).toBe(200)
  })

  it('refuses a bad fixture with a message naming the file and the path', async () => {
    const dir = tempDir('appdata-kit-fixture-')
    const fixture = JSON.parse(readFileSync(join(ROOT, 'fixtures/default.json'), 'utf8'))
    fixture.applications[0].master.fields[1].type = 'money'
    const path = join(dir, 'bad.json')
    writeFileSync(path, JSON.stringify(fixture))
    const run = await startServer(['--port', '0', '--fixture', path])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('bad.json')
    expect(run.stderr).toContain('/applications/0/master/fields/1/type')
  })

  it.each([
    [['--product-verison', '3.0.18'], /unknown option '--product-verison'\n\(Did you mean --product-version\?\)/],
    [['--product-version', '4.0'], /--product-version must be "latest" \(3\.0\.19\) or a release from 2\.0 to 3\.x .*got "4\.0"/],
    [['--public-url', 'notaurl'], /--public-url must be an absolute http or https URL/],
    [['--log-level', 'chatty'], /--log-level must be one of silent, fatal, error, warn, info, debug, trace, got "chatty"/],
    [['--port', 'http'], /--port must be a whole number/],
    [['--colour'], /unknown option '--colour'/],
  ])('refuses %j at start with exit 2, a message and where to look, and no stack', async (args, message) => {
    const run = await startServer(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.stderr).toContain('appdata-kit mock --help lists every flag')
    expect(run.stderr).not.toMatch(/\n\s+at /)
  })

  it('says in one line which port is in use, and exits 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const { port } = blocker.address() as AddressInfo
    try {
      const run = await startServer(['--port', String(port)])
      expect(run.code).toBe(1)
      expect(run.stderr.trim().split('\n')).toEqual([
        `appdata-kit: port ${port} on 127.0.0.1 is in use; stop what listens there or pick another with --port (or PORT)`,
      ])
    } finally {
      blocker.close()
    }
  })

  it('stops on SIGTERM within 2 s with a keep-alive client connected, answering the request in flight, and exits 0', async () => {
    const run = await startServer(['--port', '0'])
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 2 })
    const send = (method: string, path: string, body?: string, type = 'application/json') =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = httpRequest(`${run.url}${path}`, { method, agent, headers: body === undefined ? {} : { 'content-type': type } }, (response) => {
          let text = ''
          response.on('data', (chunk: Buffer) => (text += chunk.toString()))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
        })
        request.on('error', reject)
        request.end(body)
      })
    // One idle keep-alive connection, and one request that is still being answered when the signal comes.
    expect((await send('GET', '/__mock/health')).status).toBe(200)
    expect((await send('POST', '/__mock/faults', JSON.stringify({ rules: [{ operationId: 'signIn', latencyMs: 600 }] }))).status).toBe(200)
    const inFlight = send('POST', `/identityprovider/${IDS.org}/connect/token`, SIGN_IN_FORM, 'application/x-www-form-urlencoded')
    await waitFor('the sign-in to arrive', () => faultApplied(run.url as string, 'signIn'))
    const signalled = performance.now()
    process.kill(run.child.pid as number, 'SIGTERM')
    const answer = await inFlight
    const { code, at } = await run.exited
    agent.destroy()
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.text)).toHaveProperty('access_token')
    expect(code).toBe(0)
    expect(at - signalled).toBeLessThanOrEqual(2000)
  })

  it('serves HTTPS with a self-signed certificate made at start, prints its fingerprint and writes it for clients to trust', async () => {
    const dir = tempDir('appdata-kit-tls-')
    const run = await startServer(['--port', '0', '--https', '--tls-out', dir])
    expect(run.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
    expect(run.stdout).toContain(`self-signed certificate SHA-256 fingerprint ${new X509Certificate(cert).fingerprint256}, written to ${dir}/cert.pem`)
    const client = createClient({
      transport: httpTransport(run.url as string, { ca: cert }),
      organization: IDS.org,
      clientId: IDS.clientId,
      workspaceId: IDS.workspaceId,
      applicationId: IDS.applicationId,
    })
    try {
      await client.signIn(IDS.admin)
      expect((await client.rows({ top: 2 })).length).toBe(2)
    } finally {
      await client.transport.close()
    }
    // Without the certificate a client refuses the mock, as it should.
    await expect(fetch(`${run.url}/__mock/health`)).rejects.toThrow()
  })

  it('serves HTTPS with a certificate and key from files', async () => {
    const dir = tempDir('appdata-kit-tls-')
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7 as const, ip: '127.0.0.1' }] }],
    })
    writeFileSync(join(dir, 'cert.pem'), pems.cert)
    writeFileSync(join(dir, 'key.pem'), pems.private)
    const run = await startServer(['--port', '0'], { MOCK_TLS_CERT: join(dir, 'cert.pem'), MOCK_TLS_KEY: join(dir, 'key.pem') })
    expect(run.stdout).toContain(`certificate SHA-256 fingerprint ${new X509Certificate(pems.cert).fingerprint256}`)
    const health = await new Promise<number>((resolve, reject) => {
      httpsGet(`${run.url}/__mock/health`, { agent: new HttpsAgent({ ca: pems.cert }) }, (response) => resolve(response.statusCode ?? 0)).on('error', reject)
    })
    expect(health).toBe(200)
  })

  it('answers browser preflights for every operation from the origins of --cors, and no other', async () => {
    const run = await startServer(['--port', '0', '--cors', 'http://app.example.test'])
    const preflight = (path: string, origin: string) =>
      fetch(`${run.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'sessiontoken,workspaceid,applicationid,content-type',
        },
      })
    for (const path of ['/ExplorerApi/api/items/save', `/identityprovider/${IDS.org}/connect/token`, '/ExplorerApi/api/email/send']) {
      const answer = await preflight(path, 'http://app.example.test')
      expect(answer.status, path).toBe(204)
      expect(answer.headers.get('access-control-allow-origin')).toBe('http://app.example.test')
      const allowed = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase()
      for (const header of ['sessiontoken', 'workspaceid', 'applicationid', 'authorization', 'content-type']) expect(allowed).toContain(header)
    }
    expect((await preflight('/ExplorerApi/api/items/save', 'http://elsewhere.test')).headers.get('access-control-allow-origin')).toBeNull()
    // Never the control plane: a page must not read fixture passwords or replace the data.
    for (const path of ['/__mock/state', '/__mock/fixture'])
      expect((await preflight(path, 'http://app.example.test')).headers.get('access-control-allow-origin'), path).toBeNull()
    expect((await fetch(`${run.url}/__mock/state`, { headers: { Origin: 'http://app.example.test' } })).headers.get('access-control-allow-origin')).toBeNull()
    // The real answer carries the header too, and lets the page read the mock's warnings.
    const signIn = await fetch(`${run.url}/identityprovider/${IDS.org}/connect/token`, {
      method: 'POST',
      headers: { Origin: 'http://app.example.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: SIGN_IN_FORM,
    })
    expect(signIn.headers.get('access-control-allow-origin')).toBe('http://app.example.test')
    expect(signIn.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-mock-warnings')
  })

  it('answers no preflight without --cors, and an unknown path stays a 404 with it', async () => {
    const plain = await startServer(['--port', '0'])
    const refused = await fetch(`${plain.url}/ExplorerApi/api/items/save`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://app.example.test', 'Access-Control-Request-Method': 'POST' },
    })
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    const withCors = await startServer(['--port', '0', '--cors', '*'])
    expect((await fetch(`${withCors.url}/no/such/path`)).status).toBe(404)
  })

  it('answers the health check, with the control plane on and off', async () => {
    for (const args of [[], ['--no-control-plane']]) {
      const run = await startServer(['--port', '0', '--product-version', '3.0.18', ...args])
      const health = await fetch(`${run.url}/__mock/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({
        status: 'ok',
        version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
        productVersion: '3.0.18',
      })
    }
  })

  it('logs one readable line per request on a terminal: time, method, path, operation, status, problem code, ms', async () => {
    // `script` gives the mock a terminal, as when a person starts it; `exec` lets it stop the mock with itself.
    const run = await startProcess('script', ['-qfec', `exec ${process.execPath} ${SERVER} --port 0`, '/dev/null'])
    await fetch(`${run.url}/ExplorerApi/api/items/save`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    await printed(run, 'saveItems')
    const line = run.stdout
      .replace(ANSI, '')
      .split(/\r?\n/)
      .find((text) => text.includes('saveItems'))
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/ExplorerApi\/api\/items\/save saveItems 401 MISSING_TOKEN [\d.]+ ms$/)
    process.kill(run.child.pid as number, 'SIGTERM')
    await run.exited
  })

  it('writes nothing but JSON lines with --log-format json, the listening line with its URL included', async () => {
    const run = await startServer(['--port', '0', '--log-format', 'json'])
    await fetch(`${run.url}/__mock/health`)
    process.kill(run.child.pid as number, 'SIGTERM')
    await run.exited
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; url?: string })
    expect(lines.find((line) => line.msg.startsWith('listening on'))).toEqual(expect.objectContaining({ msg: `listening on ${run.url}`, url: run.url }))
    expect(lines.some((line) => line.msg.startsWith('GET /__mock/health getHealth 200'))).toBe(true)
    // The request line has pino's fields in pino's order (it is written without a logger per request).
    const requestLine = lines.find((line) => line.msg.startsWith('GET /__mock/health')) as unknown as Record<string, unknown>
    expect(Object.keys(requestLine)).toEqual(['level', 'time', 'pid', 'hostname', 'reqId', 'request', 'msg'])
    expect(requestLine).toMatchObject({
      level: 30,
      pid: run.child.pid,
      reqId: expect.stringMatching(/^req-\d+$/),
      request: { method: 'GET', path: '/__mock/health', operationId: 'getHealth', status: 200, code: null, warnings: [] },
    })
    expect(Math.abs((requestLine.time as number) - Date.now())).toBeLessThan(60_000)
  })

  it('logs JSON lines when not on a terminal, never a secret; --quiet keeps warnings and errors only', async () => {
    const run = await startServer(['--port', '0'])
    await fetch(`${run.url}/ExplorerApi/api/items?SessionToken=s3cret-token&password=hunter2`)
    const quiet = await startServer(['--port', '0', '--quiet'])
    await fetch(`${quiet.url}/__mock/health`)
    const signIn = await fetch(`${quiet.url}/identityprovider/${IDS.org}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${SIGN_IN_FORM}&extra=1`,
    })
    expect(signIn.headers.get('x-mock-warnings')).toBe('SIGN_IN_EXTRA_PARAMETER')
    for (const server of [run, quiet]) {
      process.kill(server.child.pid as number, 'SIGTERM')
      await server.exited
    }
    // Every line is JSON, the start-up lines too (they were once plain among the JSON), and the listening line still says where.
    expect(
      run.stdout
        .trim()
        .split('\n')
        .filter((text) => !text.startsWith('{')),
    ).toEqual([])
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as Record<string, unknown>)
    expect(lines.find((line) => String(line.msg).startsWith('listening on'))).toMatchObject({ msg: `listening on ${run.url}`, url: run.url })
    expect(lines.find((line) => (line.request as { path?: string } | undefined)?.path?.startsWith('/ExplorerApi/api/items'))).toMatchObject({
      level: 30,
      request: { method: 'GET', path: '/ExplorerApi/api/items?SessionToken=[redacted]&password=[redacted]', status: 405, code: 'METHOD_NOT_ALLOWED' },
    })
    expect(run.stdout).not.toContain('s3cret-token')
    expect(run.stdout).not.toContain('hunter2')
    // After the start-up lines (printed whatever the level, the listening line last), only the warning.
    const quietAll = quiet.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { level: number; msg: string })
    const quietLines = quietAll.slice(quietAll.findIndex((line) => line.msg.startsWith('listening on')) + 1)
    expect(quietLines.map((line) => line.msg)).toEqual([
      expect.stringMatching(/^POST \/identityprovider\/acme\/connect\/token signIn 200 [\d.]+ ms warnings SIGN_IN_EXTRA_PARAMETER$/),
    ])
    expect(quietLines[0]?.level).toBe(40)
  })
})

describe('the log of a busy mock', () => {
  it('is written without blocking: a reader that falls behind does not stall the answers, and no line is lost', async () => {
    const run = await startServer(['--port', '0', '--log-format', 'json'])
    expect(run.url).toBeDefined()
    // Stop reading the mock's output: the pipe fills after 64 KB, some 300 request lines.
    run.child.stdout?.pause()
    const count = 1200
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 4 })
    const answered = await new Promise<number>((resolve, reject) => {
      let done = 0
      let sent = 0
      const timer = setTimeout(() => reject(new Error(`${done} of ${count} answered in 20 s: the log write blocked the mock`)), 20_000)
      const next = (): void => {
        if (sent === count) return
        sent += 1
        const request = httpRequest(`${run.url}/__mock/health?n=${sent}`, { agent }, (response) => {
          response.resume()
          response.on('end', () => {
            done += 1
            if (done === count) {
              clearTimeout(timer)
              resolve(done)
            } else next()
          })
        })
        request.on('error', reject)
        request.end()
      }
      for (let i = 0; i < 4; i++) next()
    })
    agent.destroy()
    expect(answered).toBe(count)
    // Stopped while the lines wait in its queue, the mock writes them before it exits.
    run.child.kill('SIGTERM')
    run.child.stdout?.resume()
    expect((await run.exited).code).toBe(0)
    const seen = new Set(
      run.stdout
        .split('\n')
        .flatMap((line) => /\/__mock\/health\?n=(\d+)/.exec(line)?.[1] ?? [])
        .map(Number),
    )
    expect(Array.from({ length: count }, (_, i) => i + 1).filter((n) => !seen.has(n))).toEqual([])
  }, 60_000)
})

describe('the appdata-kit command', () => {
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string

  it.each([[[]], [['mock']], [['verify']], [['capture']], [['spec']]])('%j --version prints the version', async (command) => {
    const run = await runToEnd(process.execPath, [BIN, ...command, '--version'])
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toBe(version)
  })

  it.each([
    [
      'mock',
      [
        '--port <n>',
        '(default: 4080, env: PORT or MOCK_PORT)',
        '--product-version',
        '--https',
        '--tls-out',
        '--cors',
        '--log-format',
        '--quiet',
        'Examples:',
        'npx appdata-kit mock --port 4181',
      ],
    ],
    ['verify', ['--base-url <url>', 'env: APPDATA_BASE_URL', '--allow-writes', '--junit <file>', '(default: 30000, env: APPDATA_TIMEOUT)', 'Example']],
    ['spec', ['--out <file>', '--product-version', '--strict', '--control-plane', 'Examples:', 'npx appdata-kit spec --out openapi.yaml']],
    [
      'capture',
      [
        '--base-url <url>',
        '--relation-key <key>',
        '(default: 100, env: APPDATA_CAPTURE_ROWS)',
        '--no-anonymise',
        '--keep-values <field>',
        '--rows-as-generator',
        'Strictly read-only',
        'Example',
      ],
    ],
  ])('%s --help lists every flag with its default, its variable and an example', async (command, texts) => {
    const run = await runToEnd(process.execPath, [BIN, command, '--help'])
    expect(run.code).toBe(0)
    const help = run.stdout.replace(/\s+/g, ' ')
    for (const text of texts) expect(help).toContain(text)
  })

  it('answers --help and help COMMAND, and refuses an unknown command with a suggestion and exit 2', async () => {
    const help = await runToEnd(process.execPath, [BIN, '--help'])
    expect(help.code).toBe(0)
    for (const command of ['mock', 'verify', 'capture', 'spec']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'))
    expect((await runToEnd(process.execPath, [BIN, 'help', 'spec'])).stdout).toContain('--out <file>')
    const typo = await runToEnd(process.execPath, [BIN, 'mokc'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain("unknown command 'mokc'\n(Did you mean mock?)")
    const flag = await runToEnd(process.execPath, [BIN, 'spec', '--outt', 'x.yaml'])
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain('(Did you mean --out?)')
  })

  it('starts the mock as `appdata-kit mock`', async () => {
    const run = await startProcess(process.execPath, [BIN, 'mock', '--port', '0'])
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${run.url}/openapi.json`)).status).toBe(200)
  })

  it('writes the document as YAML or JSON by the extension of --out, one release or all', async () => {
    const dir = tempDir('appdata-kit-spec-')
    const yaml = await runToEnd(process.execPath, [BIN, 'spec', '--out', join(dir, 'openapi.yaml')])
    expect(yaml.code).toBe(0)
    // The repository's document without the repository's marker: the file is the user's, and "do not
    // edit" / "npm run spec" would point its readers at a command their project does not have.
    const repositoryFile = readFileSync(join(ROOT, 'spec/openapi.yaml'), 'utf8')
    expect(repositoryFile.split('\n')[0]).toContain('generated by npm run spec')
    const written = readFileSync(join(dir, 'openapi.yaml'), 'utf8')
    expect(written).toBe(repositoryFile.slice(repositoryFile.indexOf('\n') + 1))
    expect(written).not.toMatch(/npm run spec|do not edit/)
    const json = await runToEnd(process.execPath, [BIN, 'spec', '--out', join(dir, 'legacy.json'), '--product-version', '2.9'])
    expect(json.code).toBe(0)
    expect(readFileSync(join(dir, 'legacy.json'), 'utf8')).not.toMatch(/x-generated-by|npm run spec|do not edit/)
    const legacy = JSON.parse(readFileSync(join(dir, 'legacy.json'), 'utf8')) as { paths: Record<string, unknown> }
    expect(Object.keys(legacy.paths)).toContain('/IntelligenceUserManagementService/UserManagementService.svc/Token')
    expect(Object.keys(legacy.paths)).not.toContain('/identityprovider/{organizationphysicalname}/connect/token')
    // The strict document of one release: what `npx appdata-kit mock --strict --product-version 3.0.19` serves.
    const strict = await runToEnd(process.execPath, [BIN, 'spec', '--strict', '--product-version', '3.0.19', '--format', 'json'])
    expect(strict.code).toBe(0)
    expect(strict.stdout).not.toContain('x-mock-strict')
    expect(strict.stdout).not.toContain('x-generated-by')
    const strictDocument = JSON.parse(strict.stdout) as {
      components: { schemas: Record<string, { properties: Record<string, { minItems?: number }>; additionalProperties?: unknown }> }
    }
    expect(strictDocument.components.schemas.SaveDetailGroup?.properties.Rows?.minItems).toBe(1)
    expect(strictDocument.components.schemas.SaveDetailGroup?.additionalProperties).toBe(false)
    expect((await runToEnd(process.execPath, [BIN, 'spec', '--strict', '--control-plane'])).code).toBe(2)
    const wrong = await runToEnd(process.execPath, [BIN, 'spec', '--out', join(dir, 'openapi.txt')])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--out must end in .json, .yaml or .yml')
    // Six runs of the command: on a loaded machine, more than the default 30 s.
  }, 120_000)
})
