import type { ValidateFunction } from 'ajv/dist/2020.js'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { buildControlPlaneDocument } from '../../spec/control-plane.ts'
import { ProblemError, type Violation } from '../errors.ts'
import { compileAt, createDocumentAjv } from '../validation/ajv.ts'
import { describeViolations, toViolations } from '../validation/violations.ts'

interface ControlSchemas {
  document: OpenAPIObject
  ajv: { coercing: ReturnType<typeof createDocumentAjv>; strict: ReturnType<typeof createDocumentAjv> }
  compiled: Map<string, ValidateFunction>
}

let schemas: ControlSchemas | undefined

/**
 * The control-plane document and its two Ajv instances, built once per process: the document is
 * pure data, and compiling is the slow part of Ajv, so every mock in a test run shares them.
 */
export function controlSchemas(): ControlSchemas {
  if (schemas === undefined) {
    const document = buildControlPlaneDocument()
    schemas = {
      document,
      ajv: { coercing: createDocumentAjv(document, { coerce: true }), strict: createDocumentAjv(document, { coerce: false }) },
      compiled: new Map(),
    }
  }
  return schemas
}

function validatorFor(schemaName: string, coerce: boolean): ValidateFunction {
  const { ajv, compiled } = controlSchemas()
  const key = `${coerce ? 'coercing' : 'strict'} ${schemaName}`
  let validate = compiled.get(key)
  if (validate === undefined) {
    validate = compileAt(coerce ? ajv.coercing : ajv.strict, `/components/schemas/${schemaName}`)
    compiled.set(key, validate)
  }
  return validate
}

/** Every violation of a control-plane schema by a value, with pointers under `/body`. */
export function controlViolations(schemaName: string, value: unknown, options: { coerce?: boolean } = {}): Violation[] {
  const validate = validatorFor(schemaName, options.coerce === true)
  return validate(value) ? [] : toViolations('body', validate.errors)
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

/** The VALIDATION problem for a list of violations. */
export function validationProblem(violations: Violation[]): ProblemError {
  return new ProblemError('VALIDATION', describeViolations(violations), { violations })
}
