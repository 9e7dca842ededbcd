/**
 * `appdata-kit upgrade` through the built command line, over usage recorded in this file by
 * clients that use every operation and variant of their release: from 2.9 to 3.0.19 (a client
 * written for 2.9 with nothing but fetch) it names the sign-in move, Get Items by GET -> POST with
 * `query`, the success flag's new spelling and the delete body, each once, with no replay
 * artefact; from 3.0.18 (verify --allow-writes against a recording mock) the organization segment
 * of the sign-in path; from 3.0.19 to itself nothing. Each comes from a difference of the release
 * profiles (spec/profiles.ts): the 2.9 client sends what it sends whatever they say, so a test
 * fails on its own finding when its difference is taken out of them.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { apiDocument } from '../../src/document/reader.ts'
import { coverageOf } from '../../src/commands/usage/coverage.ts'
import { runUpgrade } from '../../src/commands/cli/upgrade.ts'
import { IDS } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import type { UsageFile } from '../../src/usage-file/file.ts'
import { record29Client, recordFullUsage, upgrade, upgradeJson, type JsonReport } from './support.ts'

const dir = sharedTempDir('appdata-kit-upgrade-')
const usage29 = join(dir, 'usage-2.9.json')
const usage318 = join(dir, 'usage-3.0.18.json')
const usage319 = join(dir, 'usage-3.0.19.json')
afterEach(stopStarted)

const of = (report: JsonReport, kind: string, operation?: string) =>
  report.findings.filter((f) => f.kind === kind && (operation === undefined || [f.operationId].flat().includes(operation)))

describe('appdata-kit upgrade, from 2.9 to 3.0.19', () => {
  let run: { code: number | null; report: JsonReport; stderr: string }
  let recorded: UsageFile
  beforeAll(async () => {
    recorded = await record29Client(usage29)
    run = await upgradeJson(['--usage', usage29, '--to', '3.0.19'])
  }, 120_000)

  it('is over the usage of a client that uses every operation and every variant of 2.9', () => {
    const coverage = coverageOf(recorded)
    expect(coverage.byKind.operation).toEqual({ covered: coverage.byKind.operation.total, total: 10 })
    expect(coverage.byKind.variant.covered).toBe(coverage.byKind.variant.total)
  })

  it("names the sign-in move once, with the path, method and form body to use from 3.0.19's document", () => {
    const moves = of(run.report, 'path-moved')
    expect(moves).toHaveLength(1)
    const [move] = moves
    expect(move).toMatchObject({ operationId: 'signInLegacy', breaks: true })
    expect(move?.now).toMatchObject({
      method: 'POST',
      path: '/IntelligenceUserManagementService/UserManagementService.svc/Token',
      contentType: 'application/json',
    })
    expect(move?.then).toMatchObject({
      method: 'POST',
      path: '/identityprovider/{organizationphysicalname}/connect/token',
      contentType: 'application/x-www-form-urlencoded',
    })
    expect(move?.then.body).toContain('grant_type: "password"')
    // What the client reads of the old answer that the new one lacks.
    expect(move?.then.answer).toContain('SessionToken')
  })

  it('says what to send to sign in on 3.0.19, from its document: the client id, the grant, the scope values, and the SessionToken header the token now comes for', async () => {
    const [move] = of(run.report, 'path-moved', 'signInLegacy')
    // The values the target's document gives the password grant (the description, Sign in: client_id, grant_type, scope).
    const grant = (apiDocument().components?.schemas?.PasswordGrant as { properties: Record<string, { examples?: unknown[]; const?: unknown }> }).properties
    expect(grant.scope?.examples?.[0]).toBe('openid apiv1 nosession')
    const send = move?.then.send as Record<string, string> | undefined
    expect(send).toEqual({
      client_id: JSON.stringify(grant.client_id?.examples?.[0]),
      grant_type: JSON.stringify(grant.grant_type?.const),
      scope: '"openid apiv1 nosession"',
    })
    // The user's own name and password keep the client's values: no example of the document's in their place.
    expect(Object.keys(send ?? {})).not.toContain('username')
    expect(Object.keys(send ?? {})).not.toContain('password')
    // The token is the answer's access_token now (the legacy answer's SessionToken before), and goes in the SessionToken header of the data operations, as a bearer token for the e-mail.
    expect(move?.now.token).toMatchObject({ member: 'SessionToken' })
    const token = move?.then.token as { member: string; headers: Array<{ header: string; operationIds: string[] }> }
    expect(token.member).toBe('access_token')
    expect(token.headers.map((h) => h.header)).toEqual(['SessionToken', 'Authorization: Bearer'])
    expect(token.headers[0]?.operationIds).toEqual(expect.arrayContaining(['queryItems', 'saveItems', 'deleteItems']))
    expect(token.headers[0]?.operationIds).not.toContain('queryItemsLegacy')
    expect(token.headers[1]?.operationIds).toEqual(['sendEmail'])
    expect(move?.message).toContain('Send client_id "appdataapiv1", grant_type "password" and scope "openid apiv1 nosession".')
    expect(move?.message).toContain("The token is the answer's access_token (not SessionToken): send it in the SessionToken header (")
    const text = await upgrade(['--usage', usage29, '--to', '3.0.19'])
    expect(text.stdout).toContain('  send: client_id: "appdataapiv1", grant_type: "password", scope: "openid apiv1 nosession"\n')
    expect(text.stdout).toMatch(/ {2}token: the answer's access_token, in SessionToken \([^)]*queryItems[^)]*\) and Authorization: Bearer \(sendEmail\)\n/)
  })

  it('names Get Items by GET once for all the query shapes that use it, with POST and its query body', () => {
    const gone = of(run.report, 'variant-gone')
    expect(gone).toHaveLength(1)
    const [variant] = gone
    expect(variant).toMatchObject({ operationId: 'queryItemsLegacy', breaks: true })
    expect(variant?.shapes).toBeGreaterThanOrEqual(20)
    expect(variant?.now).toMatchObject({ method: 'GET', path: '/ExplorerApi/api/items' })
    expect(variant?.then).toMatchObject({ method: 'POST', path: '/ExplorerApi/api/items', contentType: 'application/json', body: '{ query: string }' })
    expect(variant?.then.example).toMatch(/^POST \/ExplorerApi\/api\/items \{ query: "\$/)
    expect(variant?.message).toContain('405')
    // The query the client sends moves into the body's query (its example says it): nothing else to send.
    expect(variant?.then.send).toBeUndefined()
  })

  it("names the success flag's renaming once, for the answers of save and delete", () => {
    const renamed = of(run.report, 'answer-renamed')
    expect(renamed).toHaveLength(1)
    expect(renamed[0]).toMatchObject({
      breaks: true,
      now: { member: 'IsSaveSuccesfully', type: 'boolean' },
      then: { member: 'IsSaveSuccessfully', type: 'boolean' },
    })
    // Several operations: a list in the JSON, joined in the text.
    expect(Array.isArray(renamed[0]?.operationId)).toBe(true)
    expect([...(renamed[0]?.operationId ?? [])].sort()).toEqual(['deleteItems', 'saveItems'])
    expect(of(run.report, 'variant-gone', 'queryItemsLegacy')[0]?.operationId).toBe('queryItemsLegacy')
  })

  it('names the older delete body once, as taken with a warning (not breaking), with the current body to send', () => {
    const tolerated = of(run.report, 'request-tolerated', 'deleteItems')
    expect(tolerated).toHaveLength(1)
    expect(tolerated[0]).toMatchObject({ breaks: false, then: { warning: 'LEGACY_DELETE_BODY' } })
    expect(tolerated[0]?.then.body).toContain('RelationKey')
    expect(tolerated[0]?.now.body).toContain('Details: []')
  })

  it('has no more than a dozen findings, none a replay artefact, and exits 1', () => {
    expect(run.code, run.stderr).toBe(1)
    expect(run.report).toMatchObject({ from: '2.9.0', to: '3.0.19' })
    expect(run.report.findings.length).toBeLessThanOrEqual(12)
    expect(of(run.report, 'unreplayable')).toEqual([])
    expect(JSON.stringify(run.report)).not.toMatch(/DUPLICATE_KEY|CONCURRENCY/)
    // Each kind and operation once: one finding per change.
    const keys = run.report.findings.map((f) => `${f.kind} ${f.operationId}`)
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('writes text, Markdown and JUnit reports saying the same, with no password, token or e-mail address in any', async () => {
    const junit = join(dir, 'upgrade.xml')
    const text = await upgrade(['--usage', usage29, '--to', '3.0.19', '--junit', junit])
    const markdown = await upgrade(['--usage', usage29, '--to', '3.0.19', '--format', 'markdown'])
    expect(text.code).toBe(1)
    expect(text.stdout).toContain('BREAKS  variant-gone queryItemsLegacy')
    expect(text.stdout).toContain('the client breaks on 3.0.19')
    expect(markdown.stdout).toMatch(/^### appdata-kit upgrade: 2\.9\.0 → 3\.0\.19/)
    expect(markdown.stdout).toContain('| breaks | path-moved | signInLegacy |')
    const xml = readFileSync(junit, 'utf8')
    expect(xml).toContain('queryItemsLegacy: variant-gone')
    expect((xml.match(/<failure/g) ?? []).length).toBe(run.report.findings.filter((f) => f.breaks).length)
    for (const output of [text.stdout, markdown.stdout, xml, JSON.stringify(run.report)]) {
      expect(output).not.toContain(IDS.admin.password)
      expect(output).not.toContain(IDS.viewer.password)
      expect(output).not.toContain(IDS.admin.username)
    }
  })

  describe('--ignore', () => {
    it('reports accepted findings as ignored (YAML), leaves them out of the exit code, and refuses a file it cannot read (exit 2)', async () => {
      const some = join(dir, 'ignore.yaml')
      writeFileSync(
        some,
        '# accepted\n- kind: "*"\n  operationId: deleteItems\n  reason: the older body stays until our next release\n- kind: answer-renamed\n  operationId: saveItems\n',
      )
      const partly = await upgradeJson(['--usage', usage29, '--to', '3.0.19', '--ignore', some])
      expect(partly.code).toBe(1)
      // `kind: "*"` on deleteItems takes every finding of it, the renaming it shares with saveItems first.
      expect(partly.report.ignored?.map((f) => `${f.kind} ${[f.operationId].flat().sort().join(', ')}`).sort()).toEqual([
        'answer-renamed deleteItems, saveItems',
        'request-tolerated deleteItems',
      ])
      expect(partly.report.ignored?.map((f) => f.reason)).toEqual([
        'the older body stays until our next release',
        'the older body stays until our next release',
      ])
      expect(of(partly.report, 'request-tolerated')).toEqual([])
      // The reason in the text, the Markdown and the JUnit reports too.
      const junit = join(dir, 'ignored.xml')
      const text = await upgrade(['--usage', usage29, '--to', '3.0.19', '--ignore', some, '--junit', junit])
      expect(text.stdout).toContain('request-tolerated deleteItems (1 shape): the older body stays until our next release')
      expect((await upgrade(['--usage', usage29, '--to', '3.0.19', '--ignore', some, '--format', 'markdown'])).stdout).toContain(
        'request-tolerated deleteItems (the older body stays until our next release)',
      )
      expect(readFileSync(junit, 'utf8')).toContain('accepted by --ignore: the older body stays until our next release')
      const all = join(dir, 'ignore-all.json')
      writeFileSync(
        all,
        JSON.stringify({
          ignore: [
            { kind: 'path-moved', operationId: '*' },
            { kind: 'variant-gone', operationId: 'queryItemsLegacy' },
            { kind: 'answer-renamed', operationId: 'deleteItems' },
          ],
        }),
      )
      const accepted = await upgrade(['--usage', usage29, '--to', '3.0.19', '--ignore', all])
      expect(accepted.code, accepted.stdout).toBe(0)
      expect(accepted.stdout).toContain('ignored (--ignore): 3')
      const bad = join(dir, 'ignore-bad.yaml')
      writeFileSync(bad, '- kind: path-moved\n  operationId: signIn\n- kind: moved\n  operationId: signIn\n')
      const refused = await upgrade(['--usage', usage29, '--to', '3.0.19', '--ignore', bad])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain(`error: ${bad}: entry 2, member kind: must be one of path-moved`)
      // A member of the proxy's entries is no member of upgrade's: refused, not ignored.
      writeFileSync(bad, '- kind: path-moved\n  pointer: /body\n')
      const foreign = await upgrade(['--usage', usage29, '--to', '3.0.19', '--ignore', bad])
      expect(foreign.code).toBe(2)
      expect(foreign.stderr).toContain('entry 1, member pointer: not a member of an entry of upgrade --ignore')
    })
  })

  it.each(['9.9.9', '3.9007199254740992'])(
    'refuses a usage file whose interaction names the release %s (exit 2), naming the file, the interaction from 1 and the releases known',
    async (release) => {
      const file = join(dir, `usage-release-${release}.json`)
      const changed = JSON.parse(readFileSync(usage29, 'utf8')) as UsageFile
      const index = changed.interactions.length - 1
      ;(changed.interactions[index] as { release: string }).release = release
      writeFileSync(file, JSON.stringify(changed))
      const refused = await upgrade(['--usage', file, '--to', '3.0.19'])
      expect(refused.code, refused.stderr).toBe(2)
      expect(refused.stderr).toBe(
        `error: --usage ${file}: interaction ${index + 1} (/interactions/${index}/release) names the release "${release}", which appdata-kit does not know: it knows the releases 2.0 to 3.x, such as 2.9, 3.0.18 or 3.0.19 (latest)\n`,
      )
      expect(refused.stderr).not.toContain('--product-version')
    },
  )

  describe('flags', () => {
    it('lists every flag in --help', async () => {
      const help = await upgrade(['--help'])
      expect(help.code).toBe(0)
      for (const flag of ['--usage', '--to', '--from', '--fixture', '--ignore', '--format', '--out', '--junit']) expect(help.stdout).toContain(flag)
    })

    it.each([
      [['--to', '3.0.19'], "required option '--usage <file>'"],
      [['--usage', 'USAGE'], "required option '--to <release>'"],
      [['--usage', 'USAGE', '--to', '9.1'], '--to must be a release'],
      [['--usage', 'USAGE', '--to', '3.0.19', '--from', 'old'], '--from must be a release'],
      [['--usage', 'USAGE', '--to', '3.0.19', '--format', 'xml'], "argument 'xml' is invalid"],
      [['--usage', 'USAGE', '--to', '3.0.19', '--fixture', 'no-such-fixture.json'], 'no-such-fixture.json'],
      [['--usage', 'package.json', '--to', '3.0.19'], 'not a usage file'],
    ])('exits 2 for %j (in this process)', async (args, message) => {
      let err = ''
      const code = await runUpgrade(
        args.map((arg) => (arg === 'USAGE' ? usage29 : arg)),
        { stdout: () => undefined, stderr: (text) => (err += text) },
      )
      expect(code, err).toBe(2)
      expect(err).toContain(message)
    })
  })
})

describe('appdata-kit upgrade, from 3.0.18', () => {
  beforeAll(async () => {
    await recordFullUsage(usage318, '3.0.18')
  }, 120_000)

  it("from 3.0.18 to 3.0.19 names the sign-in path's new organization segment, and nothing else", async () => {
    const { code, report } = await upgradeJson(['--usage', usage318, '--to', '3.0.19'])
    expect(code).toBe(1)
    expect(report.findings).toHaveLength(1)
    const [move] = report.findings
    expect(move).toMatchObject({
      kind: 'path-moved',
      operationId: 'signInWithoutOrganization',
      breaks: true,
      now: { path: '/identityprovider/connect/token' },
      then: { path: '/identityprovider/{organizationphysicalname}/connect/token' },
    })
    expect(move?.message).toContain('the path gains {organizationphysicalname} (physical name of the organization')
    // The client already sends the password grant, and its token goes where it went: nothing more to send.
    expect(move?.then.send).toBeUndefined()
    expect(move?.then.token).toBeUndefined()
  })

  it("--from replays the usage as recorded on another release: the 3.0.18 usage read as 3.0.19's cannot be replayed, and says so", async () => {
    const { code, report } = await upgradeJson(['--usage', usage318, '--from', '3.0.19', '--to', '3.0.19'])
    expect(code).toBe(2)
    expect(report.findings.map((f) => f.kind)).toEqual(['unreplayable'])
    expect(report.findings[0]).toMatchObject({ operationId: 'signInWithoutOrganization', breaks: false })
    expect(report.findings[0]?.message).toContain('signInWithoutOrganization is no operation of 3.0.19')
    expect(report.findings[0]?.message).toContain('--from')
  })

  it('writes the report to --out and says where', async () => {
    const out = join(dir, 'upgrade.md')
    const run = await upgrade(['--usage', usage318, '--to', '3.0.19', '--format', 'markdown', '--out', out])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain(`wrote ${out}`)
    expect(readFileSync(out, 'utf8')).toContain('path-moved')
  })
})

describe('appdata-kit upgrade, from 3.0.19 to itself', () => {
  beforeAll(async () => {
    await recordFullUsage(usage319, '3.0.19')
  }, 120_000)

  it('finds nothing and exits 0', async () => {
    const { code, report } = await upgradeJson(['--usage', usage319, '--to', '3.0.19'])
    expect(report).toEqual({ from: '3.0.19', to: '3.0.19', findings: [] })
    expect(code).toBe(0)
    const text = await upgrade(['--usage', usage319, '--to', 'latest'])
    expect(text.stdout).toContain('nothing the client uses changes on 3.0.19')
  })
})
