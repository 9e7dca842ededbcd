import { ProblemError } from '../../src/errors.ts'

/** The ProblemError `action` throws; fails the test when it throws nothing, and passes any other error on. */
export function refusal(action: () => unknown): ProblemError {
  try {
    action()
  } catch (error) {
    if (error instanceof ProblemError) return error
    throw error
  }
  throw new Error('was not refused')
}
