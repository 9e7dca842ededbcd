/**
 * Shapes, not values: what a usage file keeps of a body. A value becomes its JSON type (`string`,
 * `integer`, `number`, `boolean`, `null`, `object`, `array`), a text a known format instead of
 * `string` when it has one (`guid`, `email`, `date`, `date-time`, `uri`). Objects keep their
 * member names with their shapes, arrays the union of their items. A member some samples lack
 * has `absent` in its union. Nothing of a value survives but its type.
 */

/** A scalar union such as `integer|null`, or an object or array with its members or items. */
export type Shape = string | { type: string; fields?: Record<string, Shape>; items?: Shape }

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const DATE = /^\d{4}-\d{2}-\d{2}$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/
const LEGACY_DATE = /^\/Date\(-?\d+([+-]\d{4})?\)\/$/
const URI = /^https?:\/\/\S+$/i

/** The type of a text: a known format, else `string`. */
export function textType(text: string): string {
  if (GUID.test(text)) return 'guid'
  if (EMAIL.test(text)) return 'email'
  if (DATE.test(text) || LEGACY_DATE.test(text)) return 'date'
  if (DATE_TIME.test(text)) return 'date-time'
  if (URI.test(text)) return 'uri'
  return 'string'
}

/** The JSON type of a scalar (formats for texts). */
export function scalarType(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return textType(value)
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  if (typeof value === 'boolean') return 'boolean'
  return Array.isArray(value) ? 'array' : 'object'
}

/** Types that are texts on the wire: a format is a text the client may read as one. */
export const TEXT_TYPES = new Set(['string', 'guid', 'email', 'date', 'date-time', 'uri'])

/** The JSON type a recorded type stands for (`guid` is a string, `integer` a number). */
export function jsonType(type: string): string {
  if (TEXT_TYPES.has(type)) return 'string'
  return type === 'integer' ? 'number' : type
}

/** Every type a recorded shape's union may hold (`integer|null`, `absent|string`): what the recorder writes, and all a reader takes. */
export const SHAPE_TYPES = ['absent', 'array', 'boolean', 'date', 'date-time', 'email', 'guid', 'integer', 'null', 'number', 'object', 'string', 'uri'] as const

/** The types of a saved row's field: a shape's, and `temporary` for an Id a create sends (a negative one). */
export const ROW_FIELD_TYPES = [...SHAPE_TYPES, 'temporary'] as const

/** A member name as a schema would write it; other keys are data (Ids, keys such as `OrderLines:-1`). */
export const MEMBER_NAME = /^[A-Za-z_$][A-Za-z0-9_$.-]*$/

/** Deeper bodies are cut: a usage file describes what a client relies on, not every nested corner. */
export const MAX_DEPTH = 8

/**
 * Shapes built up from samples, mutated in place: one pass over each value, no intermediate
 * shapes, so a page of rows costs one walk.
 */
export class ShapeAccumulator {
  readonly types = new Set<string>()
  fields: Map<string, ShapeAccumulator> | undefined
  /** Objects seen, so that members missing from some of them read as `absent`. */
  objects = 0
  items: ShapeAccumulator | undefined

  add(value: unknown, depth = 0): void {
    const type = scalarType(value)
    this.types.add(type)
    if (depth >= MAX_DEPTH) return
    if (type === 'array') {
      for (const item of value as unknown[]) (this.items ??= new ShapeAccumulator()).add(item, depth + 1)
    } else if (type === 'object') {
      this.objects++
      this.fields ??= new Map()
      for (const own of Object.keys(value as object)) {
        // Keys that are data, not member names (PrimaryKeyData's "-1", newKeys' "OrderLines:-1"), are one entry: `*`.
        const key = MEMBER_NAME.test(own) ? own : '*'
        let field = this.fields.get(key)
        if (field === undefined) {
          field = new ShapeAccumulator()
          // Absent from the objects seen before this one.
          if (this.objects > 1) field.types.add('absent')
          this.fields.set(key, field)
        }
        field.add((value as Record<string, unknown>)[own], depth + 1)
      }
      for (const [key, field] of this.fields) if (key !== '*' && !Object.hasOwn(value as object, key)) field.types.add('absent')
    }
  }

  /** Adds a recorded shape (as read from a usage file), for merging files. */
  addShape(shape: Shape): void {
    const type = typeof shape === 'string' ? shape : shape.type
    for (const part of type.split('|')) this.types.add(part)
    if (typeof shape === 'string') return
    if (shape.fields !== undefined) {
      this.fields ??= new Map()
      for (const [key, field] of Object.entries(shape.fields)) {
        let accumulator = this.fields.get(key)
        if (accumulator === undefined) this.fields.set(key, (accumulator = new ShapeAccumulator()))
        accumulator.addShape(field)
      }
    }
    if (shape.items !== undefined) (this.items ??= new ShapeAccumulator()).addShape(shape.items)
  }

  shape(): Shape {
    // A client that received 12 and 18.5 in one field received numbers.
    if (this.types.has('number')) this.types.delete('integer')
    const type = [...this.types].sort().join('|')
    if (this.fields === undefined && this.items === undefined) return type
    const out: { type: string; fields?: Record<string, Shape>; items?: Shape } = { type }
    if (this.fields !== undefined)
      out.fields = Object.fromEntries(
        [...this.fields.keys()].sort().map((key) => [key, (this.fields as Map<string, ShapeAccumulator>).get(key)?.shape() as Shape]),
      )
    if (this.items !== undefined) out.items = this.items.shape()
    return out
  }
}

/** The shape of one value. */
export function shapeOf(value: unknown): Shape {
  const accumulator = new ShapeAccumulator()
  accumulator.add(value)
  return accumulator.shape()
}

/** The types of a shape's union. */
export function typesOf(shape: Shape): string[] {
  return (typeof shape === 'string' ? shape : shape.type).split('|')
}
