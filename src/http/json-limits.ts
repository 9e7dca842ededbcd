import { LIMITS } from '../../spec/descriptions.ts'
import { ProblemError } from '../errors.ts'
import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../wire/json-codes.ts'
import { stringEnd } from './json-slices.ts'

/**
 * How deep a JSON body may nest and how many members one of its objects may hold, checked on the
 * text before it is parsed. Within the 60 MB a body may hold, some texts cost far more than their
 * size to parse and check, with no turn for other clients in between: 40 MB of `[` nested twenty
 * million deep held the mock 10 s in `JSON.parse`, and 4 MB of one object with 350,000 members
 * held it 3.5 s in the document check (one violation a member). The checks later on each work in
 * proportion to these two numbers, so bounding them bounds those. The scan itself is one pass over
 * the characters, with a chance to pause every `SCAN_CHARS` (json-body.ts runs it in slices for a
 * large body).
 */
export interface JsonLimits {
  /** Levels of objects and arrays, the outermost counted 1. */
  depth: number
  /** Members of one object. */
  members: number
}

/**
 * The bodies of the API's operations: 64 levels (what common JSON readers of web frameworks take by
 * default) and 1,000 members an object. No body the API describes nests more than a few levels
 * (a save's detail row is the seventh), and its widest object is a row, which holds its
 * application's fields.
 */
export const API_JSON_LIMITS: JsonLimits = { depth: LIMITS.bodyDepth, members: LIMITS.bodyMembers }

/**
 * The control plane's bodies. Its own checks are stricter where they apply (a rule's answer 64
 * levels, a fixture 100) and say where, in their own words, for a body 100,000 levels deep too
 * (200 KB, read in milliseconds); these only stop what would hold the loop before they could (a
 * fixture's `data` names one member an application, so 1,000 members would be too few).
 */
export const CONTROL_JSON_LIMITS: JsonLimits = { depth: 100_000, members: 10_000 }

/** Characters scanned between two chances to pause. */
const SCAN_CHARS = 1 << 16

/**
 * The first place `text` goes past `limits`, as the BAD_JSON problem that says so, or undefined.
 * Work that may pause: it yields every `SCAN_CHARS` characters. Only the structure is read (a text
 * that is no JSON is left to the parser, which says where): a colon outside a string inside an
 * object is one member.
 */
export function* jsonBeyondLimits(text: string, limits: JsonLimits): Generator<void, ProblemError | undefined, void> {
  // Past a limit takes a bracket a level or a colon a member: a shorter text (most API bodies) needs no scan.
  if (text.length <= Math.min(limits.depth, limits.members)) return undefined
  // One entry a level, grown as the text goes deeper (no bigger than the depth limit).
  const members: number[] = [0]
  const objects: boolean[] = [false]
  let depth = 0
  let pause = SCAN_CHARS
  for (let i = 0; i < text.length; i++) {
    if (i >= pause) {
      pause = i + SCAN_CHARS
      yield
    }
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (end === -1) return undefined
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++
      if (depth > limits.depth)
        return new ProblemError(
          'BAD_JSON',
          `The body nests deeper than ${limits.depth} levels of objects and arrays (at character ${i + 1}): the mock reads at most ${limits.depth}.`,
          { position: i, limit: limits.depth },
        )
      members[depth] = 0
      objects[depth] = c === OPEN_OBJECT
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--
    } else if (c === COLON && objects[depth] === true) {
      members[depth] = (members[depth] as number) + 1
      if ((members[depth] as number) > limits.members)
        return new ProblemError(
          'BAD_JSON',
          `An object of the body has more than ${limits.members.toLocaleString('en-US')} members (the one at character ${i + 1} is past the limit): the mock reads at most ${limits.members.toLocaleString('en-US')} members an object.`,
          { position: i, limit: limits.members },
        )
    }
  }
  return undefined
}
