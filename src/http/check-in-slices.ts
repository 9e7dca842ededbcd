import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { atPointer, resolveRef } from '../document/reader.ts'
import { isObject } from '../document/json.ts'
import type { BodyCheck } from '../document/validators.ts'
import { dropEchoes, ViolationTally } from '../document/violations.ts'
import { slicing, yieldTurn } from './json-slices.ts'

/**
 * A big body checked against its schema a slice of elements at a time, so that neither a big valid
 * body nor a big invalid one stops the mock: the rows of a save (`/Rows`), of each group of a delete
 * (`/0/Rows`, ...), the Ids of a row link (`/values`): every array of `slicing.checkRows` elements or
 * more near the body's top. The body is checked as a skeleton first (each big array cut to its
 * first element), which tells which of the schema's alternatives it is (the current or the older
 * delete body); then each big array a slice at a time inside that skeleton. An array whose schema
 * judges each element on its own (no `maxItems`, `uniqueItems`, `contains`, ...) is valid exactly
 * when each of its slices is, so the verdict and every violation are those of checking the body
 * whole, told with the indexes of the whole body.
 */

/** Where a value is in the body: member names and array indexes. */
export type Path = ReadonlyArray<string | number>

/** How deep below the body's top big arrays are looked for: a save's rows (1), a delete group's rows (2). */
const MAX_DEPTH = 2

/**
 * The paths of the body's big arrays (`slicing.checkRows` elements or more), at most MAX_DEPTH
 * below its top, none inside another. Looks at the first levels only: cheap on every body.
 */
export function bigArrays(body: unknown): Path[] {
  const found: Path[] = []
  const visit = (node: unknown, path: Array<string | number>): void => {
    if (Array.isArray(node)) {
      if (node.length >= slicing.checkRows) {
        found.push([...path])
        return
      }
      if (path.length < MAX_DEPTH) node.forEach((element, index) => visit(element, [...path, index]))
    } else if (isObject(node) && path.length < MAX_DEPTH) {
      for (const [name, member] of Object.entries(node)) visit(member, [...path, name])
    }
  }
  visit(body, [])
  return found
}

/** A JSON pointer into the request (`/body/0/Rows`), RFC 6901's escapes applied. */
function pointerOf(path: Path): string {
  return `/body${path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`
}

/** The value at `path`, or undefined. */
function at(root: unknown, path: Path): unknown {
  let node = root
  for (const key of path) node = isObject(node) || Array.isArray(node) ? (node as Record<string | number, unknown>)[key] : undefined
  return node
}

/** `root` with the value at `path` replaced: the containers along the path copied, nothing else. */
function replacedAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value
  const [key, ...rest] = path as [string | number, ...Array<string | number>]
  if (Array.isArray(root)) {
    const copy: unknown[] = [...root]
    copy[key as number] = replacedAt(copy[key as number], rest, value)
    return copy
  }
  const copy: Record<string, unknown> = { ...(root as Record<string, unknown>) }
  copy[key] = replacedAt(copy[key], rest, value)
  return copy
}

/** Keywords of a big array's schema, and of the schemas on its way, that judge each element on its own (annotations and `x-` aside). */
const PLAIN_ARRAY = new Set(['type', 'items', 'minItems'])
const WAY_ARRAY = new Set(['type', 'items', 'minItems', 'maxItems'])
const WAY_OBJECT = new Set(['type', 'required', 'properties', 'additionalProperties'])
const ANNOTATIONS = new Set(['title', 'description', 'example', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment'])

/** Whether a schema's keywords are all of `allowed` (or annotations, or extensions). */
function only(schema: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  return Object.keys(schema).every((key) => allowed.has(key) || ANNOTATIONS.has(key) || key.startsWith('x-'))
}

/**
 * Whether the schema at `pointer` judges the array at `path` an element at a time: every schema on
 * the way is plain (its members by name, the array's elements by `items`), and the array's own
 * allows any length of at least one (`minItems` at most 1), so each slice stands for the whole.
 */
export function sliceable(document: OpenAPIObject, pointer: string, path: Path): boolean {
  let { node } = resolveRef(document, atPointer(document, pointer))
  for (const key of path) {
    if (!isObject(node)) return false
    if (typeof key === 'number') {
      if (node.type !== 'array' || !only(node, WAY_ARRAY)) return false
      node = resolveRef(document, node.items).node
    } else {
      if (node.type !== 'object' || !only(node, WAY_OBJECT)) return false
      const member = isObject(node.properties) ? node.properties[key] : undefined
      node = resolveRef(document, member ?? (isObject(node.additionalProperties) ? node.additionalProperties : undefined)).node
    }
  }
  if (!isObject(node) || node.type !== 'array' || !only(node, PLAIN_ARRAY)) return false
  return node.minItems === undefined || (typeof node.minItems === 'number' && node.minItems <= 1)
}

/** One shape the body may take (the schema, or one of its alternatives) and its check. */
export interface Alternative {
  pointer: string
  check: BodyCheck
}

/** What a body checked in slices comes to: its violations, and members no schema names while they are its only fault. */
export interface SlicedCheck {
  violations: ViolationTally
  members: ViolationTally
}

/** An unknown member as the violation a strict schema reports. */
export function unknownMember(pointer: string): Violation {
  return { pointer, keyword: 'additionalProperties', message: 'must NOT have additional properties' }
}

/** Checking goes on past a slice until this long (ms) has passed, then yields a turn of the event loop. */
const SLICE_MS = 8

/**
 * Checks `body`, whose big arrays are at `arrays`, against the first of `alternatives` its skeleton
 * fits (each tried in turn while one does not fit a slice), or, when none fits, against the one
 * closest to it (fewest violations), a slice at a time. Undefined when no alternative judges those
 * arrays an element at a time (`sliceable`): then the body is checked whole.
 */
export async function checkInSlices(
  document: OpenAPIObject,
  body: unknown,
  arrays: readonly Path[],
  alternatives: readonly Alternative[],
): Promise<SlicedCheck | undefined> {
  const usable = alternatives.filter((alternative) => arrays.every((path) => sliceable(document, alternative.pointer, path)))
  if (usable.length === 0) return undefined
  let skeleton = body
  for (const path of arrays) skeleton = replacedAt(skeleton, path, (at(body, path) as unknown[]).slice(0, 1))
  // The alternatives the skeleton fits, those it fits but for unnamed members next, in their order; else the closest.
  const judged = usable.map((alternative) => ({ alternative, base: alternative.check(skeleton) }))
  const fitting = [
    ...judged.filter(({ base }) => base.violations.length + base.unknownMembers.length === 0),
    ...judged.filter(({ base }) => base.violations.length === 0 && base.unknownMembers.length > 0),
  ]
  const order = fitting.length > 0 ? fitting : [judged.reduce((best, next) => (next.base.violations.length < best.base.violations.length ? next : best))]
  // None fits every slice: the one with the fewest violations, as a body checked whole is told against (hints.ts, closestAlternative).
  let closest: SlicedCheck | undefined
  for (const { alternative, base } of order) {
    const found = await slices(body, skeleton, arrays, alternative.check, base)
    if (found.violations.size === 0) return found
    if (closest === undefined || found.violations.total < closest.violations.total) closest = found
  }
  return closest
}

/** The violations under one of `prefixes` (pointers of the big arrays), or under none. */
function under(pointer: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => pointer.startsWith(`${prefix}/`))
}

/**
 * One alternative, a slice at a time: what the skeleton's check said of everything but the big
 * arrays, then each big array's slices inside the skeleton, their violations told as of the whole
 * body (the slice's indexes shifted). Unknown members are gathered apart while they are the body's
 * only fault; once anything else in it is wrong they are violations too, as checking the body
 * whole says them.
 */
async function slices(body: unknown, skeleton: unknown, arrays: readonly Path[], check: BodyCheck, base: ReturnType<BodyCheck>): Promise<SlicedCheck> {
  const prefixes = arrays.map(pointerOf)
  const wrong = new ViolationTally()
  const members = new ViolationTally()
  wrong.add(dropEchoes(base.violations, { value: skeleton, prefix: '/body' }).filter((v) => !under(v.pointer, prefixes)))
  members.add(base.unknownMembers.filter((pointer) => !under(pointer, prefixes)).map(unknownMember))
  const size = slicing.sliceRows
  let begun = performance.now()
  for (const path of arrays) {
    const items = at(body, path) as unknown[]
    const prefix = pointerOf(path)
    // `/body/.../Rows/<k>...` of the slice starting at `from`, as a pointer into the whole body.
    const shift = (pointer: string, from: number): string => {
      const rest = pointer.slice(prefix.length + 1)
      const end = rest.indexOf('/')
      return `${prefix}/${Number(end === -1 ? rest : rest.slice(0, end)) + from}${end === -1 ? '' : rest.slice(end)}`
    }
    for (let from = 0; from < items.length; from += size) {
      const synthetic = replacedAt(skeleton, path, items.slice(from, from + size))
      const found = check(synthetic)
      wrong.add(
        dropEchoes(found.violations, { value: synthetic, prefix: '/body' })
          .filter((v) => under(v.pointer, [prefix]))
          .map((v) => ({ ...v, pointer: shift(v.pointer, from) })),
      )
      members.add(found.unknownMembers.filter((pointer) => under(pointer, [prefix])).map((pointer) => unknownMember(shift(pointer, from))))
      if (performance.now() - begun >= SLICE_MS) {
        await yieldTurn()
        begun = performance.now()
      }
    }
  }
  if (wrong.size > 0) {
    wrong.add(members.summary(Infinity).violations)
    members.clear()
  }
  return { violations: wrong, members }
}
