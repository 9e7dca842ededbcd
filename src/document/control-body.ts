import type { ProblemError, Violation } from '../errors.ts'
import { controlPlaneDocument } from './reader.ts'
import { validatorsFor } from './validators.ts'
import { violationsProblem } from './violations.ts'

/** Every violation of a control-plane schema by a value, with pointers under `/body`. */
export function controlViolations(schemaName: string, value: unknown, options: { coerce?: boolean } = {}): Violation[] {
  return validatorsFor(controlPlaneDocument()).violationsAt(`/components/schemas/${schemaName}`, value, 'body', options)
}

/**
 * Checks a control-plane body against its schema in spec/control-plane/ and throws the 400
 * problem naming each field. The HTTP routes and the `startMock()` methods both call this, so a
 * test gets the same refusal either way.
 */
export function checkControlBody(schemaName: string, value: unknown, options: { coerce?: boolean } = {}): void {
  const violations = controlViolations(schemaName, value, options)
  if (violations.length > 0) throw validationProblem(violations)
}

/** The VALIDATION problem for a list of violations (merged, ranked and capped: src/document/violations.ts). */
export function validationProblem(violations: Violation[]): ProblemError {
  return violationsProblem(violations)
}
