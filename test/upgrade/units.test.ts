/**
 * The pure parts of `upgrade`: grouping by cause (shared with `verify --usage`), answer members
 * held to what the client received (renamed, removed, retyped; never a member it did not
 * receive), the replacement of an operation read from the release profiles, and the ignore file.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { resolveProfile } from '../../spec/profiles.ts'
import { causeKey, groupByCause } from '../../src/commands/usage/causes.ts'
import { memberDiffs, pathText, renamedTo } from '../../src/commands/upgrade/members.ts'
import { successorOf } from '../../src/commands/upgrade/documents.ts'
import { readIgnoreFile } from '../../src/commands/kit/ignore-file.ts'
import { applyIgnore } from '../../src/commands/upgrade/findings.ts'
import type { Finding } from '../../src/commands/upgrade/types.ts'
import { changesOf } from '../../src/commands/upgrade/compare.ts'
import { strictReleaseDocument } from '../../src/commands/upgrade/documents.ts'
import { ParsedBodies, type Replayed } from '../../src/commands/upgrade/replay.ts'
import type { Interaction } from '../../src/usage-file/file.ts'
import { tempDir } from '../helpers/temp-dir.ts'

describe('grouping by cause', () => {
  it('keeps one group per key, in the order of first appearance, items in their order', () => {
    const groups = groupByCause(['b1', 'a1', 'b2', 'c1', 'a2'], (item) => item[0] as string)
    expect(groups.map((g) => [g.key, g.items])).toEqual([
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ])
  })

  it('reads one cause met on different rows and values as one, and different causes as different', () => {
    expect(causeKey('the installation ignores the order (row 9 comes before row 16)')).toBe(
      causeKey('the installation ignores the order (row 1 comes before row 3)'),
    )
    expect(causeKey('Status is "Open", expected "Closed"')).toBe(causeKey('Status is "New", expected "Shipped"'))
    expect(causeKey('the installation refuses the request (405: GET is not served)')).not.toBe(
      causeKey('the installation refuses the request (404: no such endpoint)'),
    )
  })
})

describe('answer members held to what the client received', () => {
  const recorded = { type: 'object', fields: { IsSaveSuccesfully: 'boolean', CreatedItems: 'integer', RowIdentifier: 'string|null', Extra: 'absent|string' } }
  const from = { IsSaveSuccesfully: true, CreatedItems: 1, RowIdentifier: 'IdRow' }
  const to = { IsSaveSuccessfully: true, CreatedItems: 1, RowIdentifier: 'IdRow', NewMember: 5 }

  it('names a member the target lacks, and what took its place when a close name of its type came', () => {
    const diffs = memberDiffs(recorded, to)
    expect(diffs.map((d) => [pathText(d.path), d.change, d.received])).toEqual([['IsSaveSuccesfully', 'missing', 'boolean']])
    expect(renamedTo(diffs[0]!, from, to)).toBe('IsSaveSuccessfully')
  })

  it('calls it removed when no member of that type and a close name came', () => {
    const [diff] = memberDiffs(recorded, { CreatedItems: 1, RowIdentifier: null, Unrelated: true })
    expect(renamedTo(diff!, from, { CreatedItems: 1, Unrelated: true })).toBeUndefined()
    expect(renamedTo(diff!, from, { CreatedItems: 1, IsSaveSuccessfully: 'yes' })).toBeUndefined()
  })

  it('names a retyped member inside rows, and no member the client never received', () => {
    const rows = { type: 'array', items: { type: 'object', fields: { Id: 'integer', Customer: 'string' } } }
    expect(memberDiffs(rows, [{ Id: '1', Customer: 'x', Other: 1 }]).map((d) => [pathText(d.path), d.change, d.got])).toEqual([['[].Id', 'retyped', 'string']])
    expect(memberDiffs(rows, [{ Id: 1, Customer: null }])).toEqual([])
    expect(memberDiffs(recorded, { IsSaveSuccesfully: false, CreatedItems: 0, RowIdentifier: null, Brand: 'new' })).toEqual([])
  })
})

describe('answers worked out once', () => {
  it('parses each distinct body once for both sides: the same bytes are the same value, other bytes of the same length another', () => {
    const bodies = new ParsedBodies()
    const page = bodies.parse(Buffer.from('[{"Id":1},{"Id":2}]'))
    expect(bodies.parse(Buffer.from('[{"Id":1},{"Id":2}]'))).toBe(page)
    expect(page).toEqual([{ Id: 1 }, { Id: 2 }])
    const other = bodies.parse(Buffer.from('[{"Id":2},{"Id":1}]'))
    expect(other).toEqual([{ Id: 2 }, { Id: 1 }])
    expect(bodies.parse(Buffer.from('not json'))).toBe('not json')
    // Many bodies of one length: each still parsed as itself.
    const many = Array.from({ length: 20 }, (_, i) => `[${1000 + i}]`)
    for (const text of many) expect(bodies.parse(Buffer.from(text))).toEqual([Number(text.slice(1, -1))])
    for (const text of many) expect(bodies.parse(Buffer.from(text))).toEqual([Number(text.slice(1, -1))])
  })

  it('holds one answer to each recorded shape it meets: the same body, other shapes, other changes', () => {
    const read = (fields: Record<string, string>): Interaction => ({
      operation: 'queryItems',
      release: '3.0.19',
      count: 1,
      request: { auth: 'session-token', contentType: 'application/json', headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'], query: { top: 5 } },
      answers: { '200': { count: 1, body: { type: 'array', items: { type: 'object', fields } } } },
    })
    const interactions = [
      read({ Id: 'integer' }),
      read({ Id: 'integer', Customer: 'string' }),
      read({ Id: 'integer' }),
      read({ Id: 'integer', Customer: 'string' }),
    ]
    // One page object for every interaction, as the shared parsed bodies give it; the target's lacks Customer.
    const [withCustomer, without] = [[{ Id: 1, Customer: 'Initech' }], [{ Id: 1 }]]
    const replayed = (body: unknown): Replayed => ({
      outcome: { sent: 'POST /ExplorerApi/api/items', status: 200, contentType: 'application/json', body, warnings: [] },
    })
    const changes = changesOf({
      interactions,
      from: strictReleaseDocument('3.0.19'),
      to: strictReleaseDocument('3.0.19'),
      recorded: interactions.map(() => replayed(withCustomer)),
      target: interactions.map(() => replayed(without)),
    })
    expect(changes.map((change) => [change.index, change.kind, change.now.member])).toEqual([
      [1, 'answer-removed', '[].Customer'],
      [3, 'answer-removed', '[].Customer'],
    ])
  })
})

describe("what takes an operation's place, from the release profiles", () => {
  it.each([
    ['signInLegacy', '2.9', '3.0.19', 'signIn'],
    ['signInLegacy', '2.9', '3.0.18', 'signInWithoutOrganization'],
    ['signInWithoutOrganization', '3.0.18', '3.0.19', 'signIn'],
    ['queryItemsLegacy', '2.9', '3.0.19', 'queryItems'],
    ['queryItems', '3.0.19', '2.9', 'queryItemsLegacy'],
    ['signIn', '3.0.19', '3.0.19', undefined],
    ['saveItems', '2.9', '3.0.19', undefined],
  ])('%s from %s to %s: %s', (operation, from, to, expected) => {
    expect(successorOf(operation, resolveProfile(from), resolveProfile(to))).toBe(expected)
  })
})

describe('the ignore file', () => {
  const finding = (kind: Finding['kind'], operationId: string | string[]): Finding => ({
    kind,
    operationId,
    breaks: true,
    shapes: 1,
    message: '',
    now: {},
    then: {},
  })

  it('accepts by kind and operation ("*" for any, one of several), each accepted finding with its entry\'s reason', () => {
    const yaml = join(tempDir('appdata-kit-ignore-'), 'ignore.yaml')
    writeFileSync(
      yaml,
      '- kind: answer-renamed\n  operationId: saveItems\n  reason: read both spellings\n- kind: path-moved\n  operationId: "*"\n- kind: "*"\n  operationId: queryItemsLegacy\n  reason: the old query stays\n',
    )
    const { findings, ignored } = applyIgnore(
      [
        finding('answer-renamed', ['deleteItems', 'saveItems']),
        finding('path-moved', 'signInLegacy'),
        finding('variant-gone', 'queryItemsLegacy'),
        finding('answer-removed', 'saveItems'),
      ],
      readIgnoreFile(yaml, 'upgrade'),
    )
    expect(findings.map((f) => f.kind)).toEqual(['answer-removed'])
    expect(ignored.map((f) => [f.kind, f.reason])).toEqual([
      ['answer-renamed', 'read both spellings'],
      ['path-moved', undefined],
      ['variant-gone', 'the old query stays'],
    ])
  })
})
