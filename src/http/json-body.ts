import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'

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

/**
 * JSON bodies, parsed as Fastify's own parser does (the text whole, then `JSON.parse`; members
 * named `__proto__` stay own members), but a body that is not JSON is refused saying where it
 * stops being JSON: the position, line and column Fastify's parser drops.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.length === 0) {
      done(new ProblemError('BAD_JSON', 'The body is empty, but Content-Type says application/json: send a JSON body, or no Content-Type.'), undefined)
      return
    }
    try {
      done(null, JSON.parse(text))
    } catch (error) {
      const message = (error as Error).message
      const at = /at position (\d+)/.exec(message)
      const where = at === null ? (/end of JSON input/.test(message) ? ' (the body ends too soon)' : '') : (() => {
        const { line, column } = lineAndColumn(text, Number(at[1]))
        return ` (line ${line}, column ${column})`
      })()
      done(new ProblemError('BAD_JSON', `The body is not valid JSON: ${message}${where}.`, at === null ? {} : { position: Number(at[1]) }), undefined)
    }
  })
}
