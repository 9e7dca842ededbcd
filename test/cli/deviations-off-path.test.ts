/**
 * The deviations (`--deviate`, faults on purpose for measuring verify) stay out of a normal mock:
 * started without the flag, the process never loads their module, so none of their hooks can sit
 * in the request path. A module-resolution hook in the mock's process lists what it loads.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { IDS } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { ROOT, startProcess, stopStarted } from './processes.ts'

const SERVER = join(ROOT, 'dist/src/mock/server.js')
const SIGN_IN_FORM = 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession'
const dir = sharedTempDir('appdata-kit-loaded-')
// Writes every module of the package the process resolves to standard error, one a line.
writeFileSync(
  join(dir, 'hooks.mjs'),
  "export async function resolve(specifier, context, next) { const found = await next(specifier, context); if (found.url.includes('/dist/src/')) process.stderr.write(`loaded ${found.url}\\n`); return found }\n",
)
writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module'\nregister('./hooks.mjs', import.meta.url)\n")

afterEach(stopStarted)

/** Starts the compiled mock with the flags, signs in, reads a page and a save; what it loaded. */
async function loadedBy(args: string[]): Promise<string> {
  const run = await startProcess(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, SERVER, '--port', '0', '--quiet', ...args])
  expect(run.url).toBeDefined()
  const signIn = await fetch(`${run.url}/identityprovider/${IDS.org}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: SIGN_IN_FORM,
  })
  const token = ((await signIn.json()) as { access_token: string }).access_token
  const headers = { SessionToken: token, ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, 'content-type': 'application/json' }
  const page = await fetch(`${run.url}/ExplorerApi/api/items`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=2' }) })
  expect(page.status).toBe(200)
  run.child.kill('SIGTERM')
  await run.exited
  return run.stderr
}

describe('deviations', () => {
  it('are not loaded by a mock started without --deviate', async () => {
    const loaded = await loadedBy([])
    expect(loaded).toContain('/dist/src/mock/app.js')
    expect(loaded).not.toContain('/dist/src/deviate/deviations.js')
  })

  it('are loaded by a mock started with --deviate', async () => {
    expect(await loadedBy(['--deviate', 'id-as-text'])).toContain('/dist/src/deviate/deviations.js')
  })
})
