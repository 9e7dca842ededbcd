import type { ProblemError, Violation } from '../errors.ts'
import { violationsProblem } from '../document/violations.ts'

/**
 * Strict mode (`--strict`) and rules: a mock that gives only what the API's description promises
 * refuses, when it is added, a rule that says `offDocument: true` and is off the document (fault or
 * answer rule), rather than each request it would answer.
 */

/** The violation strict mode adds for a rule that says `offDocument: true` and is off the document, pointing at its `offDocument`. */
export function strictViolation(pointer: string): Violation {
  return {
    pointer,
    keyword: 'strict',
    message:
      'is refused in strict mode (--strict): the mock gives only answers the served document can give; start it without --strict to answer off the document',
  }
}

/**
 * The 400 STRICT_MODE problem refusing such a rule: `violations` names its `offDocument` first,
 * then why the rule is off the document; `warning` is the warning its answers would have carried.
 */
export function strictProblem(violations: Violation[]): ProblemError {
  return violationsProblem(violations, 'STRICT_MODE', { warning: 'OFF_DOCUMENT_ANSWER' }, (text) => `${text}.`)
}
