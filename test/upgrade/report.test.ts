/**
 * upgrade's report in each format (src/commands/upgrade/report.ts), from findings written here: the
 * text a terminal shows, line by line; the Markdown of a pull-request comment (cells that hold pipes
 * and `<string>`, code spans that hold a backquote); the JUnit a CI job shows (a failure per breaking
 * finding, an error per unreplayable one, skipped for ignored ones); the verdict in each case.
 * test/upgrade/upgrade.test.ts writes the same formats from a recorded client through the command.
 */
import { describe, expect, it } from 'vitest'
import { adviceLines, sideText, upgradeJunit, upgradeMarkdown, upgradeText, verdict, type UpgradeRun } from '../../src/commands/upgrade/report.ts'
import type { Finding, UpgradeReport } from '../../src/commands/upgrade/types.ts'

const GONE: Finding = {
  kind: 'variant-gone',
  operationId: 'queryItemsLegacy',
  breaks: true,
  shapes: 2,
  message: 'GET is gone | send POST <string>',
  now: { method: 'GET', path: '/ExplorerApi/api/items', example: 'Get Items: $top=<integer>' },
  then: {
    method: 'POST',
    path: '/ExplorerApi/api/items',
    contentType: 'application/json',
    body: '{ query: string }',
    send: { query: 'string', relationKey: 'string|null' },
    token: { member: 'access_token', headers: [{ header: 'SessionToken', operationIds: ['queryItems', 'saveItems'] }] },
    example: '{"query":"`x`"}',
  },
}
const WARNING: Finding = {
  kind: 'request-tolerated',
  operationId: ['deleteItems', 'saveItems'],
  breaks: false,
  shapes: 1,
  message: 'taken with a warning',
  now: { header: 'WorkspaceId', status: 200 },
  then: { member: 'IsSaveSuccessfully', type: 'absent', token: { headers: [{ header: 'Authorization: Bearer', operationIds: ['sendEmail'] }] } },
}
const UNKNOWN: Finding = {
  kind: 'unreplayable',
  operationId: 'saveItems',
  breaks: true,
  shapes: 1,
  message: 'cannot be replayed',
  now: {},
  then: { member: 'X' },
}

const report = (findings: Finding[], ignored?: UpgradeReport['ignored']): UpgradeReport => ({
  from: '2.9',
  to: '3.0.19',
  findings,
  ...(ignored === undefined ? {} : { ignored }),
})
const run = (r: UpgradeReport): UpgradeRun => ({
  report: r,
  usage: 'usage.json',
  fixture: 'the default fixture',
  interactions: 7,
  replayed: 5,
  refusalsOnly: 2,
})

describe('sideText and adviceLines', () => {
  it('says a side in one line: a member with its type (or its absence), else the request’s parts, else -', () => {
    expect(sideText({ member: 'IsSaveSuccesfully', type: 'boolean' })).toBe('IsSaveSuccesfully (boolean)')
    expect(sideText({ member: 'X' })).toBe('X (?)')
    expect(sideText({ member: 'X', type: 'absent' })).toBe('no X')
    expect(sideText(GONE.then)).toBe('POST /ExplorerApi/api/items (application/json) { query: string }')
    expect(sideText({ method: 'GET' })).toBe('GET ')
    expect(sideText({ header: 'WorkspaceId', status: 400 })).toBe('with the header WorkspaceId status 400')
    expect(sideText({})).toBe('-')
  })

  it('tells what to send and where the token goes', () => {
    expect(adviceLines(GONE.then)).toEqual([
      'send: query: string, relationKey: string|null',
      "token: the answer's access_token, in SessionToken (queryItems, saveItems)",
    ])
    expect(
      adviceLines({
        token: {
          headers: [
            { header: 'A', operationIds: ['x'] },
            { header: 'B', operationIds: ['y', 'z'] },
          ],
        },
      }),
    ).toEqual(['token: in A (x) and B (y, z)'])
    expect(adviceLines({})).toEqual([])
  })
})

describe('verdict', () => {
  it('says the client breaks when a finding breaks it, whatever else there is', () => {
    expect(verdict(report([WARNING, GONE, UNKNOWN]))).toBe('the client breaks on 3.0.19: 1 finding(s) break it')
  })
  it('says nothing is known when the usage cannot be replayed and nothing breaks', () => {
    expect(verdict(report([WARNING, UNKNOWN]))).toBe(
      'not known: 1 finding(s) say the usage cannot be replayed on 2.9 (give the fixture it was recorded with: --fixture)',
    )
  })
  it('says nothing breaks, with the findings to look at, or that nothing changes', () => {
    expect(verdict(report([WARNING]))).toBe('nothing breaks the client on 3.0.19; 1 finding(s) to look at')
    expect(verdict(report([]))).toBe('nothing the client uses changes on 3.0.19')
  })
})

describe('upgradeText', () => {
  it('writes the head, each finding with its sides, advice and examples, the ignored ones with their reasons, and the verdict', () => {
    const ignored = [
      { ...WARNING, reason: 'we send the header' },
      { ...UNKNOWN, shapes: 3 },
    ]
    expect(upgradeText(run(report([GONE, WARNING, UNKNOWN], ignored)))).toBe(
      [
        'appdata-kit upgrade: usage.json, recorded on 2.9, against 3.0.19 (the default fixture)',
        '7 recorded request shape(s): 5 replayed on both releases, 2 met only refusals (not replayed; their operations read from the documents)',
        '3 finding(s), 1 break the client',
        '',
        'BREAKS  variant-gone queryItemsLegacy (2 shapes)',
        '  GET is gone | send POST <string>',
        '  now:  GET /ExplorerApi/api/items',
        '  then: POST /ExplorerApi/api/items (application/json) { query: string }',
        '  send: query: string, relationKey: string|null',
        "  token: the answer's access_token, in SessionToken (queryItems, saveItems)",
        '  e.g.  Get Items: $top=<integer>',
        '        becomes {"query":"`x`"}',
        '',
        'WARN    request-tolerated deleteItems, saveItems (1 shape)',
        '  taken with a warning',
        '  now:  with the header WorkspaceId status 200',
        '  then: no IsSaveSuccessfully',
        '  token: in Authorization: Bearer (sendEmail)',
        '',
        'UNKNOWN unreplayable saveItems (1 shape)',
        '  cannot be replayed',
        '  now:  -',
        '  then: X (?)',
        '',
        'ignored (--ignore): 2',
        '  request-tolerated deleteItems, saveItems (1 shape): we send the header',
        '  unreplayable saveItems (3 shapes)',
        '',
        'the client breaks on 3.0.19: 1 finding(s) break it',
        '',
      ].join('\n'),
    )
  })

  it('leaves the ignored part out when nothing was ignored', () => {
    expect(upgradeText(run(report([], [])))).not.toContain('ignored')
    expect(upgradeText(run(report([])))).toMatch(/0 finding\(s\), 0 break the client\n\nnothing the client uses changes on 3\.0\.19\n$/)
  })
})

describe('upgradeMarkdown', () => {
  it('writes a table whose cells hold pipes and tags as text, details with code spans that hold a backquote, and the ignored ones', () => {
    const text = upgradeMarkdown(run(report([GONE, WARNING], [{ ...UNKNOWN, reason: 'known' }, WARNING])))
    expect(text).toBe(
      [
        '### appdata-kit upgrade: 2.9 → 3.0.19',
        '',
        '**the client breaks on 3.0.19: 1 finding(s) break it**',
        '',
        'usage.json: 7 recorded request shape(s), 5 replayed on both releases, 2 met only refusals; the default fixture.',
        '',
        '| | kind | operation | shapes | what changes |',
        '|---|---|---|---|---|',
        '| breaks | variant-gone | queryItemsLegacy | 2 | GET is gone \\| send POST &lt;string&gt; |',
        '| warn | request-tolerated | deleteItems, saveItems | 1 | taken with a warning |',
        '',
        '<details><summary>variant-gone queryItemsLegacy</summary>',
        '',
        '- now: `GET /ExplorerApi/api/items`',
        '- then: `POST /ExplorerApi/api/items (application/json) { query: string }`',
        '- `send: query: string, relationKey: string|null`',
        "- `token: the answer's access_token, in SessionToken (queryItems, saveItems)`",
        '- e.g. `Get Items: $top=<integer>`',
        '- becomes `` {"query":"`x`"} ``',
        '',
        '</details>',
        '',
        '<details><summary>request-tolerated deleteItems, saveItems</summary>',
        '',
        '- now: `with the header WorkspaceId status 200`',
        '- then: `no IsSaveSuccessfully`',
        '- `token: in Authorization: Bearer (sendEmail)`',
        '',
        '</details>',
        '',
        'Ignored (`--ignore`): unreplayable saveItems (known); request-tolerated deleteItems, saveItems',
        '',
      ].join('\n'),
    )
  })

  it('writes no table when there is no finding, and no ignored line when none was ignored', () => {
    const text = upgradeMarkdown(run(report([], [])))
    expect(text).not.toContain('| |')
    expect(text).not.toContain('Ignored')
    expect(text.endsWith('the default fixture.\n')).toBe(true)
  })
})

describe('upgradeJunit', () => {
  const cases = (xml: string) =>
    [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => [m[1], m[2], m[4] ?? ''])

  it('fails a breaking finding, errs on an unreplayable one, writes a warning as output and skips an ignored one with its reason', () => {
    const xml = upgradeJunit(report([GONE, WARNING, UNKNOWN], [{ ...WARNING, reason: 'fine' }, UNKNOWN]))
    expect(xml).toContain('<testsuite name="appdata-kit upgrade 2.9 -> 3.0.19"')
    const found = cases(xml)
    expect(found.map(([className, name]) => [className, name])).toEqual([
      ['upgrade.variant-gone', 'queryItemsLegacy: variant-gone (2 shape(s))'],
      ['upgrade.request-tolerated', 'deleteItems, saveItems: request-tolerated (1 shape(s))'],
      ['upgrade.unreplayable', 'saveItems: unreplayable (1 shape(s))'],
      ['upgrade.request-tolerated', 'deleteItems, saveItems: request-tolerated (ignored)'],
      ['upgrade.unreplayable', 'saveItems: unreplayable (ignored)'],
    ])
    const body = found.map(([, , inner]) => inner as string)
    expect(body[0]).toMatch(/<failure message="GET is gone \| send POST &lt;string>" type="variant-gone"/)
    expect(body[1]).toMatch(/<system-out>\s*<!\[CDATA\[taken with a warning\]\]>\s*<\/system-out>/)
    expect(body[1]).not.toMatch(/failure|error|skipped/)
    expect(body[2]).toMatch(/<error message="cannot be replayed" type="unreplayable"/)
    expect(body[3]).toMatch(/<skipped\/>[\s\S]*accepted by --ignore: fine; taken with a warning/)
    expect(body[4]).toMatch(/<skipped\/>[\s\S]*accepted by --ignore; cannot be replayed/)
  })

  it('writes one passing case when nothing changes, and none beside findings', () => {
    expect(cases(upgradeJunit(report([])))).toEqual([['upgrade', 'nothing the client uses changes on 3.0.19', '']])
    expect(cases(upgradeJunit(report([], [])))).toHaveLength(1)
    expect(cases(upgradeJunit(report([], [WARNING])))).toHaveLength(1)
    expect(cases(upgradeJunit(report([WARNING])))).toHaveLength(1)
  })
})
