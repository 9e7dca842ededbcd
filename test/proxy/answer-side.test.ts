/**
 * The installation's side of an exchange held to the document as verify holds an installation
 * (src/commands/proxy/answer-side.ts): the status, the media type, the declared headers and the
 * JSON body, each fault once however many rows share it. Answers of 3.0.19 written here as an
 * installation (or what stands in front of it) would send them.
 */
import { describe, expect, it } from 'vitest'
import { judgeAnswer } from '../../src/commands/proxy/answer-side.ts'
import { releaseView, routeOf } from '../../src/commands/proxy/views.ts'
import type { Observation } from '../../src/commands/proxy/findings.ts'
import { validRow } from './support.ts'

const view = releaseView('3.0.19')
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' }
const ITEMS = '/ExplorerApi/api/items'
const DOWNLOAD = '/ExplorerApi/api/attachments/download'
const EMAIL = '/webaggregator/api/v1/email/queue'

function judged(path: string, status: number, headers: Record<string, string | string[]>, body: string | 'too-large', bodiless = false): Observation[] {
  const routed = routeOf(view, 'POST', path)
  if (routed === undefined) throw new Error(`POST ${path} reaches no operation`)
  return judgeAnswer(routed.route, view.description, { status, headers, body: body === 'too-large' ? body : Buffer.from(body), bodiless })
}
/** An observation of the answer side as judgeAnswer makes it. */
const observed = (severity: Observation['severity'], pointer: string, message: unknown, example?: unknown) => ({
  side: 'answer',
  severity,
  pointer,
  message,
  ...(example === undefined ? {} : { example }),
})
const page = (...ids: unknown[]) => JSON.stringify(ids.map((id, i) => ({ ...validRow(i + 1), Id: id })))

describe('the status', () => {
  it('a gateway status is a warning, and nothing else of the answer is judged', () => {
    expect(judged(ITEMS, 502, { 'content-type': 'text/html' }, '<html>')).toEqual([
      observed(
        'warning',
        '/status',
        '502 is a gateway status: the infrastructure in front of the installation answered, not the API (its media type and body are not judged)',
        502,
      ),
    ])
  })

  it('a status the operation does not declare is a violation naming those it does', () => {
    expect(judged(ITEMS, 418, {}, '')).toEqual([
      observed('violation', '/status', 'must be a status queryItems answers with (the document lists 200, 400, 401, 403, 404, 413, 414)', 418),
    ])
  })

  it('an error answer the description leaves to the installation is declared, and nothing more is judged of it', () => {
    expect(judged(ITEMS, 400, JSON_TYPE, JSON.stringify({ anything: 1 }))).toEqual([])
    expect(judged(ITEMS, 400, { 'content-type': 'text/plain' }, 'no')).toEqual([])
  })
})

describe('the headers', () => {
  it('a required header missing is a violation; one of the wrong form is a violation with its value', () => {
    expect(judged(DOWNLOAD, 200, { 'content-type': 'application/pdf' }, '%PDF')).toEqual([
      observed('violation', '/headers/Content-Disposition', 'is required: the document declares Content-Disposition on downloadAttachment 200'),
    ])
    expect(judged(DOWNLOAD, 200, { 'content-type': 'application/pdf', 'content-disposition': 'inline' }, '%PDF')).toEqual([
      observed(
        'violation',
        '/headers/Content-Disposition',
        `must match pattern "^attachment; ?filename" (the document's Content-Disposition on downloadAttachment 200)`,
        'inline',
      ),
    ])
  })

  it('a header sent twice is read joined, and a file of any media type is taken where the document declares any file', () => {
    expect(judged(DOWNLOAD, 200, { 'content-type': 'application/pdf', 'content-disposition': ['attachment; filename="a"', 'x'] }, '%PDF')).toEqual([])
    expect(judged(DOWNLOAD, 200, { 'content-type': 'image/png', 'content-disposition': 'attachment; filename="a.png"' }, 'png')).toEqual([])
  })
})

describe('the body', () => {
  it('a body where the document declares none is a violation; none is fine', () => {
    expect(judged(EMAIL, 200, {}, 'x')).toEqual([observed('violation', '/body', 'must be empty: sendEmail 200 is declared without a body')])
    expect(judged(EMAIL, 200, {}, '')).toEqual([])
    expect(judged(EMAIL, 200, {}, 'too-large')).toHaveLength(1)
  })

  it('a media type the document does not declare is a violation with the type, or null when none came', () => {
    expect(judged(ITEMS, 200, { 'content-type': 'text/html; charset=utf-8' }, '<html>')).toEqual([
      observed('violation', '/headers/Content-Type', "must be application/json (the document's media types of queryItems 200)", 'text/html'),
    ])
    expect(judged(ITEMS, 200, {}, '[]')[0]?.example).toBeNull()
  })

  it('reads the media type in any letter case, with spaces and parameters around it', () => {
    expect(judged(ITEMS, 200, { 'content-type': ' Application/JSON ; charset=utf-8' }, page(1))).toEqual([])
    expect(judged(ITEMS, 200, { 'content-type': ' Application/JSON ; charset=utf-8' }, page('a'))).toHaveLength(1)
  })

  it('JSON that does not parse is a violation; a body past the check limit, or none on a HEAD or 204, is not judged', () => {
    expect(judged(ITEMS, 200, JSON_TYPE, '{bad')).toEqual([
      // JSON.parse's own words, which differ between Node's lines.
      observed('violation', '/body', expect.stringMatching(/^must be JSON, as its Content-Type says \(.*position 1.*\)$/)),
    ])
    expect(judged(ITEMS, 200, JSON_TYPE, 'too-large')).toEqual([])
    expect(judged(ITEMS, 200, JSON_TYPE, '', true)).toEqual([])
    expect(judged(DOWNLOAD, 200, { 'content-type': 'application/pdf' }, '', true)).toHaveLength(1)
  })

  it('a fault every row shares is one violation at * with the first row’s value', () => {
    expect(judged(ITEMS, 200, JSON_TYPE, page('a', 'b', 3))).toEqual([observed('violation', '/body/*/Id', 'must be integer', 'a')])
    expect(judged(ITEMS, 200, JSON_TYPE, page(1, 2))).toEqual([])
  })

  it('a body none of the alternatives fits is told against the one of its own JSON type (a count is an object), else the closest', () => {
    expect(judged(ITEMS, 200, JSON_TYPE, JSON.stringify({ Items: [{ _FieldCount_: 'x' }] }))).toEqual([
      observed('violation', '/body/Timestamp', "must have required property 'Timestamp'"),
      observed('violation', '/body/Items/*/_FieldCount_', 'must be integer', 'x'),
    ])
    expect(judged(ITEMS, 200, JSON_TYPE, JSON.stringify('text'))).toEqual([observed('violation', '/body', 'must be array', 'text')])
  })
})
