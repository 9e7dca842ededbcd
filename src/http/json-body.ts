import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'
import { parseRowsInSlices, slicing } from './json-slices.ts'

/** Line and column (from 1) of a character position in a text. */
function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++
    start = i + 1
  }
  return { line, column: position - start + 1 }
}

/** The body parsed whole, or the BAD_JSON problem that says where it stops being JSON. */
function parseWhole(text: string): { value: unknown } | { problem: ProblemError } {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    const message = (error as Error).message
    const at = /at position (\d+)/.exec(message)
    const where = at === null ? (/end of JSON input/.test(message) ? ' (the body ends too soon)' : '') : (() => {
      const { line, column } = lineAndColumn(text, Number(at[1]))
      return ` (line ${line}, column ${column})`
    })()
    return { problem: new ProblemError('BAD_JSON', `The body is not valid JSON: ${message}${where}.`, at === null ? {} : { position: Number(at[1]) }) }
  }
}

/**
 * JSON bodies, parsed as Fastify's own parser does (the text whole, then `JSON.parse`; members
 * named `__proto__` stay own members), but a body that is not JSON is refused saying where it
 * stops being JSON: the position, line and column Fastify's parser drops. A large body of rows
 * (`slicing.bodyChars` or more) is parsed a slice of rows at a time, so the mock keeps answering
 * beside it (json-slices.ts); the value and every refusal are the same.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.length === 0) {
      done(new ProblemError('BAD_JSON', 'The body is empty, but Content-Type says application/json: send a JSON body, or no Content-Type.'), undefined)
      return
    }
    const finish = (parsed: { value: unknown } | { problem: ProblemError }) => ('problem' in parsed ? done(parsed.problem, undefined) : done(null, parsed.value))
    if (text.length < slicing.bodyChars) {
      finish(parseWhole(text))
      return
    }
    // Not a body of rows the slices understand (or not JSON at all): parsed whole, as any other.
    parseRowsInSlices(text).then(
      (value) => finish(value === undefined ? parseWhole(text) : { value }),
      () => finish(parseWhole(text)),
    )
  })
}
