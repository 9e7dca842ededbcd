import { groupByCause } from '../usage/causes.ts'
import { MEMBER_KINDS, type Change } from './compare.ts'
import type { ReleaseDocument } from './documents.ts'
import { pathParameterText } from './documents.ts'
import { acceptingEntry, type IgnoreEntry } from '../kit/ignore-match.ts'
import { FINDING_KINDS, operationsOf, type Finding, type FindingKind, type FindingSide, type IgnoredFinding } from './types.ts'

/**
 * Changes grouped into findings, one per change of the release however many recorded shapes meet
 * it (src/commands/usage/causes.ts, as `verify --usage` groups its failures): the 29 query shapes that meet
 * "GET is gone" are one finding with `shapes: 29` and one of them as its example. A change of an
 * answer member met in the answers of several operations (the success flag of save and delete) is
 * one finding naming them all.
 */

/** "3 recorded shapes use it", "1 recorded shape uses it". */
const shapesThat = (count: number, verb: string, verbs: string) => `${count} recorded shape${count === 1 ? '' : 's'} ${count === 1 ? verbs : verb}`

/** A media type as a person says it. */
const mediaName = (type: string) => (type === 'application/x-www-form-urlencoded' ? 'form' : type === 'application/json' ? 'JSON' : type)

/** The segments the target's path adds to the client's, with what the document says they stand for. */
function pathDelta(now: string, then: string, to: ReleaseDocument, operationId: string): string {
  const [before, after] = [now.split('/'), then.split('/')]
  const added = after.filter((segment) => !before.includes(segment))
  const removed = before.filter((segment) => !after.includes(segment))
  const shared = after.length - added.length
  // Mostly the same path: name the segments that came or went; else the two paths say it.
  if (shared < Math.max(2, after.length / 2)) return ''
  const said = added.map((segment) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1]
    const text = name === undefined ? undefined : pathParameterText(to, operationId, name)
    return `${segment}${text === undefined ? '' : ` (${text.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase())})`}`
  })
  return [said.length > 0 ? `the path gains ${said.join(' and ')}` : '', removed.length > 0 ? `loses ${removed.join(', ')}` : '']
    .filter((part) => part !== '')
    .join(' and ')
}

/** A value as JSON (`"password"`, `1`, `null`), rather than a type (`string|null`). */
const isValue = (text: string) => /^(?:["\d[{-]|(?:true|false|null)(?: |$))/.test(text)

/** "a, b and c". */
const listed = (items: readonly string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`)

/** ` Send client_id "appdataapiv1" and RelationKey (string|null).`: what the client must now send, with the document's values. */
function sendText(send: FindingSide['send']): string {
  if (send === undefined) return ''
  return ` Send ${listed(Object.entries(send).map(([member, value]) => (isValue(value) ? `${member} ${value}` : `${member} (${value})`)))}.`
}

/** ` The token is the answer's access_token (not SessionToken): send it in the SessionToken header (queryItems) and as Authorization: Bearer <token> (sendEmail).` */
function tokenText(now: FindingSide['token'], then: FindingSide['token']): string {
  if (then === undefined) return ''
  const member =
    then.member === undefined
      ? undefined
      : `the answer's ${then.member}${now?.member !== undefined && now.member !== then.member ? ` (not ${now.member})` : ''}`
  const places = then.headers.map(
    ({ header, operationIds }) => `${header.includes(':') ? `as ${header} <token>` : `in the ${header} header`} (${operationIds.join(', ')})`,
  )
  if (places.length === 0) return member === undefined ? '' : ` The token is ${member}.`
  return member === undefined ? ` Send the token ${listed(places)}.` : ` The token is ${member}: send it ${listed(places)}.`
}

/** The finding's message, in the client's terms, from its changes. */
function messageOf(kind: FindingKind, changes: readonly Change[], shapes: number, from: ReleaseDocument, to: ReleaseDocument): string {
  const first = changes[0] as Change
  const operations = [...new Set(changes.map((c) => c.operationId))]
  const { now, then } = first
  const request = (side: typeof now) => `${side.method ?? ''} ${side.path ?? ''}`.trim()
  // "with a form body { ... } (instead of JSON)": the body to send, and the media type when it changes.
  const media =
    then.contentType === undefined
      ? ''
      : ` with a ${mediaName(then.contentType)} body${then.body === undefined ? '' : ` ${then.body}`}${now.contentType !== undefined && now.contentType !== then.contentType ? ` (instead of ${mediaName(now.contentType)})` : ''}`
  const answer = `${sendText(then.send)}${then.answer === undefined ? '' : ` It answers ${then.answer}.`}${tokenText(now.token, then.token)}`
  switch (kind) {
    case 'path-moved': {
      const delta = pathDelta(now.path ?? '', then.path ?? '', to, first.key.split('>')[1] ?? '')
      return `${first.title.replace(/ \(.*\)$/, '')} (${first.operationId}) moved: ${to.release} does not serve ${request(now)} (${first.why}); it takes ${request(then)}${delta === '' ? '' : `: ${delta}`}${media === '' ? '' : `,${media}`}.${answer} ${shapesThat(shapes, 'use', 'uses')} it.`
    }
    case 'variant-gone':
      return then.method === undefined
        ? `${to.release} no longer has ${first.operationId} (${request(now)}: ${first.why}), and its document names nothing in its place. ${shapesThat(shapes, 'use', 'uses')} it.`
        : `${request(now)} (${first.operationId}) is gone in ${to.release} (${first.why}); send ${request(then)}${media}.${answer} ${shapesThat(shapes, 'use', 'uses')} it.`
    case 'request-refused':
      return then.header !== undefined
        ? `${to.release} refuses ${first.operationId} without the header ${then.header} (${first.why}); send it on every call. ${shapesThat(shapes, 'leave', 'leaves')} it out.`
        : `${to.release} refuses ${first.operationId} as the client sends it (${first.why})${then.body === undefined ? '' : `; it takes ${then.body}`}.${sendText(then.send)} ${shapesThat(shapes, 'meet', 'meets')} it.`
    case 'request-tolerated':
      return `${to.release} takes the client's ${first.operationId} only with a warning (${first.why}); a stricter installation may refuse it${then.body === undefined ? '' : `: send ${then.body}`}.${sendText(then.send)} ${shapesThat(shapes, 'meet', 'meets')} it.`
    case 'answer-renamed':
      return `${now.member} is named ${then.member} in ${to.release}'s answers of ${operations.join(' and ')}: the client reads ${now.member} (${now.type}). ${shapesThat(shapes, 'receive', 'receives')} it.`
    case 'answer-removed':
      return `${to.release}'s answers of ${operations.join(' and ')} no longer carry ${now.member}, which the client receives (${now.type}). ${shapesThat(shapes, 'receive', 'receives')} it.`
    case 'answer-retyped':
      return `${now.member} is ${then.type} in ${to.release}'s answers of ${operations.join(' and ')}; the client receives ${now.type}. ${shapesThat(shapes, 'receive', 'receives')} it.`
    case 'status-changed':
      return first.breaks
        ? `${to.release} answers ${first.operationId} otherwise (${first.why}). ${shapesThat(shapes, 'meet', 'meets')} it.`
        : `${first.why}; the client handles that status. ${shapesThat(shapes, 'meet', 'meets')} it.`
    case 'unreplayable':
      if (first.onTarget === true)
        return `${shapes} recorded shape${shapes === 1 ? '' : 's'} of ${first.operationId} could not be replayed on ${to.release} (${first.why}); nothing is said of ${shapes === 1 ? 'it' : 'them'}.`
      return `${from.release} itself does not serve ${shapes} recorded shape${shapes === 1 ? '' : 's'} of ${first.operationId} as the client saw ${shapes === 1 ? 'it' : 'them'} (${first.why}): was the usage recorded with another fixture, or on another release? Give that one with --fixture (or --from). Nothing is said of ${shapes === 1 ? 'it' : 'them'}.`
  }
}

/** One finding per change: the changes grouped by kind and cause, breaking ones first. */
export function findingsOf(changes: readonly Change[], from: ReleaseDocument, to: ReleaseDocument): Finding[] {
  const groups = groupByCause(changes, (change) => `${change.kind}|${MEMBER_KINDS.has(change.kind) ? '' : change.operationId}|${change.key}`)
  const findings = groups.map(({ items }): Finding => {
    const first = items[0] as Change
    const shapes = new Set(items.map((change) => change.index)).size
    const operations = [...new Set(items.map((change) => change.operationId))]
    return {
      kind: first.kind,
      // One operation as a text, several as a list (JSON readers need not split a joined text).
      operationId: operations.length === 1 ? (operations[0] as string) : operations,
      breaks: items.some((change) => change.breaks),
      shapes,
      message: messageOf(first.kind, items, shapes, from, to),
      now: { ...first.now, example: `${first.title}: ${first.now.example ?? ''}`.replace(/: $/, '') },
      then: first.then,
    }
  })
  const order = (finding: Finding) => [finding.breaks ? 0 : 1, FINDING_KINDS.indexOf(finding.kind), -finding.shapes]
  return findings.sort((a, b) => {
    const [x, y] = [order(a), order(b)]
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number)
    return 0
  })
}

/** The findings split into those still reported and those the ignore file's entries accept (with the first accepting entry's reason). */
export function applyIgnore(findings: readonly Finding[], entries: readonly IgnoreEntry[]): { findings: Finding[]; ignored: IgnoredFinding[] } {
  const kept: Finding[] = []
  const ignored: IgnoredFinding[] = []
  for (const finding of findings) {
    const entry = acceptingEntry(entries, { kind: finding.kind, operationIds: operationsOf(finding) })
    if (entry === undefined) kept.push(finding)
    else ignored.push({ ...finding, ...(entry.reason === undefined ? {} : { reason: entry.reason }) })
  }
  return { findings: kept, ignored }
}
