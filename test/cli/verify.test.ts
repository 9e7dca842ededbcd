/**
 * `appdata-kit verify` as users run it: against mocks of every release (exit 0, read-only or with
 * writes, the data left as found), as a process through the package bin, with bad flags, an
 * unreachable installation and wrong credentials (exit 2), and with its JUnit and JSON reports,
 * none of which ever shows the password or a token.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { verify, verifyFlags } from '../contracts/support.ts'

const ROOT = new URL('../../', import.meta.url).pathname

/** Every row of the Orders application, masters and details, as read: what verify must leave as it found it. */
async function everyRow(mock: TestClient): Promise<string> {
  const client = mock.client(await mock.signIn())
  const masters = await client.rows({ orderBy: 'Id asc' })
  const details = client.profile.detailsInQueries ? await client.rows({ orderBy: 'Id asc', relationKey: IDS.relationKey }) : []
  return JSON.stringify({ masters, details })
}

/** Verify's required flags for the default fixture, read-only. */
function readOnlyFlags(url: string, password: string = IDS.admin.password): string[] {
  return ['--base-url', url, '--org', IDS.org, '--username', IDS.admin.username, '--password', password, '--workspace-id', IDS.workspaceId, '--application-id', IDS.applicationId, '--relation-key', IDS.relationKey]
}

describe('verify against the mock of each release', () => {
  for (const release of ['3.0.19', '3.0.18', '2.9']) {
    it(`holds for ${release}, detected, read-only and with writes, and leaves every row as it was`, async () => {
      const mock = await startTestMock({ productVersion: release })
      try {
        const before = await everyRow(mock)
        const readOnly = await verify(readOnlyFlags(mock.url))
        expect(readOnly.code, readOnly.out + readOnly.err).toBe(0)
        expect(readOnly.out).toMatch(/0 failed/)
        expect(readOnly.out).toContain(release === '2.9' ? 'below 3.0' : release === '3.0.18' ? '3.0.0 to 3.0.18' : '3.0.19 or later')
        const writes = await verify(verifyFlags(mock.url))
        expect(writes.code, writes.out + writes.err).toBe(0)
        expect(writes.out).toMatch(/cleanup: removed the \d+ row\(s\)/)
        expect(await everyRow(mock)).toBe(before)
      } finally {
        await mock.close()
      }
    })
  }
})

describe('verify holding a target only to the description', () => {
  it('skips the mock\'s own choices with --as-installation, as it does for a real installation', async () => {
    const mock = await startTestMock()
    try {
      const result = await verify([...verifyFlags(mock.url), '--as-installation'])
      expect(result.code, result.out).toBe(0)
      expect(result.out).toContain("held to the API's description")
      expect(result.out).toMatch(/skipped \d+: checks a choice of the mock's, not of the API's description/)
    } finally {
      await mock.close()
    }
  })
})

describe('verify refuses what it cannot do, with exit 2', () => {
  it('refuses an unknown flag, suggesting the right one, and a missing one', async () => {
    const typo = await verify([...readOnlyFlags('http://127.0.0.1:1'), '--alow-writes'])
    expect(typo.code).toBe(2)
    expect(typo.err).toMatch(/unknown option '--alow-writes'[\s\S]*Did you mean --allow-writes\?/)
    const missing = await verify(['--base-url', 'http://127.0.0.1:1'])
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('--org')
  })

  it('refuses an installation it cannot reach, saying which', async () => {
    // A port nothing listens on: taken from the system, then let go.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1))
      })
    })
    const result = await verify(readOnlyFlags(`http://127.0.0.1:${port}`))
    expect(result.code).toBe(2)
    expect(result.err).toMatch(new RegExp(`127\\.0\\.0\\.1:${port} cannot be reached`))
  })

  it('refuses wrong credentials without printing the password', async () => {
    const mock = await startTestMock()
    try {
      const result = await verify(readOnlyFlags(mock.url, 'wrong-secret-password'))
      expect(result.code).toBe(2)
      expect(result.err).toContain('cannot sign in')
      expect(result.out + result.err).not.toContain('wrong-secret-password')
    } finally {
      await mock.close()
    }
  })
})

describe('verify reports', () => {
  it('writes JUnit and JSON reports with every contract, and no password or token anywhere', async () => {
    const mock = await startTestMock({ deviate: ['relative-row-link'] })
    const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-verify-'))
    try {
      const result = await verify([...verifyFlags(mock.url), '--junit', join(dir, 'verify.xml'), '--json', join(dir, 'verify.json')])
      expect(result.code).toBe(1)
      const junit = readFileSync(join(dir, 'verify.xml'), 'utf8')
      expect(junit).toMatch(/<testsuites[^>]*failures="[1-9]/)
      expect(junit).toContain('row-link.absolute')
      const json = JSON.parse(readFileSync(join(dir, 'verify.json'), 'utf8')) as { summary: { failed: number }; results: Array<{ contract: { id: string }; outcome: string }> }
      expect(json.summary.failed).toBeGreaterThanOrEqual(1)
      expect(json.results.find((r) => r.contract.id === 'row-link.absolute')?.outcome).toBe('failed')
      // Session tokens are 43 characters of base64url; no id, version or time of the fixture looks like that.
      for (const text of [junit, JSON.stringify(json), result.out, result.err]) {
        expect(text).not.toContain(IDS.admin.password)
        expect(text).not.toMatch(/[A-Za-z0-9_-]{43}/)
      }
    } finally {
      await mock.close()
    }
  })
})

describe('verify as a process, through the package bin', () => {
  it('exits 0 against `npm start`\'s mock and 1 against one started with --deviate', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [join(ROOT, 'bin/appdata-kit.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
        let stdout = ''
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
        const timer = setTimeout(() => {
          if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL')
          reject(new Error('verify took more than 60 s'))
        }, 60_000)
        child.on('exit', (code) => {
          clearTimeout(timer)
          resolve({ code, stdout })
        })
      })
    const mock = await startTestMock()
    const broken = await startTestMock({ deviate: ['relative-row-link'] })
    try {
      const ok = await run(['verify', ...readOnlyFlags(mock.url)])
      expect(ok.code, ok.stdout).toBe(0)
      const failed = await run(['verify', ...readOnlyFlags(broken.url)])
      expect(failed.code).toBe(1)
      expect(failed.stdout).toContain('FAIL row-link.absolute')
    } finally {
      await mock.close()
      await broken.close()
    }
  }, 120_000)
})
