import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const ROOT = new URL('../../', import.meta.url).pathname
const started: ChildProcess[] = []

/** Runs the mock's entry point the way `npm start -- ARGS` does (one process, tsx as loader); resolves on exit or on the listening line. */
function runServer(args: string[], env: Record<string, string> = {}, entry: string[] = ['--import', 'tsx', 'src/server.ts']): Promise<{ child: ChildProcess; url?: string; code?: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...entry, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  started.push(child)
  let stdout = ''
  let stderr = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer in 30 s; stdout: ${stdout} stderr: ${stderr}`)), 30_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /listening on (http:\/\/[^\s]+)/.exec(stdout)
      if (match) {
        clearTimeout(timer)
        resolve({ child, url: match[1], stdout, stderr })
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ child, code, stdout, stderr })
    })
  })
}

afterEach(() => {
  // Only the processes this file started, by their PID.
  for (const child of started.splice(0)) if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM')
})

describe('npm start', () => {
  it('prints the listening line and serves the chosen release on the chosen port', async () => {
    const run = await runServer(['--port', '0', '--product-version', '3.0.18', '--token-ttl', '90'])
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const token = await fetch(`${run.url}/identityprovider/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession',
    })
    expect(token.status).toBe(200)
    expect(((await token.json()) as { expires_in: number }).expires_in).toBe(90)
    expect((await fetch(`${run.url}/docs`)).status).toBe(200)
  })

  it('starts the same way as `appdata-kit mock` through the package bin', async () => {
    const run = await runServer(['mock', '--port', '0'], {}, [join(ROOT, 'bin/appdata-kit.js')])
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${run.url}/openapi.json`)).status).toBe(200)
  })

  it('takes PORT and PRODUCT_VERSION from the environment', async () => {
    const run = await runServer([], { PORT: '0', PRODUCT_VERSION: '2.9' })
    expect(run.url).toBeDefined()
    const legacy = await fetch(`${run.url}/IntelligenceUserManagementService/UserManagementService.svc/Token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin@acme.test', password: 'admin-pass', clientId: 'appdata-legacy' }),
    })
    expect(legacy.status).toBe(200)
  })

  it('refuses a bad fixture with a message naming the file and the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-fixture-'))
    const fixture = JSON.parse(readFileSync(join(ROOT, 'fixtures/default.json'), 'utf8'))
    fixture.applications[0].master.fields[1].type = 'money'
    const path = join(dir, 'bad.json')
    writeFileSync(path, JSON.stringify(fixture))
    const run = await runServer(['--port', '0', '--fixture', path])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('bad.json')
    expect(run.stderr).toContain('/applications/0/master/fields/1/type')
  })

  it.each([
    [['--product-version', 'newest'], 'product-version'],
    [['--port', 'http'], '--port'],
    [['--colour'], 'colour'],
  ])('refuses flags %j with usage', async (args, word) => {
    const run = await runServer(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(word)
    expect(run.stderr).toContain('Usage:')
  })
})
