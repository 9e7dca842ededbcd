import { jsonType, MEMBER_NAME, typesOf, type Shape } from '../../usage-file/shape.ts'

/**
 * The answer members a client received (its recorded answer shape) held to an answer: which are
 * missing and which came with another JSON type, by path (`IsSaveSuccesfully`, `[].Customer` for
 * a member of each row). Only what the client received is looked at, so a member it never got is
 * never named.
 */
export interface MemberDiff {
  /** Path segments: member names, `[]` for the items of an array. */
  path: string[]
  change: 'missing' | 'retyped'
  /** The JSON types the client received. */
  received: string
  /** The JSON type the answer has (retyped only). */
  got?: string
}

/** A path as text: `ReturnData.PrimaryKeyData`, `[].Customer`. */
export const pathText = (path: readonly string[]) => path.join('.').replace(/\.\[\]/g, '[]')

function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value === 'object' ? 'object' : typeof value
}

/** What a recorded union of types expects, worked out once per union (a usage names a few dozen, its answers hold them millions of times). */
interface Expected {
  /** Some samples lacked the member. */
  absent: boolean
  /** The JSON types received, as `received` joins them. */
  types: string[]
  received: string
  /** The client only ever received null: that tells nothing of a type. */
  onlyNull: boolean
}

const expectations = new Map<string, Expected>()

function expectedOf(recorded: Shape): Expected {
  const union = typeof recorded === 'string' ? recorded : recorded.type
  let expected = expectations.get(union)
  if (expected === undefined) {
    const types = typesOf(recorded)
    const json = [...new Set(types.filter((t) => t !== 'absent').map(jsonType))]
    expected = { absent: types.includes('absent'), types: json, received: json.join('|'), onlyNull: json.join() === 'null' }
    // Unions are texts of a usage file, bounded in number by it; the memory is bounded whatever the file.
    if (expectations.size < 10_000) expectations.set(union, expected)
  }
  return expected
}

/** A path being walked, as links to its parent: a path is made into a list only for a member that differs. */
interface At {
  parent: At | undefined
  segment: string
}

function pathOf(base: readonly string[], at: At | undefined): string[] {
  const segments: string[] = []
  for (let node = at; node !== undefined; node = node.parent) segments.push(node.segment)
  return [...base, ...segments.reverse()]
}

function diffsAt(recorded: Shape, value: unknown, base: readonly string[], at: At | undefined, out: MemberDiff[]): void {
  const expected = expectedOf(recorded)
  if (value === undefined) {
    if (!expected.absent && !expected.onlyNull) out.push({ path: pathOf(base, at), change: 'missing', received: expected.received })
    return
  }
  const got = jsonTypeOf(value)
  if (expected.onlyNull || got === 'null') return
  if (!expected.types.includes(got)) {
    out.push({ path: pathOf(base, at), change: 'retyped', received: expected.received, got })
    return
  }
  if (typeof recorded === 'string') return
  if (got === 'object' && recorded.fields !== undefined) {
    const object = value as Record<string, unknown>
    for (const [name, field] of Object.entries(recorded.fields)) {
      // Keys that are data (PrimaryKeyData's "-1") are held to their shape where present, never required.
      if (name === '*') {
        for (const key of Object.keys(object)) if (!MEMBER_NAME.test(key)) diffsAt(field, object[key], base, { parent: at, segment: '*' }, out)
      } else diffsAt(field, Object.hasOwn(object, name) ? object[name] : undefined, base, { parent: at, segment: name }, out)
    }
  }
  if (got === 'array' && recorded.items !== undefined) {
    const items = value as unknown[]
    const before = out.length
    const item = { parent: at, segment: '[]' }
    // The first items show a missing or retyped member as well as all of them would.
    for (let i = 0; i < Math.min(items.length, 50) && out.length === before; i++) diffsAt(recorded.items, items[i], base, item, out)
  }
}

/** The members of `recorded` that `value` lacks or carries with another JSON type (a null where a value was is no change: a field may be empty). */
export function memberDiffs(recorded: Shape, value: unknown, path: string[] = []): MemberDiff[] {
  const out: MemberDiff[] = []
  diffsAt(recorded, value, path, undefined, out)
  return out
}

/** The object at a path of an answer (the first item of each array on the way), if there is one. */
export function objectAt(value: unknown, path: readonly string[]): Record<string, unknown> | undefined {
  let node = value
  for (const segment of path) {
    if (segment === '[]') node = Array.isArray(node) ? node[0] : undefined
    else node = node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined
  }
  return node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>) : undefined
}

/** Levenshtein distance, for telling a renamed member from one removed (names are short: a member name is at most a few dozen characters). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[b.length] as number
}

/**
 * The member that took the place of a missing one: in the target's answer at the same place, one
 * the recorded release's answer does not have, of the type the client received, with a name close
 * to the old one (a third of its letters changed at most, case aside). Undefined: it was removed.
 */
export function renamedTo(missing: MemberDiff, from: unknown, to: unknown): string | undefined {
  const parent = missing.path.slice(0, -1)
  const name = missing.path[missing.path.length - 1] ?? ''
  const [before, after] = [objectAt(from, parent) ?? {}, objectAt(to, parent)]
  if (after === undefined) return undefined
  const candidates = Object.entries(after)
    .filter(([key, value]) => !(key in before) && missing.received.split('|').includes(jsonTypeOf(value)))
    .map(([key]) => ({ key, d: distance(key.toLowerCase(), name.toLowerCase()) }))
    .filter(({ d }) => d <= Math.max(1, Math.floor(name.length / 3)))
    .sort((a, b) => a.d - b.d)
  return candidates[0]?.key
}
