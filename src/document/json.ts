/**
 * JSON values as the document's modules walk them. Its own module, below reader.ts and modes.ts,
 * so that the two need not import each other for one predicate.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The path to the first value nested more than `max` containers deep in `value`, or undefined when
 * none is: `[]` for a container at the top counts as depth 1, so `max` 1 allows `{ "a": 1 }` and
 * refuses `{ "a": { "b": 1 } }` at `["a"]`. Walked without recursion, and never past depth
 * `max + 1`, so a value nested 100,000 deep (or one that contains itself) costs no stack and
 * little time: it is what a caller runs before anything recursive (a validator, JSON.stringify,
 * structuredClone) touches a value it did not make.
 */
export function tooDeepAt(value: unknown, max: number): Array<string | number> | undefined {
  interface Step {
    value: object
    depth: number
    parent: Step | undefined
    key: string | number
  }
  if (value === null || typeof value !== 'object') return undefined
  const stack: Step[] = [{ value, depth: 1, parent: undefined, key: '' }]
  while (stack.length > 0) {
    const step = stack.pop() as Step
    if (step.depth > max) {
      const path: Array<string | number> = []
      for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) path.unshift(at.key)
      return path
    }
    // Only containers are pushed, each with a link to its parent: the path is built only for the answer.
    const array = Array.isArray(step.value)
    for (const [key, member] of Object.entries(step.value)) {
      if (member !== null && typeof member === 'object')
        stack.push({ value: member as object, depth: step.depth + 1, parent: step, key: array ? Number(key) : key })
    }
  }
  return undefined
}
